#!/usr/bin/env bash
# The official TypeScript MCP SDK against a running sidecar: every tool, the
# resources, the prompts, and each protocol version we serve.
#
#   tests/e2e/mcp-typescript.sh BASE_URL
#
# BASE_URL is a running `sidecar serve` whose dist/ was built by
# `generate build`. Installs the pinned npm tools (tests/e2e/package-lock.json)
# into tests/e2e/node_modules when missing and reuses them otherwise.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=${1:?usage: tests/e2e/mcp-typescript.sh BASE_URL}

node=$(npm_e2e_ensure)
echo "mcp-typescript: $base/mcp/ with @modelcontextprotocol/sdk $("$node" -p 'require("./tests/e2e/node_modules/@modelcontextprotocol/sdk/package.json").version')"
timeout "${MCP_TYPESCRIPT_TIMEOUT:-120}" "$node" tests/e2e/mcp_typescript.mjs "$base"
