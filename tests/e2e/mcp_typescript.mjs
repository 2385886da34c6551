// Drives a running sidecar's MCP endpoint with the official TypeScript SDK.
//
//   node tests/e2e/mcp_typescript.mjs BASE_URL
//
// The SDK's Client has no option for the protocol version it requests: its
// initialize request always carries the module constant
// LATEST_PROTOCOL_VERSION (2025-11-25 in 1.32), and an ES module's imported
// binding cannot be reassigned. So, for each version we serve, the
// transport's `send` is wrapped to rewrite `params.protocolVersion` of the
// outgoing initialize request; everything after it (the MCP-Protocol-Version
// header, schema checks) is the SDK's own behaviour. A last run leaves the
// request untouched: the SDK asks for 2025-11-25 and must accept our
// 2025-06-18. Each run lists the tools and calls every one, lists and reads
// resources and templates, and lists and gets the prompts. Exits non-zero on
// the first failure.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18"];
const ARGUMENTS = {
  get_service_information: { section: "guardrails" },
  get_platform_statistics: {},
  get_observations: { limit: 2 },
  get_observation_trend: { parameter: "nitrate", interval: "year" },
  get_globe_points: {},
  search_documentation: { query: "archive", limit: 3 },
  get_document: { path: "/docs/archive/" },
  prepare_enquiry: { topic: "Data access", message: "May we reuse the data?" },
};

function check(condition, what) {
  if (!condition) throw new Error(what);
}

function textOf(result) {
  return (result.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

async function exercise(url, requested, expected) {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  if (requested) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (message.method === "initialize") {
        message = { ...message, params: { ...message.params, protocolVersion: requested } };
      }
      return send(message, options);
    };
  }
  const client = new Client({ name: "sidecar-e2e", version: "1.0.0" });
  await client.connect(transport);
  try {
    const negotiated = transport.protocolVersion;
    check(negotiated === expected, `negotiated ${negotiated}, expected ${expected}`);
    check(client.getServerVersion()?.name, "serverInfo has a name");
    check(client.getInstructions(), "initialize gives instructions");

    const { tools } = await client.listTools();
    const names = new Set(tools.map((t) => t.name));
    for (const name of Object.keys(ARGUMENTS)) {
      check(names.has(name), `tool ${name} is listed (got ${[...names].join(", ")})`);
    }
    for (const tool of tools) {
      check(tool.description, `${tool.name} has a description`);
      check(tool.inputSchema?.type === "object", `${tool.name} has an object inputSchema`);
      check(expected === "2025-06-18" || tool.outputSchema === undefined,
        `${tool.name}: outputSchema on ${expected}`);
      const result = await client.callTool({ name: tool.name, arguments: ARGUMENTS[tool.name] ?? {} });
      check(!result.isError, `${tool.name} failed: ${textOf(result)}`);
      check(textOf(result).length > 0, `${tool.name} returned text`);
      const structured = result.structuredContent !== undefined;
      check(structured === (expected === "2025-06-18"),
        `${tool.name}: structuredContent ${structured ? "present" : "absent"} on ${expected}`);
    }
    const enquiry = await client.callTool({ name: "prepare_enquiry", arguments: ARGUMENTS.prepare_enquiry });
    check(textOf(enquiry).includes("/contact/"), "the enquiry names the contact form");

    const { resources } = await client.listResources();
    const docs = resources.filter((r) => r.uri.endsWith("/index.md"));
    check(docs.length > 0, "documents are listed as resources");
    const read = await client.readResource({ uri: docs[0].uri });
    check(read.contents[0]?.text?.startsWith("# "), "a document reads as Markdown");
    const service = resources.find((r) => r.uri.endsWith("/api/service.json"));
    check(service, "service.json is a resource");
    JSON.parse((await client.readResource({ uri: service.uri })).contents[0].text);
    const { resourceTemplates } = await client.listResourceTemplates();
    check(resourceTemplates.length > 0, "a resource template is listed");

    const { prompts } = await client.listPrompts();
    for (const prompt of prompts) {
      const args = Object.fromEntries((prompt.arguments ?? []).map((a) => [a.name, "water quality"]));
      const got = await client.getPrompt({ name: prompt.name, arguments: args });
      check(got.messages.length > 0, `prompt ${prompt.name} has messages`);
    }
    await client.ping();
    console.log(`ok  requested=${requested ?? "sdk-default"} version=${negotiated} tools=${tools.length} ` +
      `resources=${resources.length} prompts=${prompts.length}`);
  } finally {
    await client.close();
  }
}

async function main() {
  const base = process.argv[2];
  if (!base || process.argv.length !== 3) {
    console.error("usage: mcp_typescript.mjs BASE_URL");
    process.exit(2);
  }
  const url = base.replace(/\/+$/, "") + "/mcp/";
  for (const version of VERSIONS) {
    await exercise(url, version, version);
  }
  // Unmodified SDK: it asks for a newer version, we answer with our latest.
  await exercise(url, null, "2025-06-18");
}

main().catch((error) => {
  console.error(`mcp-typescript: FAILED: ${error?.stack ?? error}`);
  process.exit(1);
});
