#!/usr/bin/env bash
# The built site in headless Chromium (Debian's chromium, driven by
# playwright-core; no browser is downloaded) against a running sidecar:
# every page without console errors or third-party requests, axe-core in
# light and dark mode, the globe, live statistics, search, the theme toggle,
# licence and attribution on archive pages, every page at four widths (no
# sideways scroll, a readable search box, 24 px targets). Then the same
# dist/ on a plain static server (no live routes, 127.0.0.1 only): the live
# pages must say that live data is not available. Then tests/e2e/privacy.py: no answer of
# any route holds an exact coordinate or a personal name from the sidecar's
# database (DATA_DIR, by default the data/ beside DIST_DIR).
#
#   tests/e2e/site-browser.sh BASE_URL DIST_DIR [DATA_DIR]
#
# Screenshots go to ${E2E_ARTEFACTS:-target/e2e-artefacts}. The suite is
# bounded by SITE_BROWSER_TIMEOUT (default 1500 s): alone it takes 8 minutes,
# beside the other suites on two cores up to 15 (a clean-clone run of
# 2026-12-03 was cut at the old 900 s while it measured the last widths).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

base=${1:?usage: tests/e2e/site-browser.sh BASE_URL DIST_DIR}
dist=${2:?usage: tests/e2e/site-browser.sh BASE_URL DIST_DIR}

apt_ensure chromium chromium-driver python3
node=$(npm_e2e_ensure)

static_pid=""
trap '[ -n "$static_pid" ] && kill "$static_pid" 2>/dev/null || true' EXIT
static_port=$(free_port)
python3 -m http.server "$static_port" --bind 127.0.0.1 --directory "$dist" >/dev/null 2>&1 &
static_pid=$!
wait_http "http://127.0.0.1:$static_port/"

export E2E_ARTEFACTS="${E2E_ARTEFACTS:-$PWD/target/e2e-artefacts}"
echo "site-browser: $base with $(/usr/bin/chromium --version 2>/dev/null | head -1), screenshots in $E2E_ARTEFACTS"
STATIC_BASE="http://127.0.0.1:$static_port" \
  timeout "${SITE_BROWSER_TIMEOUT:-1500}" "$node" tests/e2e/site_browser.mjs "$base" "$dist"
timeout 600 python3 tests/e2e/privacy.py "$base" "$dist" "${3:-$(dirname "$dist")/data}"
