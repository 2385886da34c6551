#!/usr/bin/env bash
# Outside checkers over a built site, each against a rule set or schema that
# is not ours (the tools are pinned in tests/e2e/package-lock.json and run with
# the Node 22 they ship; xmllint comes from Debian's libxml2-utils, jing from
# Debian's jing):
#   1. Redocly CLI `lint` (recommended rules, tests/e2e/redocly.yaml) on
#      openapi.json: no error.
#   2. Spectral with spectral:oas and the OWASP API Security ruleset
#      (tests/e2e/spectral.yaml) on openapi.json: no error.
#   3. The AI catalog and the MCP server card against JSON Schemas (ajv,
#      draft 2020-12, formats checked). The server card has a published schema
#      (tests/e2e/schemas/mcp-server-card.schema.json). The AI catalog draft
#      publishes none, so it is checked against our own encoding of the
#      members the draft's text defines (ai-catalog.ours.schema.json).
#   4. sitemap.xml against the sitemaps.org XSD and its xhtml:link
#      alternates (xmllint --schema).
#   5. feed.xml against RFC 4287: well-formed, then the RFC's RELAX NG schema
#      (Appendix B, tests/e2e/schemas/atom.rnc) with jing in compact syntax,
#      then every rule of the RFC's schema and prose that a feed can break
#      (tests/e2e/atom_check.py: the schema's Schematron rules, which jing
#      skips as annotations, and the prose rules, each proven on a broken
#      copy first).
# The reasons for every rule the configurations change are written beside the
# rule there; tests/e2e/schemas/README.md names where each schema comes from.
# Each schema check first shows that it rejects a broken copy of its document,
# so a schema that accepts everything cannot pass unnoticed.
#
#   tests/e2e/outside-linters.sh DIST_DIR
# OUTSIDE_LINTERS_TIMEOUT bounds each tool run (seconds, default 300).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/outside-linters.sh DIST_DIR}
limit=${OUTSIDE_LINTERS_TIMEOUT:-300}
for f in openapi.json .well-known/ai-catalog.json sitemap.xml feed.xml; do
  [ -f "$dist/$f" ] || { echo "outside-linters: $dist/$f is missing" >&2; exit 1; }
done

