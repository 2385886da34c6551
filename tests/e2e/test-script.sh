#!/usr/bin/env bash
# scripts/test's own contract, on steps of this test's own (TEST_STEPS),
# with its logs and table in a scratch folder (TEST_LOGS, TEST_TIMES):
#
#   - `--list` prints every step in order with what it needs;
#   - `--only NAME` runs that step and what it needs, nothing else, and
#     writes one `step<TAB>seconds` line for each to the table;
#   - `--quick` runs the steps of the quick tier only;
#   - a failing step fails the run: the steps that need it never start, a
#     step still running is stopped, the failing step's log is printed and
#     the last line of the output names it;
#   - an unknown step is refused with exit 2;
#   - in the real scripts/test-steps.sh every step has its function and
#     every need is a step listed before it.
#
#   tests/e2e/test-script.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

scratch_begin
fail() { echo "test-script: FAIL: $*" >&2; exit 1; }

cat >"$tmp/steps.sh" <<EOF
declare -a STEPS=()
declare -A TIER=() WEIGHT=() NEEDS=() DESC=() LOCK=() NICE=()
def() { STEPS+=("\$1"); TIER[\$1]=\$2; WEIGHT[\$1]=\$3; NEEDS[\$1]=\$4; DESC[\$1]=\$5; LOCK[\$1]=\${6:-}; }
def first both 1 "" "writes a mark"
step_first() { echo first-ran; touch "$tmp/first.mark"; }
def second both 1 "first" "needs the first's mark"
step_second() { [ -e "$tmp/first.mark" ]; echo second-ran; }
def slow full 1 "" "runs until it is stopped"
step_slow() { sleep 60; }
def broken full 1 "first" "fails with a reason"
step_broken() { echo "the reason it broke"; exit 3; }
def after full 1 "broken" "must never start"
step_after() { touch "$tmp/after.mark"; }
EOF
run() { # NAME ARGS...: scripts/test ARGS, its output in $tmp/NAME.out, its exit status in $status
  local name=$1
  shift
  rm -f "$tmp"/*.mark
  status=0
  TEST_STEPS="$tmp/steps.sh" TEST_LOGS="$tmp/logs-$name" TEST_TIMES="$tmp/times-$name.tsv" \
    timeout 120 scripts/test "$@" >"$tmp/$name.out" 2>&1 || status=$?
}
names() { cut -f1 "$tmp/times-$1.tsv" | sort | tr '\n' ' '; }

run list --list
[ "$status" = 0 ] || fail "--list exited $status"
[ "$(awk '{print $1}' "$tmp/list.out" | tr '\n' ' ')" = "first second slow broken after " ] \
  || fail "--list does not print the steps in order: $(cat "$tmp/list.out")"
grep -E '^second +both +weight 1 +needs first ' "$tmp/list.out" >/dev/null || fail "--list does not say what second needs"
echo "test-script: --list prints the steps in order with their tier, weight and needs"

run only --only second
[ "$status" = 0 ] || fail "--only second exited $status: $(tail -5 "$tmp/only.out")"
[ "$(names only)" = "first second " ] || fail "--only second ran $(names only), not first and second"
grep -Pq '^second\t[0-9]+$' "$tmp/times-only.tsv" || fail "the table is not step<TAB>seconds: $(cat "$tmp/times-only.tsv")"
grep -q second-ran "$tmp/logs-only/second.log" || fail "the step's output is not in its log"
echo "test-script: --only runs a step and what it needs, each timed in the table and logged"

run quick --quick
[ "$status" = 0 ] || fail "--quick exited $status"
[ "$(names quick)" = "first second " ] || fail "--quick ran $(names quick), not the quick tier's first and second"
echo "test-script: --quick runs the quick tier only"

started=$(date +%s)
run full
took=$(($(date +%s) - started))
[ "$status" = 1 ] || fail "a failing step left the run with exit $status, not 1"
[ "$(tail -n 1 "$tmp/full.out")" = "FAILED: step broken" ] \
  || fail "the last line does not name the failing step: $(tail -n 3 "$tmp/full.out")"
grep -q "the reason it broke" "$tmp/full.out" || fail "the failing step's log is not printed"
[ ! -e "$tmp/after.mark" ] || fail "a step that needs the failing one ran"
grep -q "^not run: after" "$tmp/full.out" || fail "the step never started is not named"
grep -q "^stopped: slow" "$tmp/full.out" || fail "the step still running is not named as stopped"
[ "$took" -lt 30 ] || fail "the run took ${took}s: the sleeping step was not stopped"
grep -Pq '^broken\t[0-9]+$' "$tmp/times-full.tsv" || fail "the failed step is not in the table"
echo "test-script: a failing step fails the run (exit 1, its log printed, named last); what needs it never starts, what runs is stopped"

run unknown --only nosuchstep
[ "$status" = 2 ] || fail "an unknown step gave exit $status, not 2"
echo "test-script: an unknown step is refused"

# The real steps: each has its function; each need is a step listed before.
bash -c '
  source scripts/lib.sh
  source scripts/test-steps.sh
  declare -A seen=()
  for name in "${STEPS[@]}"; do
    declare -F "step_${name//-/_}" >/dev/null || { echo "step $name has no function step_${name//-/_}"; exit 1; }
    for need in ${NEEDS[$name]}; do
      [ -n "${seen[$need]:-}" ] || { echo "step $name needs $need, which is not a step listed before it"; exit 1; }
    done
    seen[$name]=1
  done
  echo "test-script: the ${#STEPS[@]} steps of scripts/test-steps.sh each have their function and need only earlier steps"
' || fail "scripts/test-steps.sh is inconsistent"
