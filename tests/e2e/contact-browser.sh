#!/usr/bin/env bash
# Headless Chromium on the contact form against a sidecar it starts on
# loopback (SQLite in a temporary data directory, cheap challenges):
# keyboard-labelled fields, the proof-of-work widget, the thank-you
# reference, per-field errors, and refusal of the form served from another
# origin. Debian's chromium, driven by playwright-core; no browser download.
#
#   tests/e2e/contact-browser.sh DIST_DIR
#
# DIST_DIR is a `generate build` output (any base URL); the sidecar binary is
# $E2E_BIN/sidecar.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/contact-browser.sh DIST_DIR}
bin="$E2E_BIN/sidecar"
[ -x "$bin" ] || { echo "contact browser: $bin is missing; run cargo build -p sidecar" >&2; exit 1; }
apt_ensure chromium curl
node=$(npm_e2e_ensure)

scratch_begin
port=$(free_port)
base="http://127.0.0.1:$port"
sidecar_start "$bin" "$port" "$tmp/sidecar.log" --dist "$dist" --data-dir "$tmp/data" --sample none \
  --site-origin "$base" --challenge-cost 1000 --challenge-counter-min 20 --challenge-counter-max 60 \
  --contact-min-fill-ms 500
timeout "${CONTACT_BROWSER_TIMEOUT:-180}" "$node" tests/e2e/contact_browser.mjs "$base" \
  || { echo "contact browser test failed; sidecar log:"; tail -50 "$tmp/sidecar.log"; exit 1; }
