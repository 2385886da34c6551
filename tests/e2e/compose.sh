#!/usr/bin/env bash
# deploy/compose.yaml run as its own header says, with real podman:
#
#   tests/e2e/compose.sh [DIST]
#
# Takes the commands of the compose file's header (the `$ ` lines: the
# first start, a later release, a backup) and runs them as written in a scratch
# deployment: a folder with the repository's scripts/ and templates/, a
# copy of content/, and deploy/compose.yaml and deploy/env.example linked
# from the repository (the files themselves, not copies), with `generate`
# on PATH. Only these are put in: `scripts/container` reuses the image
# when it exists (else it runs, from the repository, baking DIST when
# given); `editor deploy/.env` fills the settings in; the project name
# `public-information` becomes a unique one. A command that fails fails
# the test, with its output.
#
# The compose tool is Debian's docker-compose 1.29 over podman's Docker API
# (`podman system service`), on netavark (internal networks with DNS);
# podman without systemd schedules no health checks, so the test runs them
# every 2 s as the timer would (docs/decisions/0202-compose-tool.md). The
# official images it cannot pull are stand-ins built from Debian packages
# under the same names (tests/e2e/standins; their differences are printed).
#
# Checks: every service starts and passes its health check (the sidecars
# only after PostgreSQL is healthy, the front after them); through the
# front (published on 127.0.0.1): a page, /api/platform-stats.php, MCP
# tools/list, and an enquiry delivered to an SMTP server on the compose
# network's gateway; a second release published by the header's command
# (with --reload-container) is served by the front and reported by both
# sidecars; the backup's dump restores into a new database with the
# enquiry in it; after `down` and `up` the enquiry is still in PostgreSQL's
# volume; `down -v` leaves nothing. Removes its containers, volumes,
# networks and the stand-in images it built (COMPOSE_KEEP_IMAGES=1 keeps
# the stand-ins). Where podman cannot run containers at all, prints SKIP.
# Environment: COMPOSE_E2E_TIMEOUT (seconds, default 600),
# CONTAINER_IMAGE is not read: the image is the one the compose file names.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repo=$PWD

# Bounded as a whole; timeout signals the whole process group, and the
# traps below clean up with the podman command line.
if [ -z "${COMPOSE_E2E_BOUNDED:-}" ]; then
  export COMPOSE_E2E_BOUNDED=1
  exec timeout --kill-after=30 "${COMPOSE_E2E_TIMEOUT:-600}" "$0" "$@"
fi

dist=${1:-}
started=$(date +%s)
fail() { echo "compose e2e: FAIL: $*" >&2; exit 1; }
step() { printf -- '--- [%3ss] %s\n' "$(($(date +%s) - started))" "$*"; }

apt_ensure podman runc docker-compose netavark aardvark-dns iptables openssl curl python3-venv python3-yaml
venv_ensure "aiosmtpd==1.4.6"
py=$repo/.tools/venv/bin/python
gen_dir=$(cd "$E2E_BIN" 2>/dev/null && pwd) || true
[ -x "$gen_dir/generate" ] || fail "$E2E_BIN/generate is missing; run cargo build -p generator"

work=$(mktemp -d "${TMPDIR:-/tmp}/compose-e2e.XXXXXX")
project="pi-compose-$$-$RANDOM"
built_images=()
pids=()
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

# Podman with the project's settings (deploy/containers.conf) and netavark:
# Debian's podman defaults to CNI, whose internal networks have no DNS.
{ cat deploy/containers.conf; printf '\n[network]\nnetwork_backend = "netavark"\n'; } >"$work/containers.conf"
export CONTAINERS_CONF="$work/containers.conf"
if ! timeout 60 podman info >/dev/null 2>"$work/podman-info.err"; then
  echo "SKIP: compose e2e: podman cannot run here: $(head -c 400 "$work/podman-info.err")"
  exit 0
fi

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

step "docker-compose over podman's Docker API (podman system service)"
sock="$work/podman.sock"
podman system service --time=0 "unix://$sock" >"$work/podman-service.log" 2>&1 &
pids+=($!)
export DOCKER_HOST="unix://$sock"
for _ in $(seq 1 100); do curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS --unix-socket "$sock" http://d/_ping >/dev/null || fail "podman system service did not answer on $sock"
docker-compose version --short

