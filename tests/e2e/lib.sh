# The preamble of every tests/e2e/*.sh, sourced as its first command:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Strict mode, the repository's root as the working directory, and the
# helpers of scripts/lib.sh (tools, free ports, a sidecar started and
# awaited, the scratch folder).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

# The binaries the suites run: the test build's generate and sidecar unless
# E2E_BIN names another folder holding both (scripts/test sets it).
E2E_BIN=${E2E_BIN:-${CARGO_TARGET_DIR:-target}/debug}
