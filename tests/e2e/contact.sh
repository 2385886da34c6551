#!/usr/bin/env bash
# The contact form end to end, with a real SMTP server (aiosmtpd on
# loopback) and the real sidecar binary: delivery, a SIGKILL in the middle
# of up to 4,000 concurrent submissions (every acknowledged enquiry stored and
# mailed exactly once), an SMTP outage, an erasure with
# `sidecar enquiries delete --email` (no row, queued mail or log line keeps
# the address) and a retention of seconds. Runs on SQLite, and again on
# PostgreSQL (in a fresh database) when TEST_DATABASE_URL is set.
#
#   tests/e2e/contact.sh DIST_DIR
#
# DIST_DIR is a `generate build` output. The sidecar binary is
# $E2E_BIN/sidecar (build it first).
# Environment: CONTACT_E2E_TIMEOUT (seconds per backend, default 600).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/contact.sh DIST_DIR}
bin="$E2E_BIN/sidecar"
[ -x "$bin" ] || { echo "contact e2e: $bin is missing; run cargo build -p sidecar" >&2; exit 1; }

apt_ensure python3-venv
venv_ensure "aiosmtpd==1.4.6"
py=.tools/venv/bin/python

echo "contact e2e: SQLite"
timeout "${CONTACT_E2E_TIMEOUT:-600}" "$py" tests/e2e/contact_e2e.py --sidecar "$bin" --dist "$dist"

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  command -v psql >/dev/null || apt_ensure postgresql-client
  db="contact_e2e_$$"
  psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $db" >/dev/null
  trap 'psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
  # Same server and credentials, the new database.
  url=$("$py" -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$TEST_DATABASE_URL" "$db")
  echo "contact e2e: PostgreSQL (database $db)"
  timeout "${CONTACT_E2E_TIMEOUT:-600}" "$py" tests/e2e/contact_e2e.py --sidecar "$bin" --dist "$dist" --database-url "$url"
fi
