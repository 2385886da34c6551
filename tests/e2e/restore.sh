#!/usr/bin/env bash
# The restore drill (tests/e2e/restore_e2e.py says what it checks): the
# backup and restore blocks of docs/operating.md ("Backups and restore"),
# run as written under umask 022, while enquiries are submitted, restored
# into an empty data directory and served again, on SQLite (`sidecar
# backup`/`restore`), then on PostgreSQL (`pg_dump`, then `createdb` and
# `pg_restore` into a new database, service_restored) when
# TEST_DATABASE_URL is set. First, broken copies of the guide must fail.
#
#   tests/e2e/restore.sh DIST_DIR
#
# The sidecar binary is $E2E_BIN/sidecar; the guide's blocks find it on
# PATH, with $E2E_BIN first.
# Environment: RESTORE_E2E_TIMEOUT (seconds per backend, default 420).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/restore.sh DIST_DIR}
bin="$E2E_BIN/sidecar"
[ -x "$bin" ] || { echo "restore e2e: $bin is missing; run cargo build -p sidecar" >&2; exit 1; }

apt_ensure python3-venv
venv_ensure "aiosmtpd==1.4.6"
py=.tools/venv/bin/python
# The drill sets it too: a file made without care is then 0644.
umask 022

echo "restore e2e: SQLite"
timeout "${RESTORE_E2E_TIMEOUT:-420}" "$py" tests/e2e/restore_e2e.py --sidecar "$bin" --dist "$dist"

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  command -v pg_dump >/dev/null || apt_ensure postgresql-client
  # The guide's restore block creates service_restored: one left by an
  # interrupted run goes first.
  source_db="restore_source_$$" restored_db=service_restored
  drop() {
    PGOPTIONS="-c client_min_messages=warning" \
      psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $1 WITH (FORCE)" >/dev/null
  }
  drop "$restored_db"
  psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $source_db" >/dev/null
  trap 'for db in "$source_db" "$restored_db"; do drop "$db" 2>/dev/null || true; done' EXIT
  with_db() { "$py" -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$TEST_DATABASE_URL" "$1"; }
  echo "restore e2e: PostgreSQL (databases $source_db, $restored_db)"
  timeout "${RESTORE_E2E_TIMEOUT:-420}" "$py" tests/e2e/restore_e2e.py --sidecar "$bin" --dist "$dist" \
    --database-url "$(with_db "$source_db")"
fi
