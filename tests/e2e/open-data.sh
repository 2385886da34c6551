#!/usr/bin/env bash
# The open-data catalogue and the discovery documents as data portals,
# dataset search engines and their reference tools read them:
#
# - The sample content built without a citable snapshot (the suite's DIST
#   has one since decision 0245; this copy is built here): its
#   catalog.jsonld against the official DCAT-AP 3.0.1 SHACL shapes
#   (vendored in tests/e2e/dcat-ap/, see SOURCE.md there) with pyshacl,
#   the schema.org Dataset JSON-LD of each dataset's page parsed as RDF
#   and compared with the catalogue, no coverage stated that nothing
#   computed (tests/e2e/open_data.py); llms.txt read by the reference
#   parser, PyPI llms-txt, with every section and link kept
#   (tests/e2e/llms_txt_check.py).
# - A build with a snapshot: a sidecar of its own fills a database with the
#   sample data, `sidecar export` writes a snapshot, `generate build
#   --snapshots` publishes it, and the sidecar serves that build: the same
#   checks, then the DataCite record against DataCite 4.5's JSON Schema,
#   the catalogue's facts (coverage, counts, box, last change) against
#   the API's answers, every distribution URL against its declared media
#   type, and the OGC API - Features as a data service of the catalogue,
#   the AI catalog and the API catalog (tests/e2e/open_data_live.py).
#
# Broken copies of each must fail (the test of the test, in each script).
#
#   tests/e2e/open-data.sh DIST_DIR
#
# The binaries are $E2E_BIN/{sidecar,generate}.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

: "${1:?usage: tests/e2e/open-data.sh DIST_DIR (the sample site; its content is built again here)}"
for b in sidecar generate; do
  [ -x "$E2E_BIN/$b" ] || { echo "open-data e2e: $E2E_BIN/$b is missing; run cargo build" >&2; exit 1; }
done
apt_ensure python3-venv
venv_ensure "pyshacl==0.40.1" "jsonschema==4.26.0" "llms-txt==0.0.7"
py=(timeout "${OPEN_DATA_TIMEOUT:-300}" .tools/venv/bin/python)
scratch_begin

echo "open-data e2e: the sample content built without a snapshot"
"$E2E_BIN/generate" build --out "$tmp/plain" --quiet
"${py[@]}" tests/e2e/open_data.py "$tmp/plain"
"${py[@]}" tests/e2e/llms_txt_check.py "$tmp/plain"

echo "open-data e2e: a build with a citable snapshot, served"
port=$(free_port)
base="http://127.0.0.1:$port"
build() { "$E2E_BIN/generate" build --out "$tmp/dist" --base-url "$base" --quiet "$@" >/dev/null; }
serve() {
  sidecar_start "$E2E_BIN/sidecar" "$port" "$tmp/sidecar.log" --dist "$tmp/dist" --data-dir "$tmp/data" \
    --admin-listen off --site-origin "$base"
}
build
serve
"$E2E_BIN/sidecar" export --to "$tmp/snapshots" --dist "$tmp/dist" --data-dir "$tmp/data" --version e2e-1
kill -TERM "$sidecar_pid"
wait "$sidecar_pid" || { echo "open-data e2e: the sidecar did not shut down cleanly"; tail -30 "$tmp/sidecar.log"; exit 1; }
build --snapshots "$tmp/snapshots"
serve
"${py[@]}" tests/e2e/open_data.py "$tmp/dist"
"${py[@]}" tests/e2e/llms_txt_check.py "$tmp/dist"
"${py[@]}" tests/e2e/open_data_live.py "$tmp/dist" "$base"
