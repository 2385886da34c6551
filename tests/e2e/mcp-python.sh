#!/usr/bin/env bash
# The official Python MCP SDK against a running sidecar: every tool, a
# resource, the prompts, and each protocol version we serve.
#
#   tests/e2e/mcp-python.sh BASE_URL
#
# BASE_URL is a running `sidecar serve` (e.g. http://127.0.0.1:8080) whose
# dist/ was built by `generate build`. Installs the SDK into the
# project-local .tools/venv when missing and reuses it otherwise.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=${1:?usage: tests/e2e/mcp-python.sh BASE_URL}

venv_ensure "mcp==2.3.0"
echo "mcp-python: $base/mcp/ with mcp $(.tools/venv/bin/python -m pip show mcp | sed -n 's/^Version: //p')"
timeout "${MCP_PYTHON_TIMEOUT:-120}" .tools/venv/bin/python tests/e2e/mcp_python.py "$base"
