#!/usr/bin/env bash
# The shortest proof that a running sidecar serves the site, the API, MCP
# and the chat (scripts/test --quick; tests/e2e/container.sh through the
# image). The full proofs are schemathesis, the MCP SDKs and suites, the
# browser tests and tests/e2e/consistency.sh.
#
#   tests/e2e/smoke.sh ORIGIN BASE_URL
#
# ORIGIN is one of the sidecar's --site-origin values (the chat answers its
# own origins only); BASE_URL is where it listens. Checks: the home page is
# HTML with the service's name; /api/platform-stats.php is JSON with a
# strong ETag; MCP initialize negotiates a version and tools/list names
# tools, each with a description; the chat answers a question from the
# published pages with a citation of one of them.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

origin=${1:?usage: tests/e2e/smoke.sh ORIGIN BASE_URL}
base=${2:?usage: tests/e2e/smoke.sh ORIGIN BASE_URL}
base=${base%/}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }

# GET/POST with curl: status to stdout, headers and body to files.
call() { # NAME CURL_ARGS...
  local name=$1
  shift
  curl -sS --max-time 20 -o "$tmp/$name.body" -D "$tmp/$name.headers" -w '%{http_code}' "$@"
}
json() { # NAME PYTHON_EXPRESSION_ON_d
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$tmp/$1.body" "$2"
}

status=$(call page "$base/")
[ "$status" = 200 ] || fail "GET / answered $status"
grep -qi '^content-type: text/html' "$tmp/page.headers" || fail "GET / is not HTML"
name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' <(curl -fsS --max-time 20 "$base/api/service.json"))
grep -qF "$name" "$tmp/page.body" || fail "the home page does not name the service ($name)"
echo "smoke: GET / is the home page of $name"

status=$(call stats "$base/api/platform-stats.php")
[ "$status" = 200 ] || fail "GET /api/platform-stats.php answered $status"
grep -qiE '^etag: "' "$tmp/stats.headers" || fail "/api/platform-stats.php has no strong ETag"
json stats 'type(d).__name__' | grep -qx dict || fail "/api/platform-stats.php is not a JSON object"
echo "smoke: GET /api/platform-stats.php is JSON with a strong ETag"

mcp() { # NAME JSON_BODY [VERSION]
  call "$1" -X POST "$base/mcp/" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' ${3:+-H "MCP-Protocol-Version: $3"} --data "$2"
}
status=$(mcp init '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"smoke","version":"1"}}}')
[ "$status" = 200 ] || fail "MCP initialize answered $status"
version=$(json init 'd["result"]["protocolVersion"]') || fail "MCP initialize: $(head -c 300 "$tmp/init.body")"
status=$(mcp tools '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "$version")
[ "$status" = 200 ] || fail "MCP tools/list answered $status"
tools=$(json tools 'len(d["result"]["tools"]) if all(t.get("description") for t in d["result"]["tools"]) else 0') \
  || fail "MCP tools/list: $(head -c 300 "$tmp/tools.body")"
[ "$tools" -gt 0 ] || fail "MCP tools/list lists no tool, or one without a description"
echo "smoke: MCP initialize ($version) and tools/list ($tools tools, each described)"

status=$(call chat -X POST "$base/api/chat.php" -H 'Content-Type: application/json' -H "Origin: $origin" \
  --data '{"message":"What licence do the observation data have?"}')
[ "$status" = 200 ] || fail "POST /api/chat.php answered $status: $(head -c 300 "$tmp/chat.body")"
cited=$(json chat 'd["citations"][0]["url"] if d.get("citations") else ""') || fail "the chat's answer is not JSON"
[ -n "$cited" ] || fail "the chat answered without a citation: $(head -c 300 "$tmp/chat.body")"
page=$(curl -sS --max-time 20 -o /dev/null -w '%{http_code}' "$base$(python3 -c 'import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).path)' "$cited")")
[ "$page" = 200 ] || fail "the chat cites $cited, which answers $page"
echo "smoke: the chat answers with a citation of $cited"
