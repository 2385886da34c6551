#!/usr/bin/env bash
# nginx and Caddy in front of a sidecar this script starts (SQLite in a
# temporary directory, the sample data, the fronts' origins accepted as the
# site's), each front configured by `generate host-config`, each on its own
# loopback port with its own prefix in a temporary directory:
#   1. header parity with the sidecar alone for every file of the manifest
#      and every sidecar route (tests/e2e/fronts_parity.py; differences a
#      host forces are listed there with their reasons);
#   2. through each front, in headless Chromium: the statistics, the globe,
#      the chat and a contact enquiry stored once, no console error or CSP
#      violation, a third origin refused (tests/e2e/live_pages.mjs).
# The contract itself (schemathesis) and the MCP clients run against the
# sidecar directly (scripts/test); through a front, what can differ is
# headers, compression and proxying, which 1 and 2 check
# (docs/decisions/0053-one-proof-per-claim-in-the-suite.md).
#
#   tests/e2e/fronts.sh DIST
#
# DIST is a `generate build --precompress` output (nginx and Caddy serve its
# twins as they are, nginx with Debian's brotli_static module and
# --nginx-brotli-static); the front-container configurations (`--root`,
# each `--compression`, no module loaded) are checked with `nginx -t` and
# `caddy validate` first. The binaries are
# $E2E_BIN/{generate,sidecar}.
# Installs Debian's nginx, libnginx-mod-http-brotli-static and caddy when
# missing. Environment: FRONTS_STEP_TIMEOUT (seconds per step, default 600).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/fronts.sh DIST}
bin="$E2E_BIN"
generate="$bin/generate"
for b in generate sidecar; do
  [ -x "$bin/$b" ] || { echo "fronts: $bin/$b is missing; run cargo build" >&2; exit 1; }
done
limit=${FRONTS_STEP_TIMEOUT:-600}

apt_ensure nginx libnginx-mod-http-brotli-static caddy curl python3 chromium
node=$(npm_e2e_ensure)

tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
# nginx's workers drop root for nobody/www-data: they read a world-readable
# copy of dist/ (mtimes kept) under a traversable directory.
chmod 755 "$tmp"
cp -a "$dist" "$tmp/dist"
chmod -R a+rX "$tmp/dist"

read -r nport cport sport tport < <(free_ports 4)
ngx="http://127.0.0.1:$nport"
cdy="http://127.0.0.1:$cport"
sidecar="http://127.0.0.1:$sport"
third="http://127.0.0.1:$tport"

# The sidecar: the site's own origin first (the base of problem `type` URLs,
# as the built pages and the fronts' own problems have it), then the fronts'
# origins, which a browser sends as Origin when it uses the site through
# them. Cheap challenges, so the browser's worker solves them quickly.
site_origin=$(python3 -c 'import re,sys; m=re.search(r"<loc>(https?://[^/<]+)", open(sys.argv[1]).read()); print(m.group(1))' "$dist/sitemap.xml")
sidecar_start "$bin/sidecar" "$sport" "$tmp/sidecar.log" --dist "$dist" --data-dir "$tmp/data" --sample default \
  --site-origin "$site_origin,$ngx,$cdy" --challenge-cost 1000 --challenge-counter-min 20 \
  --challenge-counter-max 60 --contact-min-fill-ms 500
# The third origin: an empty folder the browser script fills with a page.
mkdir -p "$tmp/third"
python3 -m http.server "$tport" --bind 127.0.0.1 --directory "$tmp/third" >"$tmp/third.log" 2>&1 &
pids+=($!)
wait_http "$third/"
# The nginx here loads Debian's brotli_static module (below): it sends the
# .br twins too, as the sidecar does.
"$generate" host-config --for nginx --dist "$tmp/dist" --sidecar-url "$sidecar" \
  --listen "127.0.0.1:$nport" --nginx-brotli-static --out "$tmp/nginx" >/dev/null
"$generate" host-config --for caddy --dist "$tmp/dist" --sidecar-url "$sidecar" \
  --listen "127.0.0.1:$cport" --out "$tmp/caddy" >/dev/null

# A front container's configuration (the official nginx image: no brotli
# module; dist/ mounted elsewhere than where it was read): `--root` and each
# compression must pass `nginx -t` in a main file that loads no module, and
# the configuration that asks for brotli_static must not.
container_conf() { # NAME MODULE_LINE HOST_CONFIG_FLAGS...
  local name=$1 module=$2
  shift 2
  mkdir -p "$tmp/container/$name/prefix"
  "$generate" host-config --for nginx --dist "$tmp/dist" --sidecar-url http://localhost:8081 \
    --listen 0.0.0.0:8080 --root /srv/dist --out "$tmp/container/$name" "$@" >/dev/null
  grep -q '^    root /srv/dist;$' "$tmp/container/$name/nginx.conf" \
    || { echo "fronts: --root /srv/dist is not the root of $name" >&2; exit 1; }
  cat >"$tmp/container/$name/main.conf" <<CONF
$module
pid $tmp/container/$name/prefix/nginx.pid;
error_log $tmp/container/$name/prefix/error.log warn;
events { worker_connections 64; }
http { include $tmp/container/$name/nginx.conf; }
CONF
  nginx -t -q -c "$tmp/container/$name/main.conf" -p "$tmp/container/$name/prefix" 2>"$tmp/container/$name/test.log"
}
for c in "default|" "twins|--compression twins" "on-the-fly|--compression on-the-fly"; do
  IFS='|' read -r name flags <<<"$c"
  # shellcheck disable=SC2086 # flags are words
  container_conf "$name" "" $flags \
    || { echo "fronts: the $name configuration fails nginx -t without modules:" >&2; cat "$tmp/container/$name/test.log" >&2; exit 1; }
