#!/usr/bin/env bash
# The Cloudflare Pages files of `generate host-config --for cloudflare`
# (_headers, _routes.json and the Pages Function that forwards the sidecar's
# routes) served by Cloudflare's own local runtime, `wrangler pages dev`
# (workerd), offline, in front of a sidecar this script starts; every file
# and the sidecar's routes compared with the sidecar alone
# (tests/e2e/cloudflare_check.py, which lists what Pages does differently by
# design).
#
#   tests/e2e/cloudflare.sh DIST
#
# DIST is a `generate build` output; the binaries are
# $E2E_BIN/{generate,sidecar}. wrangler is pinned in
# tests/e2e/cloudflare/package-lock.json and installed there when missing.
# Environment: CLOUDFLARE_TIMEOUT (seconds for the comparison, default 300).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/cloudflare.sh DIST}
bin="$E2E_BIN"
for b in generate sidecar; do
  [ -x "$bin/$b" ] || { echo "cloudflare: $bin/$b is missing; run cargo build" >&2; exit 1; }
done
apt_ensure curl python3
node=$(npm_e2e_ensure)
tools=tests/e2e/cloudflare
npm_dir_ensure "$tools"

scratch_begin

read -r sport wport < <(free_ports 2)
sidecar="http://127.0.0.1:$sport"
pages="http://127.0.0.1:$wport"
site_origin=$(python3 -c 'import re,sys; print(re.search(r"<loc>(https?://[^/<]+)", open(sys.argv[1]).read()).group(1))' "$dist/sitemap.xml")
sidecar_start "$bin/sidecar" "$sport" "$tmp/sidecar.log" --dist "$dist" --data-dir "$tmp/data" \
  --site-origin "$site_origin"

# The deployment as Pages sees it: the published copy of dist/ with the
# generated files at its root; the Function is read from ./functions of the
# project (the working directory), as `wrangler pages deploy` does.
"$bin/generate" host-config --for cloudflare --dist "$dist" --sidecar-url "$sidecar" --out "$tmp/project" >/dev/null
cp -a "$dist" "$tmp/publish"
# As docs/deploying.md says: every generated `_` file (`_redirects` too when
# pages moved).
cp "$tmp/project"/_* "$tmp/publish/"
here=$PWD
# Offline: no telemetry, and a compatibility date the bundled runtime has.
(cd "$tmp/project" && CI=1 WRANGLER_SEND_METRICS=false XDG_CONFIG_HOME="$tmp/xdg" \
  exec "$node" "$here/$tools/node_modules/wrangler/bin/wrangler.js" pages dev "$tmp/publish" \
  --ip 127.0.0.1 --port "$wport" --compatibility-date 2026-05-01 --log-level warn) >"$tmp/wrangler.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 600); do
  curl -fsS -o /dev/null "$pages/healthz" 2>/dev/null && break
  kill -0 "${pids[-1]}" 2>/dev/null || { echo "cloudflare: wrangler exited:" >&2; cat "$tmp/wrangler.log" >&2; exit 1; }
  sleep 0.1
done
curl -fsS -o /dev/null "$pages/healthz" || { echo "cloudflare: wrangler never answered:" >&2; cat "$tmp/wrangler.log" >&2; exit 1; }
echo "cloudflare: wrangler $("$node" "$tools/node_modules/wrangler/bin/wrangler.js" --version 2>/dev/null | tail -1) pages dev at $pages, before $sidecar"

timeout "${CLOUDFLARE_TIMEOUT:-300}" python3 tests/e2e/cloudflare_check.py "$dist" "$sidecar" "$pages" \
  || { echo "cloudflare: the comparison failed; wrangler log:"; tail -30 "$tmp/wrangler.log"; exit 1; }
