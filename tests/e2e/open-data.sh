#!/usr/bin/env bash
# The open-data catalogue as data portals and dataset search engines read
# it: DIST/catalog.jsonld against the official DCAT-AP 3.0.1 SHACL shapes
# (vendored in tests/e2e/dcat-ap/, see SOURCE.md there) with pyshacl, and
# the schema.org Dataset JSON-LD of each dataset's page parsed as RDF and
# compared with the catalogue; broken copies of both must fail first
# (tests/e2e/open_data.py).
#
#   tests/e2e/open-data.sh DIST_DIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/open-data.sh DIST_DIR}
apt_ensure python3-venv
venv_ensure "pyshacl==0.40.1"
timeout "${OPEN_DATA_TIMEOUT:-300}" .tools/venv/bin/python tests/e2e/open_data.py "$dist"
