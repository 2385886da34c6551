// The TypeScript peer of scripts/bench-mcp: the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk, the version pinned in tests/e2e/package.json
// and installed in tests/e2e/node_modules) in stateless JSON mode, as the
// SDK's stateless example does it: for every POST a new Server and a new
// StreamableHTTPServerTransport ({sessionIdGenerator: undefined,
// enableJsonResponse: true}), on Node's own http module, one process.
//
// The SDK's low-level `Server` is used so the tools can be listed with the
// sidecar's own JSON Schemas (McpServer takes Zod schemas and converts them
// on every tools/list, which would only make this peer slower).
// get_service_information returns the requested section of
// dist/api/service.json (loaded once at start), like the sidecar; the other
// tools return the canned result captured from the sidecar (listed, not
// measured).
//
//   node peer_typescript.mjs PORT TOOLS_JSON SERVICE_JSON CANNED_JSON
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const sdk = new URL("../../tests/e2e/node_modules/@modelcontextprotocol/sdk/dist/esm/", import.meta.url);
const { Server } = await import(new URL("server/index.js", sdk));
const { StreamableHTTPServerTransport } = await import(new URL("server/streamableHttp.js", sdk));
const { ListToolsRequestSchema, CallToolRequestSchema, McpError, ErrorCode } = await import(
  new URL("types.js", sdk)
);

const [port, toolsPath, servicePath, cannedPath] = process.argv.slice(2);
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
const tools = readJson(toolsPath);
const service = readJson(servicePath);
const canned = readJson(cannedPath);
const sections = new Set(
  tools.find((t) => t.name === "get_service_information").inputSchema.properties.section.enum,
);

function serviceInformation(args) {
  for (const key of Object.keys(args)) {
    if (key !== "section") throw new McpError(ErrorCode.InvalidParams, `Unknown argument \`${key}\`.`);
  }
  if (args.section === undefined) return service;
  if (typeof args.section !== "string" || !sections.has(args.section)) {
    throw new McpError(ErrorCode.InvalidParams, "Argument `section` must be one of the sections.");
  }
  return { [args.section]: service[args.section] ?? null };
}

function getServer() {
  const server = new Server({ name: "typescript-peer", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    let structured;
    if (name === "get_service_information") structured = serviceInformation(args);
    else if (Object.hasOwn(canned, name)) structured = canned[name];
    else throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return {
      content: [{ type: "text", text: JSON.stringify(structured, null, 2) }],
      structuredContent: structured,
      isError: false,
    };
  });
  return server;
}

function fail(res, status, message) {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message }, id: null }));
}

const http = createServer((req, res) => {
  if (req.method !== "POST" || (req.url !== "/mcp" && req.url !== "/mcp/")) return fail(res, 405, "Method not allowed.");
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return fail(res, 400, "Parse error");
    }
    const server = getServer();
    try {
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on("close", () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (error) {
      console.error("MCP request failed:", error);
      fail(res, 500, "Internal server error");
    }
  });
});
http.keepAliveTimeout = 65_000;
http.listen(Number(port), "127.0.0.1", () => console.error(`typescript-peer listening on http://127.0.0.1:${port}/mcp`));