# The health checks, as podman's systemd timer would run them.
(
  while sleep 2; do
    for c in $(podman ps -q --filter "label=com.docker.compose.project=$project" 2>/dev/null); do
      podman healthcheck run "$c" >/dev/null 2>&1 || true
    done
  done
) &
pids+=($!)

step "the scratch deployment"
ln -s "$repo/scripts" "$work/scripts"
ln -s "$repo/templates" "$work/templates"
cp -a "$repo/content" "$work/content"
mkdir "$work/deploy" "$work/mail"
ln -s "$repo/deploy/compose.yaml" "$work/deploy/compose.yaml"
ln -s "$repo/deploy/env.example" "$work/deploy/env.example"

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

# The header's commands, one group per block of `$ ` lines.
"$py" - "$repo/deploy/compose.yaml" "$work" <<'PY' || fail "the header of deploy/compose.yaml has no runnable first-start, release and backup blocks"
import sys
lines = open(sys.argv[1]).read().split("\n")
groups, current, previous_continues = [], None, False
for line in lines:
    if not line.startswith("#"):
        break
    text = line[1:]
    if previous_continues:
        current[-1] += "\n" + text
    elif text.startswith("   $ "):
        if current is None:
            current = []
            groups.append(current)
        current.append(text[5:])
    else:
        current = None
    previous_continues = current is not None and current[-1].endswith("\\")
if len(groups) != 3:
    print(f"expected 3 blocks of commands (first start, later release, backup), found {len(groups)}", file=sys.stderr)
    sys.exit(1)
for name, group in zip(("first-start", "release", "backup"), groups):
    with open(f"{sys.argv[2]}/{name}.cmds", "w") as f:
        f.write("\n".join(group) + "\n")
PY

