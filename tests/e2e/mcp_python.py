"""Drives a running sidecar's MCP endpoint with the official Python SDK.

    .tools/venv/bin/python tests/e2e/mcp_python.py BASE_URL

For each protocol version we serve, the client's initialize request is made
to ask for that version (the SDK always asks for its newest handshake
version, so the module constant it reads is replaced for the run); then the
default `auto` mode checks that the SDK's `server/discover` probe falls back
to initialize. Each run lists the tools and calls every one, lists and reads
resources and templates, and lists and gets the prompts. Exits non-zero on
the first failure.
"""

import asyncio
import json
import sys

import mcp.client.session as client_session
from mcp import Client

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18"]
ARGUMENTS = {
    "get_service_information": {"section": "guardrails"},
    "get_platform_statistics": {},
    "get_observations": {"limit": 2},
    "get_globe_points": {},
    "search_documentation": {"query": "archive", "limit": 3},
    "get_document": {"path": "/docs/archive/"},
    "prepare_enquiry": {"topic": "Data access", "message": "May we reuse the data?"},
}
REQUIRED_TOOLS = set(ARGUMENTS)


def check(condition, what):
    if not condition:
        raise AssertionError(what)


async def exercise(url, mode, expected):
    async with Client(url, mode=mode) as c:
        negotiated = c.protocol_version
        check(negotiated == expected, f"negotiated {negotiated}, expected {expected}")
        tools = (await c.list_tools()).tools
        names = {t.name for t in tools}
        check(REQUIRED_TOOLS <= names, f"tools listed: {sorted(names)}")
        for tool in tools:
            check(tool.description, f"{tool.name} has no description")
            result = await c.call_tool(tool.name, ARGUMENTS.get(tool.name, {}))
            check(not result.is_error, f"{tool.name} failed: {result.content}")
            structured = result.structured_content
            check((structured is not None) == (expected == "2025-06-18"), f"{tool.name}: structured content on {expected}")
        enquiry = await c.call_tool("prepare_enquiry", ARGUMENTS["prepare_enquiry"])
        check("/contact/" in enquiry.content[0].text, "the enquiry names the form")
        resources = (await c.list_resources()).resources
        docs = [r for r in resources if str(r.uri).endswith("/index.md")]
        check(docs, "documents are listed as resources")
        read = await c.read_resource(str(docs[0].uri))
        check(read.contents[0].text.startswith("# "), "a document reads as Markdown")
        service = [r for r in resources if str(r.uri).endswith("/api/service.json")]
        check(service, "service.json is a resource")
        json.loads((await c.read_resource(str(service[0].uri))).contents[0].text)
        templates = (await c.list_resource_templates()).resource_templates
        check(templates, "a resource template is listed")
        prompts = (await c.list_prompts()).prompts
        for prompt in prompts:
            args = {a.name: "water quality" for a in (prompt.arguments or [])}
            got = await c.get_prompt(prompt.name, args)
            check(got.messages, f"prompt {prompt.name} has messages")
        print(f"ok  mode={mode:<6} version={negotiated} tools={len(tools)} resources={len(resources)} prompts={len(prompts)}")


async def main(base):
    url = base.rstrip("/") + "/mcp/"
    for version in VERSIONS:
        client_session.LATEST_HANDSHAKE_VERSION = version
        await exercise(url, "legacy", version)
    # The SDK's own newest handshake version is one we do not serve: the
    # server answers with its latest, which the SDK accepts.
    client_session.LATEST_HANDSHAKE_VERSION = "2025-11-25"
    await exercise(url, "legacy", "2025-06-18")
    await exercise(url, "auto", "2025-06-18")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: mcp_python.py BASE_URL")
    asyncio.run(main(sys.argv[1]))
