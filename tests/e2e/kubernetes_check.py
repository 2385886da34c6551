"""Kubernetes manifests against the Kubernetes JSON schemas, offline.

    python3 tests/e2e/kubernetes_check.py SCHEMA_DIR FILE...

Every document of every FILE (multi-document YAML) is validated against
SCHEMA_DIR/<kind>[-<group>]-<version>.json, the strict schemas (an unknown
or misspelled field is an error), JSON Schema 2020-12 with formats checked.
A kind without a schema there is an error too, so nothing passes unchecked.

Then the sidecar's own rules, which no schema knows: two or more replicas
behind a PodDisruptionBudget and a Service whose selectors match the pods,
the probes on /readyz and /healthz, the non-root read-only security
context, a grace period longer than the preStop pause plus the sidecar's
shutdown timeout, memory requests and limits, and every Secret key the
Deployment names present in the Secret given beside it.

Exits 1 with one line per problem.
"""

import json
import os
import sys

import jsonschema
import yaml


def schema_file(doc):
    api, kind = doc.get("apiVersion", ""), doc.get("kind", "")
    group, _, version = api.rpartition("/")
    parts = [kind.lower()] + ([group.split(".")[0]] if group else []) + [version]
    return "-".join(parts) + ".json"


def validate(schema_dir, path, index, doc, problems):
    name = schema_file(doc)
    where = f"{path}#{index} {doc.get('kind')} {doc.get('metadata', {}).get('name')}"
    full = os.path.join(schema_dir, name)
    if not os.path.isfile(full):
        problems.append(f"{where}: no schema {name} in {schema_dir}")
        return
    with open(full) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        at = ".".join(str(p) for p in e.absolute_path) or "(document)"
        problems.append(f"{where}: {at}: {e.message}")


def env_of(container):
    return {e["name"]: e for e in container.get("env", [])}


def rules(docs, problems):
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d.get("kind"), []).append(d)

    def need(cond, msg):
        if not cond:
            problems.append(f"rule: {msg}")

    deployments = by_kind.get("Deployment", [])
    need(len(deployments) == 1, "exactly one Deployment")
    if not deployments:
        return
    dep = deployments[0]
    spec = dep["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"].get("labels", {})
    need(spec.get("replicas", 1) >= 2, "two or more replicas")
    need(spec["selector"].get("matchLabels", {}).items() <= labels.items(),
         "the Deployment's selector matches its pods")
    for kind in ("Service", "PodDisruptionBudget"):
        found = by_kind.get(kind, [])
        need(len(found) == 1, f"exactly one {kind}")
        for d in found:
            sel = d["spec"]["selector"]
            sel = sel.get("matchLabels", {}) if kind == "PodDisruptionBudget" else sel
            need(sel and sel.items() <= labels.items(), f"the {kind}'s selector matches the pods")
    for pdb in by_kind.get("PodDisruptionBudget", []):
        need(pdb["spec"].get("minAvailable") == 1, "the PodDisruptionBudget keeps minAvailable 1")

    psc = pod.get("securityContext", {})
    containers = pod["containers"]
    need(len(containers) == 1, "one container")
    c = containers[0]
    sc = c.get("securityContext", {})
    for ctx, what in ((psc, "pod"), (sc, "container")):
        need(ctx.get("runAsNonRoot") is True and ctx.get("runAsUser") == 65532,
             f"{what} runs as non-root user 65532")
        need(ctx.get("seccompProfile", {}).get("type") == "RuntimeDefault",
             f"{what} seccomp profile RuntimeDefault")
    need(sc.get("readOnlyRootFilesystem") is True, "read-only root file system")
    need(sc.get("allowPrivilegeEscalation") is False, "no privilege escalation")
    need(sc.get("capabilities", {}).get("drop") == ["ALL"], "every capability dropped")

    port = {p.get("name"): p["containerPort"] for p in c.get("ports", [])}
    need(port.get("http") == 8080, "container port http = 8080")
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        get = c.get(probe, {}).get("httpGet", {})
        need(get.get("path") == path and get.get("port") in ("http", 8080),
             f"{probe} is an HTTP GET of {path} on the sidecar's port")

    env = env_of(c)
    for name, value in (("SIDECAR_LISTEN", "0.0.0.0:8080"), ("SIDECAR_LOG_FORMAT", "json")):
        need(env.get(name, {}).get("value") == value, f"{name}={value}")
    secret_keys = {}
    for name in ("SIDECAR_DATABASE", "SIDECAR_SMTP_URL"):
        ref = env.get(name, {}).get("valueFrom", {}).get("secretKeyRef")
        need(ref is not None, f"{name} comes from a Secret")
        if ref:
            secret_keys.setdefault(ref["name"], set()).add(ref["key"])
    key_file = env.get("SIDECAR_CONTACT_KEY_FILE", {}).get("value", "")
    mounts = {m["name"]: m for m in c.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    mounted = [m for m in mounts.values() if key_file.startswith(m["mountPath"].rstrip("/") + "/")]
    need(len(mounted) == 1, "SIDECAR_CONTACT_KEY_FILE lies in a mounted volume")
    for m in mounted:
        secret = volumes.get(m["name"], {}).get("secret")
        need(secret is not None and m.get("readOnly") is True,
             "the contact key is a read-only mount of a Secret")
        if secret:
            rel = key_file[len(m["mountPath"].rstrip("/")) + 1:]
            items = {i["path"]: i["key"] for i in secret.get("items", [])}
            need(rel in items, f"the Secret volume has the item {rel}")
            if rel in items:
                secret_keys.setdefault(secret["secretName"], set()).add(items[rel])
    tmp = [m for m in mounts.values() if m["mountPath"] == "/tmp"]
    need(len(tmp) == 1 and "emptyDir" in volumes.get(tmp[0]["name"], {}), "an emptyDir at /tmp")

    shutdown_ms = int(env.get("SIDECAR_SHUTDOWN_TIMEOUT_MS", {}).get("value", "30000"))
    pause = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
    grace = pod.get("terminationGracePeriodSeconds", 30)
    need(grace * 1000 > pause * 1000 + shutdown_ms,
         f"terminationGracePeriodSeconds {grace} s exceeds the preStop pause {pause} s "
         f"plus SIDECAR_SHUTDOWN_TIMEOUT_MS {shutdown_ms} ms")

    res = c.get("resources", {})
    for k in ("requests", "limits"):
        need("memory" in res.get(k, {}), f"a memory {k[:-1]}")

    secrets = {d["metadata"]["name"]: d for d in by_kind.get("Secret", [])}
    for name, keys in secret_keys.items():
        s = secrets.get(name)
        need(s is not None, f"the Secret {name} is given")
        if s:
            have = set(s.get("stringData", {})) | set(s.get("data", {}))
            need(keys <= have, f"the Secret {name} has the keys {sorted(keys)}")


def main():
    schema_dir, files = sys.argv[1], sys.argv[2:]
    problems, docs = [], []
    for path in files:
        with open(path) as f:
            for i, doc in enumerate(yaml.safe_load_all(f)):
                if doc is None:
                    continue
                validate(schema_dir, path, i, doc, problems)
                docs.append(doc)
    if not problems:
        try:
            rules(docs, problems)
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            problems.append(f"rule: the manifests lack {e!r}")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"kubernetes: {len(docs)} documents valid against {schema_dir}, the sidecar's rules hold")


if __name__ == "__main__":
    main()
