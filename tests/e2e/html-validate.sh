#!/usr/bin/env bash
# html-validate (pinned in tests/e2e/package-lock.json, run with its Node 22)
# over every HTML page of a built site, with tests/e2e/htmlvalidate.json
# (html-validate:recommended). JSON has no comments, so the reasons for the
# config's departures from the recommended set are written here:
#   prefer-native-element excludes "listbox": the header search is an ARIA
#     combobox whose popup is a listbox of rich results (title, section,
#     summary); a native <select> cannot show them or filter as one types.
#
#   tests/e2e/html-validate.sh DIST_DIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dist=${1:?usage: tests/e2e/html-validate.sh DIST_DIR}
node=$(npm_e2e_ensure)
mapfile -d '' pages < <(find "$dist" -type f -name '*.html' -print0 | sort -z)
[ ${#pages[@]} -gt 0 ] || { echo "html-validate: no HTML files under $dist" >&2; exit 1; }
echo "html-validate: ${#pages[@]} pages under $dist with html-validate $("$node" -p 'require("./tests/e2e/node_modules/html-validate/package.json").version')"
timeout "${HTML_VALIDATE_TIMEOUT:-300}" "$node" tests/e2e/node_modules/html-validate/bin/html-validate.mjs \
  --config tests/e2e/htmlvalidate.json --formatter stylish "${pages[@]}"
echo "html-validate: all ${#pages[@]} pages valid"
