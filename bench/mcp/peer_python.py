"""The Python peer of scripts/bench-mcp: the official MCP Python SDK (`mcp`,
2.x, where FastMCP is now `MCPServer`) in stateless JSON mode
(`stateless_http=True, json_response=True`), served by uvicorn.

It offers the sidecar's tools with the sidecar's own definitions: each tool
is registered the ordinary way (`add_tool` on a typed function, so calls go
through the SDK's usual argument validation and result conversion), then its
listed name, title, description, input and output schemas and annotations
are set to those of the `tools/list` answer the bench script captured from
the sidecar. `get_service_information` returns the requested section of
dist/api/service.json (loaded once at start), like the sidecar; the other
tools return the canned result captured from the sidecar (listed, not
measured).

    BENCH_MCP_TOOLS=tools.json BENCH_MCP_SERVICE=service.json \
    BENCH_MCP_CANNED=canned.json uvicorn peer_python:app --app-dir bench/mcp
"""

import json
import os
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations


def _load(var: str) -> Any:
    with open(os.environ[var], encoding="utf-8") as f:
        return json.load(f)


TOOLS: list[dict[str, Any]] = _load("BENCH_MCP_TOOLS")
SERVICE: dict[str, Any] = _load("BENCH_MCP_SERVICE")
CANNED: dict[str, Any] = _load("BENCH_MCP_CANNED")

server = MCPServer(name="python-peer", version="0.0.0", log_level="WARNING")

_sections = next(t for t in TOOLS if t["name"] == "get_service_information")["inputSchema"]["properties"]["section"][
    "enum"
]
Section = Literal[tuple(_sections)]  # type: ignore[valid-type]


def get_service_information(section: Section | None = None) -> dict[str, Any]:  # type: ignore[valid-type]
    if section is None:
        return SERVICE
    return {section: SERVICE.get(section)}


def _canned(name: str):
    value = CANNED[name]

    def tool() -> dict[str, Any]:
        return value

    return tool


for spec in TOOLS:
    name = spec["name"]
    fn = get_service_information if name == "get_service_information" else _canned(name)
    server.add_tool(
        fn,
        name=name,
        title=spec.get("title"),
        description=spec.get("description"),
        annotations=ToolAnnotations(**spec["annotations"]) if "annotations" in spec else None,
        structured_output=True,
    )
    tool = server._tool_manager.get_tool(name)
    tool.parameters = spec["inputSchema"]
    if "outputSchema" in spec:
        # `output_schema` is a cached property derived from the signature.
        tool.__dict__["output_schema"] = spec["outputSchema"]

app = server.streamable_http_app(stateless_http=True, json_response=True)
