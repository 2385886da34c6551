#!/usr/bin/env bash
# OGC API - Features as GIS users meet it: GDAL's OAPIF driver (Debian's
# gdal-bin: ogrinfo, ogr2ogr) against the running sidecar, compared with the
# seed's live routes (tests/e2e/ogc_features.py); GDAL's request count, date
# and property filters and OWSLib's bbox, datetime and queryables against
# the REST routes (tests/e2e/ogc_clients.py); the routes' OpenAPI 3.0
# definition checked by openapi-spec-validator, and the HTML page of every
# kind of document by html-validate.
#
#   tests/e2e/ogc.sh BASE_URL DIST_DIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=${1:?usage: tests/e2e/ogc.sh BASE_URL DIST_DIR}
dist=${2:?usage: tests/e2e/ogc.sh BASE_URL DIST_DIR}
apt_ensure gdal-bin
venv_ensure "openapi-spec-validator==0.9.0" "owslib==0.35.0"
.tools/venv/bin/openapi-spec-validator "$dist/api/features/openapi.json"
scratch_begin
timeout "${OGC_TIMEOUT:-300}" python3 tests/e2e/ogc_features.py "${base%/}" "$tmp/html"
timeout "${OGC_TIMEOUT:-300}" .tools/venv/bin/python tests/e2e/ogc_clients.py "${base%/}"
node=$(npm_e2e_ensure)
timeout 120 "$node" tests/e2e/node_modules/html-validate/bin/html-validate.mjs \
  --config tests/e2e/htmlvalidate.json --formatter stylish "$tmp"/html/*.html
echo "ogc: html-validate passes the HTML of every kind of document"