done
grep -q '^    gzip_static on;$' "$tmp/container/default/nginx.conf" && ! grep -q 'brotli_static on;' "$tmp/container/default/nginx.conf" \
  || { echo "fronts: the default for a build with twins is not gzip_static alone" >&2; exit 1; }
if container_conf brotli "" --nginx-brotli-static; then
  echo "fronts: brotli_static passed nginx -t without its module" >&2; exit 1
fi
grep -q brotli_static "$tmp/container/brotli/test.log" \
  || { echo "fronts: nginx -t failed without naming brotli_static:" >&2; cat "$tmp/container/brotli/test.log" >&2; exit 1; }
container_conf brotli-loaded "load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;" --nginx-brotli-static \
  || { echo "fronts: brotli_static fails nginx -t with its module:" >&2; cat "$tmp/container/brotli-loaded/test.log" >&2; exit 1; }
"$generate" host-config --for caddy --dist "$tmp/dist" --sidecar-url http://localhost:8081 --listen 8080 \
  --root /srv/dist --compression on-the-fly --out "$tmp/container/caddy" >/dev/null
caddy validate --config "$tmp/container/caddy/Caddyfile" --adapter caddyfile >"$tmp/container/caddy/validate.log" 2>&1 \
  || { cat "$tmp/container/caddy/validate.log"; exit 1; }
echo "fronts: front-container configurations (--root, each compression, no module) pass nginx -t and caddy validate; brotli_static without its module does not"

# A main nginx.conf around the generated server block, as a deployment
# writes one.
mkdir -p "$tmp/nginx/prefix"
cat >"$tmp/nginx/main.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;
worker_processes 2;
pid $tmp/nginx/prefix/nginx.pid;
error_log $tmp/nginx/prefix/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $tmp/nginx/prefix/body;
    proxy_temp_path $tmp/nginx/prefix/proxy;
    fastcgi_temp_path $tmp/nginx/prefix/fastcgi;
    uwsgi_temp_path $tmp/nginx/prefix/uwsgi;
    scgi_temp_path $tmp/nginx/prefix/scgi;
    include $tmp/nginx/nginx.conf;
}
CONF
nginx -t -q -c "$tmp/nginx/main.conf" -p "$tmp/nginx/prefix"
nginx -c "$tmp/nginx/main.conf" -p "$tmp/nginx/prefix" -g 'daemon off;' &
pids+=($!)

# Caddy keeps its state (autosave, certificates) under XDG dirs: the temp dir.
caddy validate --config "$tmp/caddy/Caddyfile" --adapter caddyfile >"$tmp/caddy/validate.log" 2>&1 \
  || { cat "$tmp/caddy/validate.log"; exit 1; }
XDG_CONFIG_HOME="$tmp/caddy" XDG_DATA_HOME="$tmp/caddy" \
  caddy run --config "$tmp/caddy/Caddyfile" --adapter caddyfile >"$tmp/caddy/caddy.log" 2>&1 &
pids+=($!)

wait_http "$ngx/healthz"
wait_http "$cdy/healthz"
echo "fronts: $(nginx -v 2>&1 | sed 's/.*: //') at $ngx, caddy $(caddy version | cut -d' ' -f1) at $cdy, both before $sidecar"

step() { printf -- '--- fronts: %s\n' "$*"; }
step "header parity with the sidecar alone"
timeout "$limit" python3 tests/e2e/fronts_parity.py "$tmp/dist" "$sidecar" nginx="$ngx" caddy="$cdy"

enquiries() {
  python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from enquiries").fetchone()[0])' \
    "$tmp/data/service.sqlite3"
}
for front in "nginx|$ngx" "caddy|$cdy"; do
  IFS='|' read -r name base <<<"$front"
  step "$name: statistics, globe, chat and a contact enquiry in headless Chromium; a third origin refused"
  before=$(enquiries)
  LIVE_THIRD_DIR="$tmp/third" timeout "$limit" "$node" tests/e2e/live_pages.mjs "$base" "$base" "$third" \
    || { echo "fronts: the browser test through $name failed; sidecar log:"; tail -30 "$tmp/sidecar.log"; exit 1; }
  after=$(enquiries)
  [[ $after == $((before + 1)) ]] || { echo "fronts: $((after - before)) enquiries stored through $name, want 1" >&2; exit 1; }
done

# Both fronts must still be the processes started here (none died quietly).
for pid in "${pids[@]}"; do
  kill -0 "$pid" 2>/dev/null || { echo "fronts: a front exited during the run" >&2; tail -20 "$tmp/nginx/prefix/error.log" "$tmp/caddy/caddy.log" >&2; exit 1; }
done
echo "fronts: nginx and Caddy agree with the sidecar; the live pages work through both"
