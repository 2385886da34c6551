#!/usr/bin/env bash
# Headless Chromium on the chat against a sidecar it starts on loopback
# (SQLite in a temporary data directory, the default sample data so figure
# questions have figures): the /chat/ page used with the keyboard only,
# cited answers, a citation followed to its heading, the hand-off to the
# prefilled contact form with nothing sent, the header's panel on another
# page, axe-core in light and dark mode. Debian's chromium, driven by
# playwright-core; no browser download.
#
#   tests/e2e/chat-browser.sh DIST_DIR
#
# DIST_DIR is a `generate build` output (any base URL); the sidecar binary is
# $E2E_BIN/sidecar.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/chat-browser.sh DIST_DIR}
bin="$E2E_BIN/sidecar"
[ -x "$bin" ] || { echo "chat browser: $bin is missing; run cargo build -p sidecar" >&2; exit 1; }
[ -f "$dist/chat/index.html" ] || { echo "chat browser: $dist has no chat page" >&2; exit 1; }
apt_ensure chromium curl
node=$(npm_e2e_ensure)

scratch_begin
port=$(free_port)
base="http://127.0.0.1:$port"
sidecar_start "$bin" "$port" "$tmp/sidecar.log" --dist "$dist" --data-dir "$tmp/data" --sample default \
  --site-origin "$base"
timeout "${CHAT_BROWSER_TIMEOUT:-240}" "$node" tests/e2e/chat_browser.mjs "$base" \
  || { echo "chat browser test failed; sidecar log:"; tail -50 "$tmp/sidecar.log"; exit 1; }
