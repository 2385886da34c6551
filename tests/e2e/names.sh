#!/usr/bin/env bash
# The names the examples use (kubectl objects and containers, compose
# projects, services and containers) against the names the shipped files
# define (tests/e2e/names.py says which and where); then five copies with
# one drift each, which must fail.
#
#   tests/e2e/names.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

venv_ensure "pyyaml==6.0.3"
py=.tools/venv/bin/python
scratch_begin

"$py" tests/e2e/names.py .

# Each drift goes into a fresh copy of the files the check reads.
drift() { # WHAT FILE LINE_TO_APPEND EXPECTED_MESSAGE
  local what=$1 file=$2 line=$3 expected=$4 copy
  copy=$(mktemp -d "$tmp/copy.XXXXXX")
  mkdir -p "$copy/deploy" "$copy/docs"
  cp -r deploy/kubernetes deploy/compose.yaml deploy/github-actions.yml "$copy/deploy/"
  cp docs/deploying.md docs/operating.md "$copy/docs/"
  cp README.md "$copy/"
  printf '\n%s\n' "$line" >>"$copy/$file"
  if out=$("$py" tests/e2e/names.py "$copy" 2>&1); then
    echo "names: a copy with $what passed"; exit 1
  fi
  grep -qF -- "$expected" <<<"$out" || { echo "names: a copy with $what failed without saying \"$expected\": $out"; exit 1; }
  echo "names: a copy with $what fails: ${out%%$'\n'*}"
}
drift "a Deployment that is not shipped" docs/deploying.md \
  'Roll it with `kubectl rollout restart deployment/sidecar`.' "no Deployment named sidecar"
drift "a container the Deployment lacks" docs/operating.md \
  'Run `kubectl set image deployment/public-information-sidecar web="$IMAGE"`.' "has no container web"
drift "another compose project" deploy/compose.yaml \
  '#   $ docker-compose -p other -f deploy/compose.yaml logs front' "compose project other"
drift "a compose service the file lacks" README.md \
  'Then `docker compose -p public-information exec -T database psql`.' "compose service database"
drift "a front container compose does not make" docs/deploying.md \
  'scripts/release publish dist --to deploy/dist --reload-container public-information_web_1' "--reload-container public-information_web_1"