node=$(npm_e2e_ensure)
apt_ensure libxml2-utils
apt_ensure jing
modules=tests/e2e/node_modules
schemas=tests/e2e/schemas
version() { "$node" -p "require('./$modules/$1/package.json').version"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=()
fail() {
  echo "outside-linters: FAILED: $*" >&2
  failed+=("$1")
}

# --- 1. Redocly -------------------------------------------------------------
echo "== redocly $(version @redocly/cli) lint (recommended, tests/e2e/redocly.yaml)"
if ! REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_COLOR=1 \
  timeout "$limit" "$node" "$modules/@redocly/cli/bin/cli.js" lint \
  --config tests/e2e/redocly.yaml --format stylish "$dist/openapi.json"; then
  fail "redocly" "errors in $dist/openapi.json (see above)"
fi

# --- 2. Spectral + OWASP ----------------------------------------------------
echo "== spectral $(version @stoplight/spectral-cli) with spectral:oas and the OWASP ruleset $(version @stoplight/spectral-owasp-ruleset)"
if ! timeout "$limit" "$node" "$modules/@stoplight/spectral-cli/dist/index.js" lint \
  --ruleset tests/e2e/spectral.yaml --fail-severity error --format stylish \
  "$dist/openapi.json"; then
  fail "spectral" "errors in $dist/openapi.json (see above)"
fi

# --- 3. JSON Schemas --------------------------------------------------------
ajv() {
  timeout "$limit" "$node" "$modules/ajv-cli/dist/index.js" validate --spec=draft2020 \
    --all-errors --errors=text -c ajv-formats "$@"
}
# check NAME SCHEMA DOCUMENT BREAK [LABEL]: DOCUMENT must validate, and a copy
# of it changed by the JavaScript expression BREAK (on `d`) must not. LABEL
# names the schema in messages (default: SCHEMA).
check() {
  local name=$1 schema=$2 doc=$3 break=$4 label=${5:-$2} broken
  broken="$work/broken-$name.json"
  "$node" -e 'const fs = require("fs"); const d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    (new Function("d", process.argv[3]))(d); fs.writeFileSync(process.argv[2], JSON.stringify(d));' \
    "$doc" "$broken" "$break"
  if ajv -s "$schema" -d "$broken" >/dev/null 2>&1; then
    fail "$name" "the schema accepts a broken copy ($break): it checks nothing"
  elif ! ajv -s "$schema" -d "$doc"; then
    fail "$name" "$doc does not match $label"
  fi
}

echo "== ajv-cli $(version ajv-cli) (ajv $(version ajv), ajv-formats $(version ajv-formats)), JSON Schema 2020-12"
catalog="$dist/.well-known/ai-catalog.json"
check ai-catalog "$schemas/ai-catalog.ours.schema.json" "$catalog" 'delete d.entries[0].type'

# The card is found the way a client finds it: through the catalog's entry of
# type application/mcp-server-card+json.
card_path=$("$node" -e 'const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const e = (c.entries || []).find((e) => e.type === "application/mcp-server-card+json");
  if (e && e.url) console.log(new URL(e.url).pathname);' "$catalog")
if [ -z "$card_path" ]; then
  fail "mcp-server-card" "the AI catalog lists no application/mcp-server-card+json entry with a url"
elif [ ! -f "$dist$card_path" ]; then
  fail "mcp-server-card" "the AI catalog points at $card_path, which is not in $dist"
else
  # The published file keeps every shape under $defs; the card is ServerCard.
  card_schema="$work/mcp-server-card.json"
  "$node" -e 'const fs = require("fs"); const s = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    s.$ref = "#/$defs/ServerCard"; fs.writeFileSync(process.argv[2], JSON.stringify(s));' \
    "$schemas/mcp-server-card.schema.json" "$card_schema"
  check mcp-server-card "$card_schema" "$dist$card_path" 'delete d.name' \
    "$schemas/mcp-server-card.schema.json (#/\$defs/ServerCard)"
fi

# --- 4. sitemaps.org XSD ----------------------------------------------------
# With the alternate-language links (xhtml:link) a bilingual site carries:
# the sitemaps.org schema validates other namespaces' elements strictly, so
# the wrapper adds the declaration of that one element (ours).
sitemap_xsd="$schemas/sitemap-with-alternates.ours.xsd"
echo "== xmllint (libxml2-utils $(dpkg-query -W -f='${Version}' libxml2-utils)) --schema sitemap.xsd (+ xhtml:link)"
sed '0,/<\/loc>/s#</loc>#</loc><changefreq>sometimes</changefreq>#' "$dist/sitemap.xml" >"$work/broken-sitemap.xml"
sed '0,/hreflang="[^"]*"/s//hreflang="Dutch"/' "$dist/sitemap.xml" >"$work/broken-alternate.xml"
if timeout "$limit" xmllint --nonet --noout --schema "$sitemap_xsd" "$work/broken-sitemap.xml" >/dev/null 2>&1; then
  fail "sitemap" "the XSD accepts a broken copy of sitemap.xml: it checks nothing"
elif ! grep -q 'hreflang=' "$dist/sitemap.xml"; then
  fail "sitemap" "$dist/sitemap.xml names no alternate language: the sample site is bilingual"
elif timeout "$limit" xmllint --nonet --noout --schema "$sitemap_xsd" "$work/broken-alternate.xml" >/dev/null 2>&1; then
  fail "sitemap" "the XSD accepts an alternate link with hreflang=\"Dutch\": it checks no xhtml:link"
elif ! timeout "$limit" xmllint --nonet --noout --schema "$sitemap_xsd" "$dist/sitemap.xml"; then
  fail "sitemap" "$dist/sitemap.xml does not match the sitemaps.org schema with xhtml:link"
fi

# --- 5. Atom feed -----------------------------------------------------------
# jing_rnc DOCUMENT: jing, compact syntax, against RFC 4287's schema. Debian's
# jing wrapper warns on every run about optional jars it does not ship; those
# lines are dropped, everything else jing says is kept.
jing_rnc() {
  local rc=0
  timeout "$limit" jing -c "$schemas/atom.rnc" "$1" 2>"$work/jing.err" || rc=$?
  grep -v '^\[warning\] [^:]*: Unable to locate ' "$work/jing.err" >&2 || true
  return "$rc"
}

echo "== feed.xml against RFC 4287 (well-formed by xmllint; the RFC's RELAX NG schema by jing $(dpkg-query -W -f='${Version}' jing) -c atom.rnc; then tests/e2e/atom_check.py, which first proves each rule on broken copies)"
base=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["servers"][0]["url"].rstrip("/"))' "$dist/openapi.json")
# The broken copy has no atom:id in the feed, which the schema requires.
sed '0,/<id>/{/<id>/d}' "$dist/feed.xml" >"$work/broken-feed.xml"
if ! timeout "$limit" xmllint --nonet --noout "$dist/feed.xml"; then
  fail "feed" "$dist/feed.xml is not well-formed XML"
else
  if jing_rnc "$work/broken-feed.xml" >/dev/null 2>&1; then
    fail "feed" "the schema accepts a broken copy of feed.xml (its atom:id removed): it checks nothing"
  elif ! jing_rnc "$dist/feed.xml"; then
    fail "feed" "$dist/feed.xml does not match the RELAX NG schema of RFC 4287"
  else
    echo "$dist/feed.xml matches $schemas/atom.rnc (and a copy without atom:id does not)"
  fi
  if ! timeout "$limit" python3 tests/e2e/atom_check.py --self-test "$dist/feed.xml" "$base"; then
    fail "feed" "$dist/feed.xml breaks RFC 4287 (see above)"
  fi
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "outside-linters: ${#failed[@]} check(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "outside-linters: redocly, spectral (OWASP), AI catalog, MCP server card, sitemap and Atom feed (RELAX NG schema and rules) all pass"
