#!/usr/bin/env bash
# The official MCP conformance suite (server scenarios) against a running
# sidecar, with Node 22 from tests/e2e/node_modules.
#
#   tests/e2e/mcp-conformance.sh BASE_URL
#
# Every scenario that applies to a read-only, stateless server must pass;
# the others are listed, each with its reason, in
# tests/e2e/mcp-conformance-expected-failures.yml. The suite exits non-zero
# when a scenario outside that list fails (or only warns) and when a listed
# scenario starts passing (a stale entry), so the list stays exact.
# Installs the pinned npm tools (tests/e2e/package-lock.json) when missing.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=${1:?usage: tests/e2e/mcp-conformance.sh BASE_URL}
url="${base%/}/mcp/"

node=$(npm_e2e_ensure)
suite=$PWD/tests/e2e/node_modules/@modelcontextprotocol/conformance/dist/index.js
expected=$PWD/tests/e2e/mcp-conformance-expected-failures.yml

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
echo "mcp-conformance: $url with @modelcontextprotocol/conformance $("$node" -p "require('$PWD/tests/e2e/node_modules/@modelcontextprotocol/conformance/package.json').version") on node $("$node" --version)"
# The suite writes results/ under the working directory: keep it out of the tree.
cd "$results"
timeout "${MCP_CONFORMANCE_TIMEOUT:-300}" "$node" "$suite" server --url "$url" \
  --expected-failures "$expected" --output-dir "$results/out"
