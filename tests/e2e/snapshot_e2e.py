"""The checks of tests/e2e/snapshot.sh that read files and HTTP answers.

  snapshot_e2e.py counts SNAPSHOT_DIR API_BASE
      observations.csv holds exactly the rows of every page of
      /api/observations-data.php, field for field; sites.csv exactly the
      sites of /api/globe-data.php.
  snapshot_e2e.py break-schema CSV
      writes a value that is no number into the first row's `value`.
  snapshot_e2e.py published SNAPSHOT_DIR SITE_BASE
      the data page lists the snapshot (version, row counts, citation,
      every file with its SHA-256) and the site serves every file byte for
      byte, with a strong ETag.
"""

import csv
import hashlib
import html
import json
import pathlib
import sys
import urllib.parse
import urllib.request


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.headers, r.read()


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def api_observations(base):
    out, cursor, pages = [], None, 0
    while True:
        q = {"limit": "1000"}
        if cursor:
            q["cursor"] = cursor
        status, _, body = get(f"{base}/api/observations-data.php?{urllib.parse.urlencode(q)}")
        assert status == 200, status
        page = json.loads(body)
        out.extend(page["data"])
        pages += 1
        cursor = page.get("next_cursor")
        if not cursor:
            return out, pages


def counts(snap, base):
    snap = pathlib.Path(snap)
    csv_rows = rows(snap / "observations.csv")
    api_rows, pages = api_observations(base)
    assert len(csv_rows) == len(api_rows), (len(csv_rows), len(api_rows))
    by_id = {r["id"]: r for r in csv_rows}
    assert len(by_id) == len(csv_rows), "duplicate ids in observations.csv"
    for a in api_rows:
        c = by_id[str(a["id"])]
        for k in ("site_id", "site_name", "country", "water_body_type", "observed_at",
                  "parameter", "unit", "method", "quality_flag"):
            assert c[k] == a[k], (a["id"], k, c[k], a[k])
        for k in ("value", "latitude", "longitude"):
            assert float(c[k]) == a[k], (a["id"], k, c[k], a[k])
    status, _, body = get(f"{base}/api/globe-data.php")
    assert status == 200, status
    features = json.loads(body)["features"]
    sites = rows(snap / "sites.csv")
    assert [s["site_id"] for s in sites] == sorted(f["id"] for f in features)
    by_site = {f["id"]: f for f in features}
    for s in sites:
        f = by_site[s["site_id"]]
        assert int(s["observations"]) == f["properties"]["observations"], s["site_id"]
        assert [float(s["longitude"]), float(s["latitude"])] == f["geometry"]["coordinates"]
    meta = json.loads((snap / "datacite.json").read_text())
    assert meta["sizes"] == [f"{len(api_rows)} observations", f"{len(features)} sites"], meta["sizes"]
    print(f"snapshot e2e: {len(csv_rows)} observations = the API's {len(api_rows)} "
          f"({pages} pages, field for field); {len(sites)} sites = the globe's {len(features)}")


def break_schema(path):
    path = pathlib.Path(path)
    lines = path.read_bytes().split(b"\r\n")
    header = lines[0].split(b",")
    i = header.index(b"value")
    # The first row has no quoted commas before `value` in the sample data.
    cells = lines[1].split(b",")
    assert len(cells) == len(header), "the first row needs quoting; pick another"
    cells[i] = b"not-a-number"
    lines[1] = b",".join(cells)
    path.write_bytes(b"\r\n".join(lines))


def published(snap, base):
    snap = pathlib.Path(snap)
    version = snap.name
    meta = json.loads((snap / "datacite.json").read_text())
    status, _, body = get(f"{base}/docs/data/")
    assert status == 200, status
    page = html.unescape(body.decode())
    assert f"Version {version}" in page, "the data page does not list the version"
    for size in meta["sizes"]:
        assert size in page, size
    url = meta["url"]
    citation = (f"{meta['creators'][0]['name']} ({meta['publicationYear']}): "
                f"{meta['titles'][0]['title']}. Version {version}. {meta['publisher']['name']}. Dataset. {url}")
    assert citation in page, f"the data page does not cite {citation!r}"
    names = [l[66:] for l in (snap / "SHA256SUMS").read_text().splitlines()] + ["SHA256SUMS"]
    for name in names:
        local = (snap / name).read_bytes()
        assert hashlib.sha256(local).hexdigest() in page, f"{name}: SHA-256 not on the page"
        status, headers, served = get(f"{base}/snapshots/{version}/{name}")
        assert status == 200 and served == local, f"{name}: served bytes differ"
        etag = headers.get("ETag", "")
        assert etag.startswith('"'), f"{name}: no strong ETag ({etag!r})"
    _, _, twin = get(f"{base}/docs/data/index.md")
    assert f"Version {version}" in twin.decode(), "the Markdown twin does not list the snapshot"
    print(f"snapshot e2e: the data page lists version {version} with its citation and "
          f"{len(names)} files; the site serves each byte for byte")


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    {"counts": counts, "break-schema": break_schema, "published": published}[cmd](*args)
