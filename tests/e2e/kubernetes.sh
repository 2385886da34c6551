#!/usr/bin/env bash
# The Kubernetes manifests of deploy/kubernetes/, validated offline:
#   1. every document against the strict Kubernetes JSON schemas kept in
#      tests/e2e/schemas/kubernetes/<version>/ (an unknown or misspelled
#      field is an error; tests/e2e/schemas/README.md names their source),
#      with Python's jsonschema (draft 2020-12, formats checked);
#   2. the sidecar's rules that no schema knows (tests/e2e/kubernetes_check.py):
#      replicas, selectors, probes, security context, grace period against
#      the shutdown timeout, memory, the Secret's keys.
# First, broken copies must fail: a misspelled field, a wrong type, a
# missing Secret key and a grace period shorter than the shutdown timeout,
# each naming what is wrong; so a check that accepts everything cannot pass
# unnoticed.
#
#   tests/e2e/kubernetes.sh
# KUBERNETES_SCHEMA_VERSION picks another kept version (default v1.37.0).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

version=${KUBERNETES_SCHEMA_VERSION:-v1.37.0}
schemas="tests/e2e/schemas/kubernetes/$version"
[ -d "$schemas" ] || { echo "kubernetes: no schemas at $schemas" >&2; exit 1; }
manifests=(deploy/kubernetes/sidecar.yaml deploy/kubernetes/secret.example.yaml)

apt_ensure python3-venv
venv_ensure "jsonschema==4.26.0" "pyyaml==6.0.3"
py=.tools/venv/bin/python

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A broken copy of the sidecar's manifest (sed EXPR), which must fail with
# WANT in the message.
must_fail() {
  local what=$1 expr=$2 want=$3
  sed -e "$expr" deploy/kubernetes/sidecar.yaml >"$tmp/broken.yaml"
  cmp -s deploy/kubernetes/sidecar.yaml "$tmp/broken.yaml" \
    && { echo "kubernetes: the broken copy ($what) changed nothing: $expr" >&2; exit 1; }
  if "$py" tests/e2e/kubernetes_check.py "$schemas" "$tmp/broken.yaml" deploy/kubernetes/secret.example.yaml \
    >"$tmp/out" 2>&1; then
    echo "kubernetes: a broken manifest passed ($what)" >&2; exit 1
  fi
  grep -qF -- "$want" "$tmp/out" \
    || { echo "kubernetes: the failure for $what does not name $want:" >&2; cat "$tmp/out" >&2; exit 1; }
  echo "kubernetes: refused as it must be: $what ($(grep -F -- "$want" "$tmp/out" | head -1))"
}
must_fail "a misspelled field" 's/^          readinessProbe:/          readinesProbe:/' "'readinesProbe' was unexpected"
must_fail "a misspelled field of the security context" 's/readOnlyRootFilesystem: true/readOnlyRootFileSystem: true/' "'readOnlyRootFileSystem' was unexpected"
must_fail "a wrong type" 's/^  replicas: 2/  replicas: "two"/' "replicas: 'two' is not of type"
must_fail "a Secret key that the Secret lacks" 's/key: smtp-url/key: smtp/' "has the keys"
must_fail "a grace period within the shutdown timeout" 's/terminationGracePeriodSeconds: 35/terminationGracePeriodSeconds: 20/' "terminationGracePeriodSeconds 20 s exceeds"
must_fail "a probe of another path" 's|path: /readyz|path: /healthz|' "readinessProbe is an HTTP GET of /readyz"

"$py" tests/e2e/kubernetes_check.py "$schemas" "${manifests[@]}"
