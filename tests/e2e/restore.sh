#!/usr/bin/env bash
# The restore drill (tests/e2e/restore_e2e.py says what it checks): a
# backup taken while enquiries are submitted, restored into an empty data
# directory and served again, on SQLite (`sidecar backup`/`restore`), then
# on PostgreSQL (`pg_dump`/`pg_restore`, into a new database) when
# TEST_DATABASE_URL is set.
#
#   tests/e2e/restore.sh DIST_DIR
#
# The sidecar binary is $E2E_BIN/sidecar.
# Environment: RESTORE_E2E_TIMEOUT (seconds per backend, default 420).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/restore.sh DIST_DIR}
bin="$E2E_BIN/sidecar"
[ -x "$bin" ] || { echo "restore e2e: $bin is missing; run cargo build -p sidecar" >&2; exit 1; }

apt_ensure python3-venv
venv_ensure "aiosmtpd==1.4.6"
py=.tools/venv/bin/python

echo "restore e2e: SQLite"
timeout "${RESTORE_E2E_TIMEOUT:-420}" "$py" tests/e2e/restore_e2e.py --sidecar "$bin" --dist "$dist"

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  command -v pg_dump >/dev/null || apt_ensure postgresql-client
  source_db="restore_source_$$" restored_db="restore_target_$$"
  for db in "$source_db" "$restored_db"; do
    psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $db" >/dev/null
  done
  trap 'for db in "$source_db" "$restored_db"; do psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done' EXIT
  with_db() { "$py" -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$TEST_DATABASE_URL" "$1"; }
  echo "restore e2e: PostgreSQL (databases $source_db, $restored_db)"
  timeout "${RESTORE_E2E_TIMEOUT:-420}" "$py" tests/e2e/restore_e2e.py --sidecar "$bin" --dist "$dist" \
    --database-url "$(with_db "$source_db")" --restore-url "$(with_db "$restored_db")"
fi
