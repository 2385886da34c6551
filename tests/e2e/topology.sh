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
# ${SIDECAR_BIN:-$E2E_BIN/sidecar} (scripts/test gives it the static
# release build), generate ${GENERATE_BIN:-$E2E_BIN/generate}. Takes about
# 3–4 minutes; TOPOLOGY_TIMEOUT bounds it (seconds, default 900). Every
# process listens on 127.0.0.1 only.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:-}
bin=${SIDECAR_BIN:-$E2E_BIN/sidecar}
generate=${GENERATE_BIN:-$E2E_BIN/generate}
for b in "$bin" "$generate"; do
  [ -x "$b" ] || { echo "topology: $b is missing; run cargo build" >&2; exit 1; }
done

apt_ensure nginx libnginx-mod-http-brotli-static wrk postgresql postgresql-client python3-venv curl
venv_ensure "aiosmtpd==1.4.6"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$dist" ]; then
  "$generate" build --out "$work/dist" --precompress --quiet >/dev/null
  dist="$work/dist"
fi
chmod 0755 "$work"

timeout "${TOPOLOGY_TIMEOUT:-900}" .tools/venv/bin/python tests/e2e/topology.py \
  --sidecar "$bin" --generate "$generate" --dist "$dist" --pg-bin "$pg_bin" --workdir "$work"
