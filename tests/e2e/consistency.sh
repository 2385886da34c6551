#!/usr/bin/env bash
# Cross-surface consistency: the real sidecar serving a built site, probed
# over HTTP by tests/e2e/consistency.py (routes against the contract, the
# discovery documents, sitemap, Markdown twins, search index, MCP resources
# and tools, problem pages and the API reference, name, contact, licences
# and guardrails). Then the test of the test: copies of the site with one
# deliberate drift each (a route dropped from openapi.json, a page dropped
# from sitemap.xml, a problem page removed, another name in llms.txt, the
# site's description said twice in llms.txt), each
# served by a fresh sidecar; every run must fail and name its drift.
#
#   tests/e2e/consistency.sh [DIST_DIR]
#
# DIST_DIR is a `generate build --base-url http://127.0.0.1:PORT` output
# whose PORT is free: the sidecar listens there. Without it, the script
# builds its own site on a free port. The binaries are
# ${CONSISTENCY_BIN_DIR:-$E2E_BIN}/{generate,sidecar}
# (build them first).
# Environment: CONSISTENCY_TIMEOUT (seconds per run of the checks, default 60).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bindir="${CONSISTENCY_BIN_DIR:-$E2E_BIN}"
for b in generate sidecar; do
  [ -x "$bindir/$b" ] || { echo "consistency: $bindir/$b is missing; run cargo build" >&2; exit 1; }
done
apt_ensure python3-venv
venv_ensure
py=.tools/venv/bin/python
per_run="${CONSISTENCY_TIMEOUT:-60}"
started=$SECONDS

scratch_begin
sidecar_pid=""
stop_sidecar() {
  if [ -n "$sidecar_pid" ]; then
    kill "$sidecar_pid" 2>/dev/null || true
    wait "$sidecar_pid" 2>/dev/null || true
    sidecar_pid=""
  fi
}

if [ $# -ge 1 ]; then
  dist=$1
  base=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1] + "/openapi.json"))["servers"][0]["url"].rstrip("/"))' "$dist")
  case "$base" in
    http://127.0.0.1:[0-9]*) ;;
    *) echo "consistency: $dist was built for $base; expected http://127.0.0.1:PORT" >&2; exit 1 ;;
  esac
else
  base="http://127.0.0.1:$(free_port)"
  dist="$tmp/dist"
  "$bindir/generate" build --out "$dist" --base-url "$base" --quiet >/dev/null
fi
port=${base##*:}

# Serves DIST on the base URL's port (one sidecar at a time) and runs the
# checks; their output goes to OUT, their exit code is returned.
run_checks() {
  local site=$1 out=$2 rc=0
  if ! sidecar_start "$bindir/sidecar" "$port" "$tmp/sidecar.log" --dist "$site" --data-dir "$tmp/data" \
    --site-origin "$base"; then
    tail -20 "$tmp/sidecar.log" >&2
    stop_sidecar
    return 2
  fi
  timeout "$per_run" "$py" tests/e2e/consistency.py check --base "$base" --dist "$site" >"$out" 2>&1 || rc=$?
  stop_sidecar
  return "$rc"
}

echo "consistency: the site as built ($dist, served at $base)"
rc=0
run_checks "$dist" "$tmp/baseline.out" || rc=$?
cat "$tmp/baseline.out"
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  echo "consistency: the checks did not complete (exit $rc)" >&2
  exit 1
fi

# Each drift must fail with the FAIL line `consistency.py drift` names for
# it, a line the site as built does not give.
drift_failed=0
check_drift() {
  local kind=$1 drc=0 expect line
  expect=$("$py" tests/e2e/consistency.py drift "$kind" "$dist" "$tmp/drift-$kind")
  run_checks "$tmp/drift-$kind" "$tmp/drift-$kind.out" || drc=$?
  line=$(grep -E -m1 -e "$expect" "$tmp/drift-$kind.out" || true)
  if [ "$drc" -ne 1 ]; then
    echo "consistency: drift $kind: the checks exited $drc, expected a failure (1)" >&2
    tail -20 "$tmp/drift-$kind.out" >&2
    drift_failed=1
  elif [ -z "$line" ]; then
    echo "consistency: drift $kind: failed, but no line matches /$expect/; its new failures:" >&2
    grep '^FAIL' "$tmp/drift-$kind.out" | grep -vxFf <(grep '^FAIL' "$tmp/baseline.out" || true) | head -10 >&2 || true
    drift_failed=1
  elif grep -qxF -e "$line" "$tmp/baseline.out"; then
    echo "consistency: drift $kind: the site as built already fails with: $line" >&2
    drift_failed=1
  else
    echo "consistency: drift $kind: fails as it must: $line"
  fi
  rm -rf "$tmp/drift-$kind"
}
echo
echo "consistency: drift fixtures (each must fail, naming the drift)"
for kind in route sitemap problem-page name repeat; do
  check_drift "$kind"
done

echo
echo "consistency: $((SECONDS - started)) s in all"
if [ "$drift_failed" -ne 0 ]; then
  echo "consistency: a drift went unnoticed; the checks are too weak" >&2
  exit 1
fi
if [ "$rc" -ne 0 ]; then
  echo "consistency: the site as built disagrees with itself (FAIL lines above)" >&2
  exit 1
fi
echo "consistency: every surface agrees"
