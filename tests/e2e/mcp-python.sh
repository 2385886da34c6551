#!/usr/bin/env bash
# The official Python MCP SDK against a running sidecar: every tool, a
# resource, the prompts, each protocol version we serve, and what an agent
# plans with (bounded results, output schemas, enums, errors).
#
#   tests/e2e/mcp-python.sh BASE_URL
#
# BASE_URL is a running `sidecar serve` (e.g. http://127.0.0.1:8080) whose
# dist/ was built by `generate build`. Installs the SDK into the
# project-local .tools/venv when missing and reuses it otherwise.
#
# Then, when the built site is at hand ($TEST_OUT/dist, as scripts/test
# sets it), a second sidecar on its own SQLite file whose observations
# table is renamed away: the live tools must answer results with isError
# that say when to retry, not JSON-RPC errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=${1:?usage: tests/e2e/mcp-python.sh BASE_URL}

venv_ensure "mcp==2.3.0"
echo "mcp-python: $base/mcp/ with mcp $(.tools/venv/bin/python -m pip show mcp | sed -n 's/^Version: //p')"
timeout "${MCP_PYTHON_TIMEOUT:-120}" .tools/venv/bin/python tests/e2e/mcp_python.py "$base"

dist=${TEST_OUT:-}/dist
if [ -z "${TEST_OUT:-}" ] || [ ! -d "$dist" ]; then
  echo "mcp-python: no built site at \$TEST_OUT/dist, the database-down run is skipped"
  exit 0
fi
scratch_begin
port=$(free_port)
sidecar_start "$E2E_BIN/sidecar" "$port" "$tmp/sidecar.log" --dist "$dist" --data-dir "$tmp/data" \
  --site-origin "${TEST_BASE:-http://127.0.0.1:$port}"
.tools/venv/bin/python - "$tmp/data/service.sqlite3" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("ALTER TABLE observations RENAME TO observations_gone")
db.commit()
PY
timeout "${MCP_PYTHON_TIMEOUT:-120}" .tools/venv/bin/python tests/e2e/mcp_python.py --database-down "http://127.0.0.1:$port"
