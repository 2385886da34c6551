#!/usr/bin/env bash
# A content release under load, end to end:
#
#   tests/e2e/release-load.sh BIN_DIR [SECONDS]
#
# Builds three releases of the sample site (A; B adds a page; C changes
# it), publishes A with scripts/release into a target directory, starts the
# real sidecar on TARGET/current (SQLite, sample data), and for SECONDS
# (default 30) keeps six clients asking for pages, release A's hashed
# stylesheet (B and C restyle the site, so only A has it), chat answers, MCP searches and live statistics while B and
# then C are published with scripts/release. Every answer must succeed and
# come wholly from the release it names (see release_load.py); the chat
# must cite the new page once B is served.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin=${1:?usage: tests/e2e/release-load.sh BIN_DIR [SECONDS]}
seconds=${2:-30}
scratch_begin
work=$tmp

port=$(free_port)
base="http://127.0.0.1:$port"

page() {
  cat >"$1/docs/data/kingfisher-survey.md" <<EOF
+++
title = "Kingfisher survey"
summary = "The volunteers' kingfisher survey along the Blue Reach."
weight = 90
updated = "2026-11-20"
+++

The kingfisher survey counted $2 nesting pairs along the river banks this spring.

## Method

Volunteers walked each bank section twice and noted every occupied nest.
EOF
}

# B and C also restyle the site: release A's stylesheet is then theirs no
# longer, and a page cached from A finds it only because it is kept.
cp -r templates "$work/templates-b"
printf '\n/* restyled for release B */\n' >>"$work/templates-b/assets/site.css"
cp -r content "$work/content-b"
page "$work/content-b" 41
cp -r "$work/content-b" "$work/content-c"
page "$work/content-c" 44
"$bin/generate" build --out "$work/a" --base-url "$base" --quiet >/dev/null
for r in b c; do
  "$bin/generate" build --content "$work/content-$r" --templates "$work/templates-b" \
    --out "$work/$r" --base-url "$base" --quiet >/dev/null
done

scripts/release publish "$work/a" --to "$work/site" >/dev/null
sidecar_start "$bin/sidecar" "$port" "$work/sidecar.log" --dist "$work/site/current" \
  --data-dir "$work/data" --site-origin "$base" --dist-poll-ms 200 \
  --chat-rate-limit 1000000

if ! timeout $((seconds + 120)) python3 tests/e2e/release_load.py "$base" "$work/site" "$seconds" \
  "$work/a" "$work/b" "$work/c"; then
  echo "--- sidecar log (last 40 lines)"
  tail -n 40 "$work/sidecar.log"
  exit 1
fi
grep -c "release loaded and swapped in" "$work/sidecar.log" | sed 's/^/  swaps logged by the sidecar: /'
