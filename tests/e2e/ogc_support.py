"""What the OGC API - Features scripts share (tests/e2e/ogc_features.py,
tests/e2e/ogc_clients.py): the sidecar's base URL from the command line,
the list of failed checks, GDAL run with its HTTP debug log, and the
REST routes the collections are compared with."""

import json
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

BASE = sys.argv[1].rstrip("/")
LANDING = f"OAPIF:{BASE}/api/features"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def gdal(args):
    """Runs a GDAL tool with its HTTP debug log; (stdout, the URLs it
    fetched, the error lines)."""
    p = subprocess.run(args + ["--debug", "on"], capture_output=True, text=True, timeout=300)
    urls = [l.split("Fetch(", 1)[1].rstrip(")") for l in p.stderr.splitlines() if "HTTP: Fetch(" in l]
    errors = [l for l in p.stderr.splitlines() if l.startswith("ERROR")]
    if p.returncode != 0:
        errors.append(f"exit status {p.returncode}")
    return p.stdout, urls, errors


def export(layer, *extra):
    out, urls, errors = gdal(["ogr2ogr", "-f", "GeoJSON", "/vsistdout/", LANDING, layer, *extra])
    return json.loads(out)["features"] if out.strip() else [], urls, errors


def http(path, accept="application/json", headers=None):
    req = urllib.request.Request(BASE + path, headers={"Accept": accept, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def get_json(path):
    status, _, body = http(path)
    assert status == 200, (path, status, body[:300])
    return json.loads(body)


def rest_observations(**query):
    """Every observation /api/observations-data.php returns for `query`."""
    rows, cursor = [], None
    while True:
        q = dict(query, limit=1000, **({"cursor": cursor} if cursor else {}))
        page = get_json("/api/observations-data.php?" + urllib.parse.urlencode(q))
        rows += page["data"]
        cursor = page["next_cursor"]
        if not cursor:
            return rows
