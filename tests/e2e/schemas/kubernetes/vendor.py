"""Writes the self-contained Kubernetes schemas kept here from the wheel of
PyPI's kubernetes-validate, which ships each Kubernetes version's strict
schemas as one file per kind with their definitions in a shared
_definitions.json: each kind's schema is written with the definitions it
reaches copied under its own $defs (references rewritten to them), nothing
else changed.

    python3 -m pip download --no-deps kubernetes-validate==1.37.0 -d /tmp/kv
    python3 tests/e2e/schemas/kubernetes/vendor.py /tmp/kv/kubernetes_validate-1.37.0-py3-none-any.whl \
        1.37.0 tests/e2e/schemas/kubernetes/v1.37.0 \
        deployment-apps-v1.json service-v1.json poddisruptionbudget-policy-v1.json secret-v1.json
"""

import copy
import json
import os
import re
import sys
import zipfile

REF = re.compile(r"^(?:/api/_definitions\.json)?#/\$defs/(.+)$")


def main():
    wheel, version, out, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    z = zipfile.ZipFile(wheel)
    base = f"kubernetes_validate/kubernetes-json-schema/v{version}-local-strict/"
    defs = json.loads(z.read(base + "_definitions.json"))["$defs"]

    def walk(node, found):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "$ref":
                    m = REF.match(v)
                    if not m:
                        sys.exit(f"unexpected $ref {v}")
                    name = m.group(1)
                    node[k] = "#/$defs/" + name
                    if name not in found:
                        found[name] = None
                        found[name] = walk(copy.deepcopy(defs[name]), found)
                else:
                    walk(v, found)
        elif isinstance(node, list):
            for v in node:
                walk(v, found)
        return node

    os.makedirs(out, exist_ok=True)
    for name in names:
        schema = json.loads(z.read(base + name))
        found = {}
        walk(schema, found)
        schema["$defs"] = dict(sorted(found.items()))
        with open(os.path.join(out, name), "w") as f:
            json.dump(schema, f, indent=1)
            f.write("\n")
        print(f"{name}: {len(found)} definitions")


if __name__ == "__main__":
    main()
