#!/usr/bin/env bash
# The separate-origin layout, end to end: a site built with
# `generate build --api-origin`, its dist/ on one loopback origin served by a
# plain static server (no headers of ours, no proxy: what a bucket or GitHub
# Pages does), the sidecar on a second origin with --site-origin naming the
# first, and a third origin that must be refused. Headless Chromium (Debian's,
# driven by playwright-core) checks the statistics, the globe, the chat and
# a contact enquiry sent end to end, with no CSP violation, no console error
# and no request to any other origin; then the third origin's cross-origin
# posts are refused with 403 forbidden_origin while its reads of public data
# are allowed (tests/e2e/live_pages.mjs, which fronts.sh runs through nginx
# and Caddy too).
#
#   tests/e2e/split-origin.sh
#
# Binaries: $E2E_BIN/{generate,sidecar}.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin="$E2E_BIN"
for b in generate sidecar; do
  [ -x "$bin/$b" ] || { echo "split origin: $bin/$b is missing; run cargo build" >&2; exit 1; }
done
apt_ensure chromium curl python3
node=$(npm_e2e_ensure)

scratch_begin

read -r site_port api_port third_port < <(free_ports 3)
site="http://127.0.0.1:$site_port"
api="http://127.0.0.1:$api_port"
third="http://127.0.0.1:$third_port"

echo "split origin: site $site, sidecar $api, a third origin $third"
"$bin/generate" build --out "$tmp/dist" --base-url "$site" --api-origin "$api" --quiet
"$bin/generate" check --out "$tmp/dist"
# The contract with per-path servers is still a valid OpenAPI 3.1 document.
venv_ensure "openapi-spec-validator==0.9.0"
.tools/venv/bin/openapi-spec-validator "$tmp/dist/openapi.json"

# Bad origins fail before anything is written, naming the flag.
for bad in "api.example.org" "https://api.example.org/v1" "https://u:p@api.example.org" "https://api.example.org/?q=1"; do
  if err=$("$bin/generate" build --out "$tmp/bad" --api-origin "$bad" --quiet 2>&1); then
    echo "split origin: --api-origin $bad was accepted" >&2; exit 1
  fi
  [[ $err == *"--api-origin"* ]] || { echo "split origin: the error for $bad does not name the flag: $err" >&2; exit 1; }
  [ ! -e "$tmp/bad/manifest.json" ] || { echo "split origin: a build with --api-origin $bad wrote files" >&2; exit 1; }
done

# The site: a plain static server, nothing of ours in front.
python3 -m http.server "$site_port" --bind 127.0.0.1 --directory "$tmp/dist" >"$tmp/site.log" 2>&1 &
pids+=($!)
# The third origin: an empty folder the browser script fills with a page.
mkdir -p "$tmp/third"
python3 -m http.server "$third_port" --bind 127.0.0.1 --directory "$tmp/third" >"$tmp/third.log" 2>&1 &
pids+=($!)
sidecar_start "$bin/sidecar" "$api_port" "$tmp/sidecar.log" --dist "$tmp/dist" --data-dir "$tmp/data" \
  --sample default --site-origin "$site" --challenge-cost 1000 --challenge-counter-min 20 \
  --challenge-counter-max 60 --contact-min-fill-ms 500
wait_http "$site/"
wait_http "$third/"

# The sidecar, asked directly: exact-origin CORS for the site, 403 for others.
pre=$(curl -sS -o /dev/null -D - -X OPTIONS "$api/api/contact.php" -H "Origin: $site" \
  -H "Access-Control-Request-Method: POST" -H "Access-Control-Request-Headers: content-type")
grep -qi "^access-control-allow-origin: $site" <<<"$pre" || { echo "split origin: no exact-origin preflight grant: $pre" >&2; exit 1; }
grep -qi "^access-control-allow-methods: .*POST" <<<"$pre" || { echo "split origin: the preflight lists no POST: $pre" >&2; exit 1; }
grep -qi "^vary: .*origin" <<<"$pre" || { echo "split origin: the preflight has no Vary: Origin: $pre" >&2; exit 1; }
if grep -qi "^access-control-allow-credentials" <<<"$pre"; then echo "split origin: credentials allowed: $pre" >&2; exit 1; fi
for route in /api/contact.php /api/chat.php; do
  status=$(curl -sS -o /dev/null -w '%{http_code}' -X POST "$api$route" -H "Origin: $third" \
    -H 'Content-Type: application/json' -d '{"message":"hello"}')
  [ "$status" = 403 ] || { echo "split origin: $route from $third answered $status, want 403" >&2; exit 1; }
done

sqlite_count() {
  python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from enquiries").fetchone()[0])' \
    "$tmp/data/service.sqlite3"
}
before=$(sqlite_count)
LIVE_THIRD_DIR="$tmp/third" timeout "${SPLIT_ORIGIN_TIMEOUT:-240}" "$node" tests/e2e/live_pages.mjs "$site" "$api" "$third" \
  || { echo "split origin browser test failed; sidecar log:"; tail -50 "$tmp/sidecar.log"; exit 1; }
after=$(sqlite_count)
[ "$after" = $((before + 1)) ] || { echo "split origin: $((after - before)) enquiries stored, want exactly 1" >&2; exit 1; }
echo "split origin: the enquiry sent from $site is stored by the sidecar at $api; the third origin was refused"

# Subresource Integrity: a script changed after the build is refused.
stats_js=$(cd "$tmp/dist" && ls assets/stats.*.js)
printf '\n// changed after the build\n' >>"$tmp/dist/$stats_js"
timeout 120 "$node" tests/e2e/sri_tamper.mjs "$site" "/$stats_js"
