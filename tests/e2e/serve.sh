#!/usr/bin/env bash
# `generate serve` end to end: the preview of a copy of the sample content,
# with a real sidecar behind it (--sidecar-url; the sidecar's --site-origin
# is the preview's URL). Headless Chromium (Debian's, driven by
# playwright-core) then:
#   - uses the live pages through the preview as a visitor would
#     (tests/e2e/live_pages.mjs: statistics, globe, chat, a contact enquiry
#     stored by the sidecar, a third origin refused);
#   - watches an open page take an edit of its Markdown without a manual
#     reload, show a broken file's error and recover
#     (tests/e2e/serve_reload.mjs, which prints how long the edit took).
#
#   tests/e2e/serve.sh
#
# Binaries: $E2E_BIN/{generate,sidecar}.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin="$E2E_BIN"
for b in generate sidecar; do
  [ -x "$bin/$b" ] || { echo "serve: $bin/$b is missing; run cargo build" >&2; exit 1; }
done
apt_ensure chromium curl python3
node=$(npm_e2e_ensure)

scratch_begin

read -r preview_port api_port third_port < <(free_ports 3)
preview="http://127.0.0.1:$preview_port"
api="http://127.0.0.1:$api_port"
third="http://127.0.0.1:$third_port"
echo "serve: the preview at $preview, its sidecar at $api, a third origin $third"

cp -r content templates "$tmp/"
# The sidecar reads a built site (its MCP content, the chat's passages).
"$bin/generate" build --content "$tmp/content" --templates "$tmp/templates" --out "$tmp/dist" \
  --base-url "$preview" --quiet
if grep -rqs "__generate" "$tmp/dist"; then
  echo "serve: the preview's script reached a built site" >&2; exit 1
fi
sidecar_start "$bin/sidecar" "$api_port" "$tmp/sidecar.log" --dist "$tmp/dist" --data-dir "$tmp/data" \
  --sample default --site-origin "$preview" --challenge-cost 1000 --challenge-counter-min 20 \
  --challenge-counter-max 60 --contact-min-fill-ms 500
"$bin/generate" serve --content "$tmp/content" --templates "$tmp/templates" \
  --listen "127.0.0.1:$preview_port" --sidecar-url "$api" --cache "$tmp/cache" >"$tmp/serve.log" 2>&1 &
pids+=($!)
mkdir -p "$tmp/third"
python3 -m http.server "$third_port" --bind 127.0.0.1 --directory "$tmp/third" >"$tmp/third.log" 2>&1 &
pids+=($!)
wait_http "$preview/"
wait_http "$third/"

# A sidecar route through the preview is the sidecar's answer.
status=$(curl -sS -o "$tmp/stats.json" -w '%{http_code}' "$preview/api/platform-stats.php")
[ "$status" = 200 ] || { echo "serve: /api/platform-stats.php through the preview answered $status" >&2; exit 1; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "generated_at" in d, d' "$tmp/stats.json"

sqlite_count() {
  python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from enquiries").fetchone()[0])' \
    "$tmp/data/service.sqlite3"
}
before=$(sqlite_count)
LIVE_THIRD_DIR="$tmp/third" timeout "${SERVE_TIMEOUT:-240}" "$node" tests/e2e/live_pages.mjs "$preview" "$preview" "$third" \
  || { echo "serve: the live pages through the preview failed; logs:"; tail -30 "$tmp/serve.log" "$tmp/sidecar.log"; exit 1; }
after=$(sqlite_count)
[ "$after" = $((before + 1)) ] || { echo "serve: $((after - before)) enquiries stored, want exactly 1" >&2; exit 1; }

timeout 120 "$node" tests/e2e/serve_reload.mjs "$preview" "$tmp/content" \
  || { echo "serve: the reload test failed; preview log:"; tail -30 "$tmp/serve.log"; exit 1; }
echo "serve: the preview served, proxied, rebuilt, reloaded and recovered"