# Writes a runnable script from a block: the commands as written, but for
# the project name and the image build.
script() {
  local name=$1
  {
    echo 'set -euo pipefail'
    printf 'cd %q\n' "$work"
    printf 'export PATH=%q:"$PATH"\n' "$gen_dir"
    echo 'unset ${!GENERATE_*}'
    declare -f editor image_ready
    sed -e "s/-p public-information /-p $project /" \
      -e "s/public-information_front_1/${project}_front_1/" \
      -e 's|^scripts/container$|image_ready|' "$work/$name.cmds"
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
export COMPOSE_E2E_BASE=$base COMPOSE_E2E_SMTP="smtp://$gateway:$smtp_port"
script first-start
script release
script backup

run_block() {
  local name=$1 limit=$2 code=0
  echo "commands of the header ($name):"
  sed 's/^/  $ /' "$work/$name.cmds"
  timeout "$limit" bash "$work/$name.sh" >"$work/$name.log" 2>&1 || code=$?
  sed 's/^/  | /' "$work/$name.log" | tail -40
  [ "$code" = 0 ] || fail "the header's $name commands failed (exit $code; 124: over ${limit}s); output above"
}

step "first start: the header's commands"
run_block first-start 360
[ -L "$work/deploy/dist/current" ] || fail "no release directory deploy/dist/current after the first start"
[ -f "$work/deploy/host-config/nginx.conf" ] || fail "no deploy/host-config/nginx.conf after the first start"
grep -q 'root /srv/dist/current;' "$work/deploy/host-config/nginx.conf" \
  || fail "the front's configuration does not serve /srv/dist/current: $(grep -m1 -E '^\s*root ' "$work/deploy/host-config/nginx.conf")"

compose() { (cd "$work" && timeout "${COMPOSE_STEP_TIMEOUT:-240}" docker-compose -p "$project" -f deploy/compose.yaml "$@"); }
containers() { podman ps -a --filter "label=com.docker.compose.project=$project" --format '{{.Names}} {{.Status}}' | sort; }
healthy() {
  local want=$1
  for _ in $(seq 1 60); do
    [ "$(containers | grep -c '(healthy)')" = "$want" ] && return 0
    sleep 2
  done
  containers
  fail "not all $want services healthy within 120 s"
}

step "every service up and healthy"
healthy 4
containers | sed 's/^/  /'
for service in postgres sidecar front; do
  [ -n "$(compose ps -q "$service")" ] || fail "no container for $service"
done

step "SMTP server on $gateway:$smtp_port (the compose network's gateway)"
"$py" tests/e2e/compose_e2e.py smtp "$gateway" "$smtp_port" "$work/mail" >"$work/smtp.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do grep -q listening "$work/smtp.log" && break; sleep 0.2; done
grep -q listening "$work/smtp.log" || { cat "$work/smtp.log"; fail "the SMTP server did not start"; }

step "through the front: a page, /api/platform-stats.php, MCP tools/list"
"$py" tests/e2e/compose_e2e.py site "$base"

step "through the front: an enquiry, delivered by SMTP"
reference=$("$py" tests/e2e/compose_e2e.py enquiry "$base" "$work/mail")
first_release=$(basename "$(readlink "$work/deploy/dist/current")")
echo "  release $first_release"

step "a second release: the header's release commands"
marker="Compose release check $project"
printf '+++\ntitle = "Compose release check"\nsummary = "A page only the second release has."\nweight = 99\nupdated = "2026-11-26"\n+++\n\n%s\n' \
  "$marker" >"$work/content/docs/compose-release-check.md"
status=$(curl -s -o /dev/null -w '%{http_code}' "$base/docs/compose-release-check/")
[ "$status" = 404 ] || fail "the new page answers $status before its release"
run_block release 180
second_release=$(basename "$(readlink "$work/deploy/dist/current")")
[ "$second_release" != "$first_release" ] || fail "the release command did not make a new release"
"$py" tests/e2e/compose_e2e.py release "$base" "$second_release" /docs/compose-release-check/ "$marker"
grep -q "HUP ${project}_front_1" "$work/release.log" || fail "the release did not signal the front (--reload-container)"

step "a backup: the header's backup commands, then the dump restored into a new database"
run_block backup 120
dump=$(ls "$work"/deploy/backups/service-*.dump 2>/dev/null | tail -n 1)
[ -s "$dump" ] || fail "the backup commands wrote no dump into deploy/backups/"
pg=$(compose ps -q postgres)
podman exec "$pg" psql -U sidecar -d public_information -qc "CREATE DATABASE restore_check" >/dev/null
podman exec -i "$pg" pg_restore --no-owner --exit-on-error --single-transaction -U sidecar -d restore_check <"$dump" \
  || fail "pg_restore of $dump failed"
restored=$(podman exec "$pg" psql -U sidecar -d restore_check -tAc "SELECT count(*) FROM enquiries WHERE reference = '$reference'")
[ "$restored" = 1 ] || fail "enquiry $reference not in the restored dump (count: $restored)"
podman exec "$pg" psql -U sidecar -d public_information -qc "DROP DATABASE restore_check" >/dev/null
echo "  $(basename "$dump"): $(stat -c %s "$dump") bytes; restored, enquiry $reference in it"

step "down and up again: the enquiry is still in PostgreSQL's volume"
note_volumes
compose down
[ -z "$(podman ps -aq --filter "label=com.docker.compose.project=$project")" ] || fail "containers left after down"
up_line=$(grep -E '^docker-compose .* up' "$work/first-start.cmds" | tail -n 1)
[ -n "$up_line" ] || fail "the header's first start has no docker-compose up"
(cd "$work" && timeout 240 bash -c "$(sed "s/-p public-information /-p $project /" <<<"$up_line")") >"$work/up-again.log" 2>&1 \
  || { cat "$work/up-again.log"; fail "up again failed"; }
healthy 4
stored=$(podman exec "$(compose ps -q postgres)" psql -U sidecar -d public_information -tAc \
  "SELECT count(*) FROM enquiries WHERE reference = '$reference'")
[ "$stored" = 1 ] || fail "enquiry $reference not in PostgreSQL after down and up (count: $stored)"
echo "  enquiry $reference still stored"
"$py" tests/e2e/compose_e2e.py release "$base" "$second_release" /docs/compose-release-check/ "$marker"

step "down -v: nothing left"
note_volumes
compose down -v
left=$( (podman ps -aq --filter "label=com.docker.compose.project=$project"
  sort -u "$work/volumes" | while read -r v; do podman volume exists "$v" && echo "volume $v"; done
  podman network ls --format '{{.Name}}' | grep "^${project}_") || true)
[ -z "$left" ] || fail "left after down -v: $left"
echo "  no container, volume ($(sort -u "$work/volumes" | wc -l) used) or network left"

echo "compose e2e: passed in $(($(date +%s) - started)) s (releases $first_release then $second_release, enquiry $reference)"
