#!/usr/bin/env bash
# deploy/compose.yaml run as docs/deploying.md ("Compose on one host") says,
# with real podman:
#
#   tests/e2e/compose.sh [DIST]
#
# Takes the guide's blocks of that section (each marked `<!-- compose-test:
# NAME -->`: podman, first-start, release, rollback, backup, restore) and
# runs them as written, in one scratch deployment: a folder with the
# repository's scripts/ and templates/, a copy of content/, and
# deploy/compose.yaml, deploy/env.example and deploy/containers.conf linked
# from the repository (the files themselves, not copies), with `generate`
# on PATH. The header of deploy/compose.yaml must hold the same blocks, in
# the same order. Only these are put in: `apt-get install`
# checks that the packages are installed (the test installs them first);
# `scripts/container` reuses the image when it exists (else it runs, from
# the repository, baking DIST when given); `editor deploy/.env` fills the
# settings in; the project name `public-information` becomes a unique one;
# the restore names the dump the backup wrote. What a block exports (the
# podman block's CONTAINERS_CONF and DOCKER_HOST) reaches the blocks after
# it, as in one shell. A command that fails fails the test, with its output.
#
# The podman block is the whole engine: `podman system service` on a socket
# in deploy/ (docker-compose 1.29 talks to it through DOCKER_HOST), netavark
# (deploy/containers.conf) and the loop that runs the health checks every
# 5 s where there is no systemd (docs/decisions/0202-compose-tool.md,
# 0203-compose-on-podman-from-the-guide.md). The official images it cannot
# pull are stand-ins built from Debian packages under the same names
# (tests/e2e/standins; their differences are printed).
#
# Checks: every service starts and passes its health check (the sidecars
# only after PostgreSQL is healthy, the front after them); `up -d` again
# succeeds and recreates nothing; through the front (published on
# 127.0.0.1): a page, /api/platform-stats.php, MCP tools/list, and an
# enquiry delivered to an SMTP server on the compose network's gateway; a
# release adding a page is served by the front without a signal (its
# configuration is the same bytes) and reported by both sidecars; one
# adding a download changes the configuration and signals the front; then
# 45 s of wrk through the front (COMPOSE_E2E_WRK_SECONDS) across a release
# adding a page, one editing it and a rollback: none signals the front, 0
# answers outside 2xx/3xx and 0 socket errors (COMPOSE_E2E_SIGNAL_ALWAYS=1
# signals it at each, for measuring, and then only prints the figures); the backup's dump is mode 0600 in a folder of
# mode 0700; after `down` and `up -d` the enquiry is still in PostgreSQL's
# volume; after `down -v` the restore block puts the dump into the empty
# database and the service serves again with the enquiry; `down -v` leaves
# nothing. Removes its containers, volumes, networks and the stand-in
# images it built (COMPOSE_KEEP_IMAGES=1 keeps the stand-ins). Where podman
# cannot run containers at all, prints SKIP.
# Environment: COMPOSE_E2E_TIMEOUT (seconds, default 900),
# CONTAINER_IMAGE is not read: the image is the one the compose file names.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repo=$PWD

# Bounded as a whole; timeout signals the whole process group, and the
# traps below clean up with the podman command line.
if [ -z "${COMPOSE_E2E_BOUNDED:-}" ]; then
  export COMPOSE_E2E_BOUNDED=1
  exec timeout --kill-after=30 "${COMPOSE_E2E_TIMEOUT:-900}" "$0" "$@"
fi

dist=${1:-}
started=$(date +%s)
fail() { echo "compose e2e: FAIL: $*" >&2; exit 1; }
step() { printf -- '--- [%3ss] %s\n' "$(($(date +%s) - started))" "$*"; }

packages=(podman runc netavark aardvark-dns iptables docker-compose openssl)
apt_ensure "${packages[@]}" curl wrk python3-venv python3-yaml
venv_ensure "aiosmtpd==1.4.6"
py=$repo/.tools/venv/bin/python
gen_dir=$(cd "$E2E_BIN" 2>/dev/null && pwd) || true
[ -x "$gen_dir/generate" ] || fail "$E2E_BIN/generate is missing; run cargo build -p generator"

