#!/usr/bin/env bash
# The production topology on loopback (tests/e2e/topology.py says what it
# shows): one PostgreSQL cluster of the test's own, two sidecar replicas
# started together, nginx in front (configured by `generate host-config`),
# wrk under SIGKILL and restarts, the shared contact limits and delivery, a
# 20 s PostgreSQL outage under load.
#
#   tests/e2e/topology.sh [DIST]
#
# DIST is a `generate build --precompress` output (nginx serves its twins;
# default: a fresh build). The sidecar is
# ${SIDECAR_BIN:-${CARGO_TARGET_DIR:-target}/debug/sidecar}. Takes about
# 3–4 minutes; TOPOLOGY_TIMEOUT bounds it (seconds, default 900). Every
# process listens on 127.0.0.1 only.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:-}
target=${CARGO_TARGET_DIR:-target}
bin=${SIDECAR_BIN:-$target/debug/sidecar}

apt_ensure nginx libnginx-mod-http-brotli-static wrk postgresql postgresql-client python3-venv curl
venv_ensure "aiosmtpd==1.4.6" "schemathesis==4.32.5" "mcp==2.3.0"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
generate=${GENERATE_BIN:-$target/debug/generate}
if [ ! -x "$bin" ]; then
  cargo build --quiet -p sidecar
fi
if [ ! -x "$generate" ]; then
  cargo build --quiet -p generator
fi
if [ -z "$dist" ]; then
  cargo build --quiet -p generator
  "$target/debug/generate" build --out "$work/dist" --precompress --quiet >/dev/null
  dist="$work/dist"
fi
chmod 0755 "$work"

timeout "${TOPOLOGY_TIMEOUT:-900}" .tools/venv/bin/python tests/e2e/topology.py \
  --sidecar "$bin" --generate "$generate" --dist "$dist" --pg-bin "$pg_bin" --workdir "$work"
