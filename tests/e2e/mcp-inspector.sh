#!/usr/bin/env bash
# The MCP Inspector CLI against a running sidecar: lists the tools, calls
# every one, lists the resources and templates, reads one, lists and gets
# the prompts.
#
#   tests/e2e/mcp-inspector.sh BASE_URL
#
# BASE_URL is a running `sidecar serve` whose dist/ was built by
# `generate build`. Installs the pinned npm tools (tests/e2e/package-lock.json)
# into tests/e2e/node_modules when missing and reuses them otherwise. The
# Inspector's catalog and client config go to a temporary HOME, never ~.
# Exit codes the Inspector uses: 0 ok, 4 unreachable, 5 tool not found or an
# `isError` result, 6 unportable tool schema (--strict).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=${1:?usage: tests/e2e/mcp-inspector.sh BASE_URL}
url="${base%/}/mcp/"

node=$(npm_e2e_ensure)
inspector=$PWD/tests/e2e/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "mcp-inspector: $url with @modelcontextprotocol/inspector $("$node" -p "require('$PWD/tests/e2e/node_modules/@modelcontextprotocol/inspector/package.json').version")"

failures=0
# run LABEL EXPECTED_EXIT MUST_CONTAIN... -- INSPECTOR_ARGS...
run() {
  local label=$1 want=$2
  shift 2
  local needles=()
  while [ "$1" != "--" ]; do needles+=("$1"); shift; done
  shift
  local out="$scratch/out" err="$scratch/err" code=0
  HOME="$scratch" MCP_CATALOG_PATH="$scratch/mcp.json" MCP_CLIENT_CONFIG_PATH="$scratch/client.json" \
    timeout "${MCP_INSPECTOR_CALL_TIMEOUT:-60}" "$node" "$inspector" --cli "$url" --transport http "$@" \
    >"$out" 2>"$err" </dev/null || code=$?
  local problem=""
  [ "$code" -eq "$want" ] || problem="exit $code, expected $want"
  for needle in "${needles[@]}"; do
    grep -qF -- "$needle" "$out" || problem="${problem:+$problem; }output lacks '$needle'"
  done
  if [ -n "$problem" ]; then
    echo "FAIL $label: $problem"
    sed 's/^/  stdout: /' "$out" | head -20
    sed 's/^/  stderr: /' "$err" | head -20
    failures=$((failures + 1))
    if [ "$code" -eq 4 ]; then
      echo "mcp-inspector: $url is unreachable" >&2
      exit 1
    fi
  else
    echo "ok   $label"
  fi
}

run "tools/list" 0 '"get_service_information"' '"get_platform_statistics"' '"get_observations"' \
  '"get_observation_trend"' '"get_globe_points"' '"search_documentation"' '"get_document"' '"prepare_enquiry"' '"inputSchema"' \
  -- --method tools/list --strict
call() { local tool=$1; shift; run "tools/call $tool" 0 '"content"' '"text"' "$@"; }
call get_service_information guardrails -- --method tools/call --tool-name get_service_information --tool-arg section=guardrails
call get_platform_statistics -- --method tools/call --tool-name get_platform_statistics
call get_observations -- --method tools/call --tool-name get_observations --tool-arg limit=2
call get_observation_trend -- --method tools/call --tool-name get_observation_trend --tool-arg parameter=nitrate interval=year
call get_globe_points -- --method tools/call --tool-name get_globe_points
call get_globe_points NL -- --method tools/call --tool-name get_globe_points --tool-arg country=NL limit=3
call search_documentation -- --method tools/call --tool-name search_documentation --tool-arg query=archive limit=3
call get_document /docs/archive/ -- --method tools/call --tool-name get_document --tool-arg path=/docs/archive/
call prepare_enquiry /contact/ -- --method tools/call --tool-name prepare_enquiry \
  --tool-arg "topic=Data access" "message=May we reuse the data?"
# An unknown tool and a tool error must both end with exit 5.
run "tools/call unknown tool (exit 5)" 5 -- --method tools/call --tool-name no_such_tool
run "tools/call bad path (exit 5)" 5 -- --method tools/call --tool-name get_document --tool-arg path=/no/such/page/
run "resources/list" 0 '"resources"' '/index.md' 'api/service.json' -- --method resources/list
resource=$(grep -oE '"uri": *"[^"]*/index\.md"' "$scratch/out" 2>/dev/null | head -1 | sed -E 's/.*"([^"]*)"$/\1/' || true)
if [ -n "$resource" ]; then
  run "resources/read $resource" 0 '"contents"' '"text": "# ' -- --method resources/read --uri "$resource"
else
  echo "FAIL resources/read: no document URI in the resources/list output"
  failures=$((failures + 1))
fi
run "resources/templates/list" 0 '"resourceTemplates"' '"uriTemplate"' -- --method resources/templates/list
run "prompts/list" 0 '"prompts"' '"answer_about_organisation"' '"draft_enquiry"' -- --method prompts/list
run "prompts/get answer_about_organisation" 0 '"messages"' '"role": "user"' -- --method prompts/get \
  --prompt-name answer_about_organisation --prompt-args "question=Who runs the archive?"
run "prompts/get draft_enquiry" 0 '"messages"' '"role": "user"' -- --method prompts/get \
  --prompt-name draft_enquiry --prompt-args "topic=Data access" "details=Reuse for teaching"

if [ "$failures" -ne 0 ]; then
  echo "mcp-inspector: $failures check(s) failed" >&2
  exit 1
fi
echo "mcp-inspector: all checks passed"