work=$(mktemp -d "${TMPDIR:-/tmp}/compose-e2e.XXXXXX")
project="pi-compose-$$-$RANDOM"
built_images=()
pids=()
engine=""
cleanup() {
  local code=$?
  trap - EXIT TERM INT
  set +e
  if [ -n "${DOCKER_HOST:-}" ] && [ "$code" != 0 ]; then
    echo "--- logs of the services (last lines)"
    (cd "$work" && timeout 30 docker-compose -p "$project" -f deploy/compose.yaml logs --no-color --tail 15 2>&1 | tail -80)
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  note_volumes
  podman ps -aq --filter "label=com.docker.compose.project=$project" | xargs -r timeout 60 podman rm -f -t 2 >/dev/null 2>&1
  podman volume ls -q --filter "label=com.docker.compose.project=$project" | xargs -r podman volume rm -f >/dev/null 2>&1
  podman network ls -q --filter "label=com.docker.compose.project=$project" | xargs -r podman network rm -f >/dev/null 2>&1
  podman network ls --format '{{.Name}}' | grep "^${project}_" | xargs -r podman network rm -f >/dev/null 2>&1
  sort -u "$work/volumes" 2>/dev/null | xargs -r podman volume rm -f >/dev/null 2>&1
  # The podman block's engine and health loop: a process group of their own.
  [ -z "$engine" ] || kill -- "-$engine" 2>/dev/null
  if [ "${COMPOSE_KEEP_IMAGES:-}" != 1 ]; then
    for image in "${built_images[@]}"; do podman rmi -f "$image" >/dev/null 2>&1; done
  fi
  rm -rf "$work"
  exit "$code"
}
# Every volume the project's containers mount (anonymous ones included),
# noted before they go, removed at the end.
note_volumes() {
  podman ps -aq --filter "label=com.docker.compose.project=$project" 2>/dev/null \
    | xargs -r podman inspect --format '{{range .Mounts}}{{if eq .Type "volume"}}{{println .Name}}{{end}}{{end}}' 2>/dev/null \
    | grep . >>"$work/volumes" || true
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# The test's own podman commands take the settings the guide's podman
# block gives the engine.
export CONTAINERS_CONF="$repo/deploy/containers.conf"
if ! timeout 60 podman info >/dev/null 2>"$work/podman-info.err"; then
  echo "SKIP: compose e2e: podman cannot run here: $(head -c 400 "$work/podman-info.err")"
  exit 0
fi

step "the guide's blocks (docs/deploying.md) and the compose file's header"
"$py" - "$repo/docs/deploying.md" "$repo/deploy/compose.yaml" "$work" <<'PY' || fail "the guide's compose blocks are missing, or the header of deploy/compose.yaml differs from them"
import re, sys
guide, compose, out = sys.argv[1:]
names = ["podman", "first-start", "release", "rollback", "backup", "restore"]
text = open(guide).read()
start = text.index("\n## Compose on one host\n")
end = text.index("\n## ", start + 1)
blocks = {}
for m in re.finditer(r"<!-- compose-test: ([\w-]+) -->\n```sh\n(.*?)```\n", text[start:end], re.S):
    if m.group(1) in blocks:
        sys.exit(f"two blocks marked compose-test: {m.group(1)}")
    blocks[m.group(1)] = m.group(2)
missing = [n for n in names if n not in blocks]
if missing or len(blocks) != len(names):
    sys.exit(f"docs/deploying.md, Compose on one host: blocks {sorted(blocks)}, expected {names}")
for name, block in blocks.items():
    open(f"{out}/{name}.cmds", "w").write(block)

# The header: `#   $ ` lines and their continuations, one group per block.
groups, current, continues = [], None, False
for line in open(compose).read().split("\n"):
    if not line.startswith("#"):
        break
    body = line[1:]
    if continues:
        current[-1] += "\n" + body
    elif body.startswith("   $ "):
        if current is None:
            current = []
            groups.append(current)
        current.append(body[5:])
    else:
        current = None
    continues = current is not None and current[-1].endswith("\\")
flat = lambda s: re.sub(r"\s+", " ", s.replace("\\\n", " ")).strip()
if len(groups) != len(names):
    sys.exit(f"deploy/compose.yaml: {len(groups)} blocks of `$ ` commands in the header, expected {len(names)} ({', '.join(names)})")
for name, group in zip(names, groups):
    if flat("\n".join(group)) != flat(blocks[name]):
        sys.exit(f"the header of deploy/compose.yaml and docs/deploying.md differ in {name}:\n"
                 f"  header: {flat(chr(10).join(group))}\n  guide:  {flat(blocks[name])}")
print(f"  {len(blocks)} blocks: {', '.join(names)}; the header of deploy/compose.yaml holds the same, in order")
PY

step "images: the sidecar image and stand-ins for the official images of deploy/compose.yaml"
if ! podman image exists localhost/public-information:latest; then
  echo "building localhost/public-information:latest (scripts/container${dist:+ --dist $dist})"
  timeout 1500 scripts/container ${dist:+--dist "$dist"}
fi
for image in $(sed -nE 's/^ +image: +(docker\.io\/[^ ]+)$/\1/p' deploy/compose.yaml); do
  if podman image exists "$image" && [ -z "$(podman image inspect --format '{{index .Config.Labels "stand-in"}}' "$image")" ]; then
    echo "$image: the real image is here, using it"
    continue
  fi
  case "$image" in
    */nginx:*) kind=nginx ;;
    */postgres:*) kind=postgres ;;
    *) fail "deploy/compose.yaml names $image, for which tests/e2e/standins has no stand-in" ;;
  esac
  built_images+=("$image")
  timeout 300 tests/e2e/standins/build.sh "$kind" "$image"
