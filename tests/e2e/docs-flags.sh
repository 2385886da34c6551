#!/usr/bin/env bash
# The programs' flags and the guides agree (tests/e2e/docs_flags.py does the
# reading; its header says exactly what is compared):
#   - every flag of `sidecar serve --help` is in docs/operating.md, on one
#     line with its SIDECAR_… twin; those of `sidecar import` and
#     `sidecar healthcheck` are there too;
#   - every flag of `generate host-config --help` and of
#     `scripts/release --help` is in docs/deploying.md;
#   - every flag of every `generate` subcommand, with its GENERATE_… twin,
#     is in README.md;
#   - every --flag that README.md, docs/deploying.md or docs/operating.md
#     names for `sidecar`, `generate` or scripts/release exists in that
#     program's --help (for the subcommand it follows in a command line),
#     and every SIDECAR_/GENERATE_/RELEASE_ variable they name is read by
#     one of them.
# First, broken copies of the guides must fail, each naming the flag and
# the document, so a check that accepts everything cannot pass unnoticed.
#
#   tests/e2e/docs-flags.sh BIN_DIR     # the folder of the built generate and sidecar
# shellcheck disable=SC2016 # backquotes below are Markdown, not commands
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin=${1:?usage: tests/e2e/docs-flags.sh BIN_DIR (holding the built generate and sidecar)}
for b in generate sidecar; do
  [ -x "$bin/$b" ] || { echo "docs-flags: $bin/$b is missing; run cargo build -p generator -p sidecar" >&2; exit 1; }
done
command -v python3 >/dev/null || apt_ensure python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { python3 tests/e2e/docs_flags.py "$bin" "$@"; }

# broken NAME EXPECTED... : runs the check on the copies in $tmp/NAME, which
# must fail with one line naming every EXPECTED string.
broken() {
  local name=$1 out
  shift
  if out=$(check --readme "$tmp/$name/README.md" --deploying "$tmp/$name/deploying.md" \
    --operating "$tmp/$name/operating.md" 2>&1); then
    echo "docs-flags: FAIL: the broken copy '$name' passed; the check accepts what it must refuse" >&2
    exit 1
  fi
  local line
  line=$(grep -F -- "$1" <<<"$out" | head -n 1)
  for want in "$@"; do
    [[ $line == *"$want"* ]] || {
      echo "docs-flags: FAIL: the broken copy '$name' failed, but no line names all of: $*; it said:" >&2
      echo "$out" >&2
      exit 1
    }
  done
  echo "docs-flags: broken copy '$name' refused: ${line#docs-flags: FAIL: }"
}

copy() {
  mkdir -p "$tmp/$1"
  cp README.md docs/deploying.md docs/operating.md "$tmp/$1/"
}

copy unknown-host-config-flag
printf '\n```sh\ngenerate host-config --for nginx --dist dist --nginx-gzip-level 9 --out deploy-out\n```\n' \
  >>"$tmp/unknown-host-config-flag/deploying.md"
broken unknown-host-config-flag --nginx-gzip-level 'generate host-config --help' deploying.md

copy unknown-build-flag
printf '\nThe site is smaller with `generate build --minify`.\n' >>"$tmp/unknown-build-flag/README.md"
broken unknown-build-flag --minify 'generate build --help' README.md

copy unknown-prose-flag
printf '\nSet `--dist-watch` to follow a release.\n' >>"$tmp/unknown-prose-flag/operating.md"
broken unknown-prose-flag --dist-watch operating.md

copy serve-flag-without-twin
grep -v -F '`SIDECAR_KEEP_RELEASES`' "$tmp/serve-flag-without-twin/operating.md" >"$tmp/x" || true
mv "$tmp/x" "$tmp/serve-flag-without-twin/operating.md"
broken serve-flag-without-twin --keep-releases SIDECAR_KEEP_RELEASES operating.md

copy release-flag-missing
sed -i 's/--reload-container/--reload/g' "$tmp/release-flag-missing/deploying.md"
broken release-flag-missing --reload-container 'scripts/release' deploying.md

copy unknown-variable
printf '\n`SIDECAR_DIST_POLL=500` polls more often.\n' >>"$tmp/unknown-variable/operating.md"
broken unknown-variable SIDECAR_DIST_POLL operating.md

check

# The compose guide gives the compose header's own commands (which
# tests/e2e/compose.sh runs): a drift between them fails here.
python3 tests/e2e/recipe_drift.py
