#!/usr/bin/env bash
# What an operator relies on, end to end: the example alert rules
# (deploy/prometheus/alerts.yml) checked and unit-tested with promtool, then
# the real sidecar with a real SMTP server (aiosmtpd on loopback): metrics on
# the admin listener only, the outbox metrics through an SMTP outage of
# OPS_OUTAGE_S seconds (default 60) and back, and the request log
# (tests/e2e/ops_e2e.py). Runs on SQLite, and again on PostgreSQL (in a
# fresh database) when TEST_DATABASE_URL is set.
#
#   tests/e2e/ops.sh DIST_DIR
#
# DIST_DIR is a `generate build` output. The sidecar binary is
# $E2E_BIN/sidecar (build it first).
# Environment: OPS_E2E_TIMEOUT (seconds per backend, default 300).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/ops.sh DIST_DIR}
bin="$E2E_BIN/sidecar"
[ -x "$bin" ] || { echo "ops e2e: $bin is missing; run cargo build -p sidecar" >&2; exit 1; }

# promtool comes with Debian's prometheus package; without it the rules
# would go unchecked, so its absence fails the test.
# (apt_ensure reads the package lists first: on a fresh machine they may
# not name the package yet.)
if ! command -v promtool >/dev/null; then
  apt_ensure prometheus \
    || { echo "ops e2e: the Debian package prometheus (promtool) could not be installed from apt" >&2; exit 1; }
fi
echo "ops e2e: alert rules ($(promtool --version 2>&1 | head -1))"
promtool check rules deploy/prometheus/alerts.yml
(cd deploy/prometheus && promtool test rules alerts_test.yml)

apt_ensure python3-venv
venv_ensure "aiosmtpd==1.4.6"
py=.tools/venv/bin/python
outage=${OPS_OUTAGE_S:-60}

echo "ops e2e: SQLite"
timeout "${OPS_E2E_TIMEOUT:-300}" "$py" tests/e2e/ops_e2e.py --sidecar "$bin" --dist "$dist" --outage "$outage"

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  command -v psql >/dev/null || apt_ensure postgresql-client
  db="ops_e2e_$$"
  psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $db" >/dev/null
  trap 'psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
  url=$("$py" -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$TEST_DATABASE_URL" "$db")
  echo "ops e2e: PostgreSQL (database $db)"
  timeout "${OPS_E2E_TIMEOUT:-300}" "$py" tests/e2e/ops_e2e.py --sidecar "$bin" --dist "$dist" --database-url "$url" --outage "$outage"
fi