done
if [ ${#built_images[@]} -gt 0 ]; then
  echo "The stand-ins differ from the official images in:"
  tests/e2e/standins/build.sh differences | sed 's/^/  /'
fi

# Can a container run here at all?
if ! timeout 60 podman run --rm --network none --entrypoint /sidecar localhost/public-information:latest --version >/dev/null 2>"$work/podman-run.err"; then
  echo "SKIP: compose e2e: podman cannot run a container here: $(tail -n 3 "$work/podman-run.err")"
  exit 0
fi

step "the scratch deployment"
ln -s "$repo/scripts" "$work/scripts"
ln -s "$repo/templates" "$work/templates"
cp -a "$repo/content" "$work/content"
mkdir "$work/deploy" "$work/mail"
for f in compose.yaml env.example containers.conf; do ln -s "$repo/deploy/$f" "$work/deploy/$f"; done

front_port=$(free_port)
smtp_port=$(free_port)
base="http://127.0.0.1:$front_port"
# The front's network (`backend`) has a fixed subnet; its gateway is this
# host as the sidecars see it.
gateway=$(python3 - <<'PY'
import ipaddress, yaml
net = yaml.safe_load(open("deploy/compose.yaml"))["networks"]["backend"]["ipam"]["config"][0]["subnet"]
print(next(ipaddress.ip_network(net).hosts()))
PY
)
echo "front $base, SMTP server smtp://$gateway:$smtp_port, project $project"

# Writes a runnable script from a block: the commands as written, in the
# environment the blocks before it exported, but for the project name, the
# image build and the packages' installation.
script() {
  local name=$1 strict=${2:-set -euo pipefail}
  {
    echo "$strict"
    printf 'cd %q\n' "$work"
    [ ! -f "$work/env.sh" ] || printf 'source %q\n' "$work/env.sh"
    printf 'export PATH=%q:"$PATH"\n' "$gen_dir"
    echo 'unset ${!GENERATE_*}'
    declare -f editor image_ready apt-get
    sed -e "s/-p public-information /-p $project /" \
      -e "s/public-information_front_1/${project}_front_1/" \
      -e "s/compose\.project=public-information /compose.project=$project /" \
      -e 's|^scripts/container$|image_ready|' \
      -e "s|deploy/backups/service-20261126T0300Z.dump|${restore_dump:-}|" "$work/$name.cmds"
    [ "$name" != podman ] || printf 'export -p >%q\n' "$work/env.sh"
  } >"$work/$name.sh"
}
# `editor deploy/.env`: what an operator fills in.
editor() {
  local file=$1 key
  for key in SITE_ORIGIN POSTGRES_PASSWORD SMTP_URL CONTACT_FROM FRONT_PUBLISH SIDECAR_IMAGE; do
    grep -q "^$key=" "$file" || { echo "deploy/env.example has no $key= line" >&2; return 1; }
  done
  sed -i -e "s|^SITE_ORIGIN=.*|SITE_ORIGIN=$COMPOSE_E2E_BASE|" \
    -e "s|^POSTGRES_PASSWORD=.*|POSTGRES_PASSWORD=$(openssl rand -hex 24)|" \
    -e "s|^SMTP_URL=.*|SMTP_URL=$COMPOSE_E2E_SMTP|" \
    -e "s|^FRONT_PUBLISH=.*|FRONT_PUBLISH=127.0.0.1:${COMPOSE_E2E_BASE##*:}|" "$file"
  # A cheaper proof of work, so the test solves it in a second.
  printf '%s\n' SIDECAR_CHALLENGE_COST=1000 SIDECAR_CHALLENGE_COUNTER_MIN=20 SIDECAR_CHALLENGE_COUNTER_MAX=60 >>"$file"
}
image_ready() {
  podman image exists localhost/public-information:latest \
    && echo "scripts/container: localhost/public-information:latest is built, reusing it"
}
# `apt-get install PACKAGE…`: the test installed them; each must be.
apt-get() {
  [ "$1" = install ] || { echo "apt-get $1: not taken by the test" >&2; return 1; }
  shift
  local p
  for p in "$@"; do
    [ "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" = installed ] \
      || { echo "apt-get install: $p is not installed" >&2; return 1; }
  done
  echo "apt-get install: $* installed"
}
export COMPOSE_E2E_BASE=$base COMPOSE_E2E_SMTP="smtp://$gateway:$smtp_port"

run_block() {
  local name=$1 limit=$2 code=0 began=$SECONDS
  echo "commands of the guide ($name):"
  sed 's/^/  $ /' "$work/$name.cmds"
  timeout "$limit" bash "$work/$name.sh" >"$work/$name.log" 2>&1 || code=$?
  sed 's/^/  | /' "$work/$name.log" | tail -40
  echo "  ($name: $((SECONDS - began)) s)"
  [ "$code" = 0 ] || fail "the guide's $name commands failed (exit $code; 124: over ${limit}s); output above"
}

step "the engine: the guide's podman block (service, DOCKER_HOST, netavark, health checks)"
grep -q "^apt-get install ${packages[*]}$" "$work/podman.cmds" \
  || fail "the podman block does not install ${packages[*]}: $(grep apt-get "$work/podman.cmds")"
# As a user's shell runs it (no errexit: the health loop must go on after
# a failed check), but a failed command of its own fails it.
script podman "set -uo pipefail; trap 'exit 1' ERR"
echo "commands of the guide (podman):"
sed 's/^/  $ /' "$work/podman.cmds"
# Its own session, so that the engine and the loop it leaves running are
# one process group, ended by the cleanup.
setsid bash "$work/podman.sh" >"$work/podman.log" 2>&1 &
engine=$!
wait "$engine" || { cat "$work/podman.log"; fail "the podman block failed"; }
# shellcheck disable=SC1091
source "$work/env.sh"
sock=${DOCKER_HOST#unix://}
[ "$sock" = "$work/deploy/podman.sock" ] || fail "the podman block set DOCKER_HOST=$DOCKER_HOST"
for _ in $(seq 1 100); do curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null || { cat "$work/podman.log"; fail "podman system service did not answer on $DOCKER_HOST"; }
[ "$(podman info --format '{{.Host.NetworkBackend}}')" = netavark ] || fail "podman does not run netavark with the guide's CONTAINERS_CONF"
echo "  docker-compose $(docker-compose version --short) over $DOCKER_HOST; network backend netavark"

script first-start
script release
script rollback
script backup

step "first start: the guide's commands"
run_block first-start 360
[ -L "$work/deploy/dist/current" ] || fail "no release directory deploy/dist/current after the first start"
[ -f "$work/deploy/host-config/nginx.conf" ] || fail "no deploy/host-config/nginx.conf after the first start"
grep -q 'root /srv/dist/current;' "$work/deploy/host-config/nginx.conf" \
  || fail "the front's configuration does not serve /srv/dist/current: $(grep -m1 -E '^\s*root ' "$work/deploy/host-config/nginx.conf")"

compose() { (cd "$work" && timeout "${COMPOSE_STEP_TIMEOUT:-240}" docker-compose -p "$project" -f deploy/compose.yaml "$@"); }
containers() { podman ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}} {{.Status}}' | sort; }
ids() { podman ps -a --filter "label=com.docker.compose.project=$project" --format '{{.ID}}' | sort | tr '\n' ' '; }
healthy() {
  local want=$1
  for _ in $(seq 1 60); do
    [ "$(containers | grep -c '(healthy)')" = "$want" ] && return 0
    sleep 2
  done
  containers
  fail "not all $want services healthy within 120 s"
}
up_line=$(grep -E '^docker-compose .* up -d$' "$work/first-start.cmds" | tail -n 1)
[ -n "$up_line" ] || fail "the guide's first start has no docker-compose … up -d"
up_again() {
  (cd "$work" && timeout 240 bash -c "$(sed "s/-p public-information /-p $project /" <<<"$up_line")") >"$work/up-again.log" 2>&1 \
    || { cat "$work/up-again.log"; fail "$up_line failed"; }
}

step "every service up and healthy"
healthy 4
containers | sed 's/^/  /'
for service in postgres sidecar front; do
  [ -n "$(compose ps -q "$service")" ] || fail "no container for $service"
done

step "up -d again: nothing changes, nothing fails"
before=$(ids)
up_again
sed 's/^/  | /' "$work/up-again.log"
[ "$(ids)" = "$before" ] || fail "up -d again replaced containers: $before -> $(ids)"
! grep -qiE 'recreat|error' "$work/up-again.log" || fail "up -d again recreated or failed something (output above)"
healthy 4

step "SMTP server on $gateway:$smtp_port (the compose network's gateway)"
"$py" tests/e2e/compose_e2e.py smtp "$gateway" "$smtp_port" "$work/mail" >"$work/smtp.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -qs listening "$work/smtp.log" && break; sleep 0.2; done
grep -q listening "$work/smtp.log" || { cat "$work/smtp.log"; fail "the SMTP server did not start"; }

step "through the front: a page, /api/platform-stats.php, MCP tools/list"
"$py" tests/e2e/compose_e2e.py site "$base"

step "through the front: an enquiry, delivered by SMTP"
reference=$("$py" tests/e2e/compose_e2e.py enquiry "$base" "$work/mail")
current() { basename "$(readlink "$work/deploy/dist/current")"; }
first_release=$(current)
echo "  release $first_release"

# new_page NAME TEXT: a page of content/docs/ (with its Markdown twin).
new_page() {
  printf '+++\ntitle = "%s"\nsummary = "A page of a later release."\nweight = 99\nupdated = "2026-11-26"\n+++\n\n%s\n' \
    "$1" "$2" >"$work/content/docs/$1.md"
}
signalled() { grep -q "HUP ${project}_front_1" "$work/$1.log"; }

step "a release adding a page: the guide's release commands; the front, unchanged, is not signalled"
page=$work/content/docs/compose-release-check.md
marker="Compose release check $project"
new_page compose-release-check "$marker"
status=$(curl -s -o /dev/null -w '%{http_code}' "$base/docs/compose-release-check/")
[ "$status" = 404 ] || fail "the new page answers $status before its release"
run_block release 180
second_release=$(current)
[ "$second_release" != "$first_release" ] || fail "the release command did not make a new release"
"$py" tests/e2e/compose_e2e.py release "$base" "$second_release" /docs/compose-release-check/ "$marker"
! signalled release || fail "a release adding a page signalled the front: its configuration changed"

step "a release adding a download: the front's configuration changes, the front is signalled"
mkdir -p "$work/content/files/compose"
echo "$marker" >"$work/content/files/compose/check.txt"
run_block release 180
third_release=$(current)
signalled release || fail "a release adding a download changed the front's configuration but did not signal the front"
"$py" tests/e2e/compose_e2e.py release "$base" "$third_release" /files/compose/check.txt "$marker"

step "wrk through the front for ${COMPOSE_E2E_WRK_SECONDS:=45} s, across a release adding a page, one editing it and a rollback"
if [ "${COMPOSE_E2E_SIGNAL_ALWAYS:-}" = 1 ]; then
  echo "  COMPOSE_E2E_SIGNAL_ALWAYS=1: the front is signalled at every release (measuring only)"
  sed -i 's/ --if-changed deploy\/host-config / /' "$work/release.sh" "$work/rollback.sh"
fi
asset=$(cd "$work/deploy/dist/current" && ls assets/site.*.css | head -n 1)
cat >"$work/wrk.lua" <<'LUA'
local paths, n = {}, 0
for p in string.gmatch(os.getenv("WRK_PATHS"), "%S+") do paths[#paths + 1] = p end
request = function()
  n = n + 1
  return wrk.format("GET", paths[n % #paths + 1])
end
done = function(summary)
  local e = summary.errors
  io.write(string.format("wrk-summary %d %d %d %d %d %d\n", summary.requests, e.status,
    e.connect, e.read, e.write, e.timeout))
end
LUA
# One wrk thread, so that the releases it runs across get the other core.
WRK_PATHS="/ /docs/ /docs/compose-release-check/ /$asset /robots.txt /healthz" \
  wrk -t 1 -c 8 -d "${COMPOSE_E2E_WRK_SECONDS}s" --timeout 5s -s "$work/wrk.lua" "$base" >"$work/wrk.log" 2>&1 &
wrk_pid=$!
wrk_began=$SECONDS
pids+=("$wrk_pid")
releases=()
for n in 1 2; do
  sleep 3
  if [ "$n" = 1 ]; then
    new_page compose-load-check "Added under load."
  else
    printf '\nEdited under load.\n' >>"$work/content/docs/compose-load-check.md"
  fi
  run_block release 60
  releases+=("$(current)")
  if [ "${COMPOSE_E2E_SIGNAL_ALWAYS:-}" != 1 ]; then
    grep -q "deploy/host-config unchanged: skipping --reload-container ${project}_front_1" "$work/release.log" \
      || fail "release $n added or edited a page only, yet the front's configuration changed or the front was signalled"
  fi
done
sleep 3
run_block rollback 60
[ "$(current)" = "${releases[0]}" ] || fail "the rollback made $(current) current, not ${releases[0]}"
if [ "${COMPOSE_E2E_SIGNAL_ALWAYS:-}" != 1 ]; then
  grep -q "deploy/host-config unchanged: skipping --reload-container ${project}_front_1" "$work/rollback.log" \
    || fail "the rollback changed the front's configuration or signalled the front"
fi
# At least a second of load after the rollback too.
[ $((SECONDS - wrk_began)) -lt $((COMPOSE_E2E_WRK_SECONDS - 1)) ] \
  || fail "the releases and the rollback took $((SECONDS - wrk_began)) s, wrk ${COMPOSE_E2E_WRK_SECONDS} s: raise COMPOSE_E2E_WRK_SECONDS"
echo "  the releases and the rollback done $((SECONDS - wrk_began)) s into the ${COMPOSE_E2E_WRK_SECONDS} s of wrk"
wait "$wrk_pid" || { cat "$work/wrk.log"; fail "wrk failed"; }
sed 's/^/  | /' "$work/wrk.log"
read -r requests bad connect read write timedout < <(awk '$1 == "wrk-summary" { print $2, $3, $4, $5, $6, $7 }' "$work/wrk.log")
[ -n "${timedout:-}" ] || fail "wrk printed no summary"
echo "  wrk: $requests requests in ${COMPOSE_E2E_WRK_SECONDS} s, $bad outside 2xx/3xx; socket errors: connect $connect, read $read, write $write, timeout $timedout"
if [ "${COMPOSE_E2E_SIGNAL_ALWAYS:-}" != 1 ]; then
  [ "$requests" -gt 1000 ] || fail "wrk made only $requests requests"
  [ "$bad" = 0 ] && [ "$connect" = 0 ] && [ "$read" = 0 ] && [ "$write" = 0 ] && [ "$timedout" = 0 ] \
    || fail "requests failed across the releases through the front (figures above)"
fi
"$py" tests/e2e/compose_e2e.py release "$base" "${releases[0]}" /docs/compose-load-check/ "Added under load."
page=$(curl -s "$base/docs/compose-load-check/")
! grep -q "Edited under load." <<<"$page" || fail "the front serves the rolled-back edit"

step "a backup: the guide's backup commands (umask 077)"
run_block backup 120
dump=$(ls "$work"/deploy/backups/service-*.dump 2>/dev/null | tail -n 1)
[ -s "$dump" ] || fail "the backup commands wrote no dump into deploy/backups/"
[ "$(stat -c %a "$dump")" = 600 ] || fail "the dump $(basename "$dump") is mode $(stat -c %a "$dump"), not 600: readable by others"
[ "$(stat -c %a "$work/deploy/backups")" = 700 ] || fail "deploy/backups is mode $(stat -c %a "$work/deploy/backups"), not 700"
echo "  $(basename "$dump"): $(stat -c %s "$dump") bytes, mode 0600 in a folder of mode 0700"

step "down and up -d again: the enquiry is still in PostgreSQL's volume"
note_volumes
compose down
[ -z "$(podman ps -aq --filter "label=com.docker.compose.project=$project")" ] || fail "containers left after down"
up_again
healthy 4
stored=$(podman exec "$(compose ps -q postgres)" psql -U sidecar -d public_information -tAc \
  "SELECT count(*) FROM enquiries WHERE reference = '$reference'")
[ "$stored" = 1 ] || fail "enquiry $reference not in PostgreSQL after down and up (count: $stored)"
echo "  enquiry $reference still stored"
"$py" tests/e2e/compose_e2e.py release "$base" "${releases[0]}" /docs/compose-load-check/ "Added under load."

step "the restore: down -v (the database is gone), then the guide's restore commands with the dump"
note_volumes
compose down -v
restore_dump=deploy/backups/$(basename "$dump")
script restore
run_block restore 300
healthy 4
restored=$(podman exec "$(compose ps -q postgres)" psql -U sidecar -d public_information -tAc \
  "SELECT count(*) FROM enquiries WHERE reference = '$reference'")
[ "$restored" = 1 ] || fail "enquiry $reference not in the restored database (count: $restored)"
echo "  enquiry $reference restored from $(basename "$dump")"
"$py" tests/e2e/compose_e2e.py site "$base"
"$py" tests/e2e/compose_e2e.py release "$base" "${releases[0]}" /docs/compose-load-check/ "Added under load."

step "down -v: nothing left"
note_volumes
compose down -v
left=$( (podman ps -aq --filter "label=com.docker.compose.project=$project"
  sort -u "$work/volumes" | while read -r v; do podman volume exists "$v" && echo "volume $v"; done
  podman network ls --format '{{.Name}}' | grep "^${project}_") || true)
[ -z "$left" ] || fail "left after down -v: $left"
echo "  no container, volume ($(sort -u "$work/volumes" | wc -l) used) or network left"

echo "compose e2e: passed in $(($(date +%s) - started)) s (releases $first_release, $second_release, $third_release, ${releases[*]}, rolled back to ${releases[0]}; wrk $requests requests, $((bad + connect + read + write + timedout)) failed; enquiry $reference)"
