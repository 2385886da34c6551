#!/usr/bin/env bash
# Citable snapshots as a researcher and a data librarian meet them
# (decision 0050): `sidecar export` on the sample database while the
# sidecar serves it; `sha256sum -c SHA256SUMS` passes; `frictionless
# validate datapackage.json` loads every CSV against the Table Schema the
# export wrote; the row counts equal what the running sidecar's API
# returns (every observation page, the globe's sites); `generate build
# --snapshots` publishes the snapshot (the DCAT-AP shapes and
# html-validate hold on that build), its data page lists it and the
# sidecar serves its files byte for byte, and scripts/release publishes
# them with the rest of the build. Broken copies must fail: a
# tampered file fails the checksums (and the build refuses it), a CSV
# that breaks its Table Schema fails frictionless.
#
# With TEST_DATABASE_URL, the export runs again on PostgreSQL (a new
# database filled with the same sample data): the same checks, and the
# same data files as the SQLite export.
#
#   tests/e2e/snapshot.sh DIST_DIR
#
# The binaries are $E2E_BIN/{sidecar,generate}.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/snapshot.sh DIST_DIR}
bin="$E2E_BIN"
for b in sidecar generate; do
  [ -x "$bin/$b" ] || { echo "snapshot e2e: $bin/$b is missing; run cargo build" >&2; exit 1; }
done
apt_ensure python3-venv
venv_ensure "frictionless==5.21.0"
py=.tools/venv/bin/python
scratch_begin
pg_db="snapshot_e2e_$$"
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  trap 'scratch_end; psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $pg_db WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
fi

fail() { echo "snapshot e2e: FAIL: $*" >&2; exit 1; }

# The sidecar fills an empty SQLite database with the sample data.
port=$(free_port)
sidecar_start "$bin/sidecar" "$port" "$tmp/sidecar.log" --dist "$dist" --data-dir "$tmp/data" --admin-listen off
api="http://127.0.0.1:$port"

"$bin/sidecar" export --to "$tmp/snapshots" --dist "$dist" --data-dir "$tmp/data" --version e2e-1
snap="$tmp/snapshots/e2e-1"
ls "$snap"
if "$bin/sidecar" export --to "$tmp/snapshots" --dist "$dist" --data-dir "$tmp/data" --version e2e-1 2>"$tmp/again.err"; then
  fail "a second export of the same version was not refused"
fi
grep -q "never overwritten" "$tmp/again.err" || fail "the refusal does not say why: $(cat "$tmp/again.err")"

echo "snapshot e2e: sha256sum -c SHA256SUMS"
(cd "$snap" && sha256sum -c SHA256SUMS)

echo "snapshot e2e: frictionless validate datapackage.json"
(cd "$snap" && "$OLDPWD/.tools/venv/bin/frictionless" validate datapackage.json)

echo "snapshot e2e: row counts against the API"
"$py" tests/e2e/snapshot_e2e.py counts "$snap" "$api"

echo "snapshot e2e: broken copies must fail"
cp -r "$snap" "$tmp/tampered"
printf '1,x\r\n' >>"$tmp/tampered/sites.csv"
if (cd "$tmp/tampered" && sha256sum --quiet -c SHA256SUMS); then
  fail "a tampered file passed sha256sum -c"
fi
# The Data Package names each file's size and SHA-256 too.
if (cd "$tmp/tampered" && "$OLDPWD/.tools/venv/bin/frictionless" validate datapackage.json >"$tmp/tampered.out"); then
  fail "a tampered file passed frictionless"
fi
grep -q "hash-count" "$tmp/tampered.out" || fail "frictionless failed the tampered file, but not on its hash"
mkdir -p "$tmp/tampered-set" && cp -r "$tmp/tampered" "$tmp/tampered-set/e2e-1"
if "$bin/generate" build --out "$tmp/dist-tampered" --snapshots "$tmp/tampered-set" --quiet 2>"$tmp/tampered.err"; then
  fail "generate build published a tampered snapshot"
fi
grep -q "SHA-256" "$tmp/tampered.err" || fail "the build's refusal does not name the checksum: $(cat "$tmp/tampered.err")"
cp -r "$snap" "$tmp/off-schema"
"$py" tests/e2e/snapshot_e2e.py break-schema "$tmp/off-schema/observations.csv"
if (cd "$tmp/off-schema" && "$OLDPWD/.tools/venv/bin/frictionless" validate datapackage.json >"$tmp/off-schema.out"); then
  fail "a CSV breaking its Table Schema passed frictionless"
fi
grep -q "type-error" "$tmp/off-schema.out" || fail "frictionless failed, but not on the value's type: $(head -40 "$tmp/off-schema.out")"
echo "snapshot e2e: tampered file refused by sha256sum, frictionless (hash-count) and generate build; off-schema value refused by frictionless (type-error)"

echo "snapshot e2e: published with the site"
site_origin=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["site_origin"])' "$dist/manifest.json")
"$bin/generate" build --out "$tmp/dist" --base-url "$site_origin" --snapshots "$tmp/snapshots" --quiet
"$bin/generate" check --out "$tmp/dist"
# The snapshot's files are distributions in the DCAT-AP catalogue and the
# page's schema.org markup: the official shapes still hold.
tests/e2e/open-data.sh "$tmp/dist"
# The listing's markup (the suite's html-validate step sees a build without one).
tests/e2e/html-validate.sh "$tmp/dist"
port2=$(free_port)
sidecar_start "$bin/sidecar" "$port2" "$tmp/sidecar.log" --dist "$tmp/dist" --data-dir "$tmp/data" --admin-listen off
"$py" tests/e2e/snapshot_e2e.py published "$snap" "http://127.0.0.1:$port2"

echo "snapshot e2e: scripts/release publishes it with the rest of the build"
scripts/release publish "$tmp/dist" --to "$tmp/site" >/dev/null
(cd "$tmp/site/current/snapshots/e2e-1" && sha256sum --quiet -c SHA256SUMS) || fail "the released snapshot does not verify"

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "snapshot e2e: PostgreSQL (database $pg_db)"
  psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $pg_db" >/dev/null
  pg_url=$("$py" -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$TEST_DATABASE_URL" "$pg_db")
  port3=$(free_port)
  sidecar_start "$bin/sidecar" "$port3" "$tmp/pg.log" --dist "$dist" --database "$pg_url" --sample default --admin-listen off
  "$bin/sidecar" export --to "$tmp/pg-snapshots" --dist "$dist" --database "$pg_url" --version e2e-1
  pg_snap="$tmp/pg-snapshots/e2e-1"
  (cd "$pg_snap" && sha256sum --quiet -c SHA256SUMS) || fail "the PostgreSQL snapshot's checksums"
  (cd "$pg_snap" && "$OLDPWD/.tools/venv/bin/frictionless" validate datapackage.json >"$tmp/pg-frictionless.out") \
    || fail "frictionless on the PostgreSQL snapshot: $(head -40 "$tmp/pg-frictionless.out")"
  "$py" tests/e2e/snapshot_e2e.py counts "$pg_snap" "http://127.0.0.1:$port3"
  # The same sample data (same seed, same day) on both databases: the same
  # published bytes, whatever the backend.
  for f in observations.csv sites.csv sites.geojson; do
    cmp -s "$snap/$f" "$pg_snap/$f" || fail "$f differs between the SQLite and the PostgreSQL export"
  done
  echo "snapshot e2e: the PostgreSQL export verifies, validates, matches its API and equals the SQLite export's data files"
fi
echo "snapshot e2e: all checks passed"
