"""The open-data catalogue of a build with a citable snapshot, against the
running sidecar that serves that build and its data.

  open_data_live.py DIST BASE

DIST was built with `generate build --base-url BASE --snapshots ...`, and
BASE is a sidecar serving DIST on the database the snapshot was exported
from.

1. DataCite: every published `snapshots/*/datacite.json` validates
   against DataCite 4.5's JSON Schema (tests/e2e/schemas/datacite-v4.5.json,
   with the draft it declares).
2. Facts from the data: the observation dataset's temporal coverage in
   DCAT, schema.org and DataCite is the first and last observation day the
   API finds (`/api/observations-data.php` with `to`/`from` on each side of
   each day), its box is the extent of `/api/globe-data.php`, its counts
   are `/api/platform-stats.php`'s, and its last change is the snapshot's
   issue date; the data page states the same figures.
3. Every distribution URL of the catalogue (download, or access through a
   service) and every schema.org `contentUrl` answers 200 with the media
   type it is declared with.
4. The OGC API – Features is a `dcat:DataService` of the catalogue: its
   endpoint answers, its endpoint description is the OpenAPI 3.0 document,
   it serves the observation data, and the standards it conforms to are
   in its live `/conformance`; the AI catalog and the RFC 9727 API catalog
   list it.
5. The test of the test: copies with the hand-written start day of old,
   with a CSV distribution on the JSON URL, without the OGC service, and a
   DataCite record with a string publisher must each fail.

Exits non-zero with every failure listed.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import jsonschema

HERE = Path(__file__).resolve().parent
DATACITE_SCHEMA = HERE / "schemas" / "datacite-v4.5.json"
AI_CATALOG_SCHEMA = HERE / "schemas" / "ai-catalog.ours.schema.json"
IANA = "http://www.iana.org/assignments/media-types/"
OBSERVATIONS = "/api/observations-data.php"


def get(url: str, accept: str | None = None) -> tuple[int, str, bytes]:
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


def get_json(url: str):
    status, _, body = get(url)
    if status != 200:
        raise SystemExit(f"{url}: {status}")
    return json.loads(body)


def essence(media_type: str) -> str:
    return media_type.split(";")[0].strip().lower()


def ids(value) -> list[str]:
    """The `@id`s of a JSON-LD value (one node or a list)."""
    items = value if isinstance(value, list) else [value] if value is not None else []
    return [i["@id"] for i in items if isinstance(i, dict) and "@id" in i]


def nodes(doc: dict) -> dict[str, dict]:
    return {n["@id"]: n for n in doc["@graph"] if "@id" in n}


# --- DataCite ------------------------------------------------------------

def datacite_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(DATACITE_SCHEMA.read_text())
    cls = jsonschema.validators.validator_for(schema)
    checker = copy.deepcopy(cls.FORMAT_CHECKER)

    # The schema's own formats (named there, defined in DataCite's text):
    # a day, and an RKMS-ISO 8601 range of days.
    @checker.checks("date-range")
    def _range(v):
        if not isinstance(v, str) or "/" not in v:
            return False
        a, b = v.split("/", 1)
        return all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", x) and dt.date.fromisoformat(x) for x in (a, b) if x)

    return cls(schema, format_checker=checker)


def datacite_problems(record: dict, where: str) -> list[str]:
    return [
        f"{where}: DataCite 4.5: /{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in datacite_validator().iter_errors(record)
    ]


# --- facts -------------------------------------------------------------------

def api_facts(base: str) -> dict:
    stats = get_json(f"{base}/api/platform-stats.php")
    globe = get_json(f"{base}/api/globe-data.php")
    xs = [f["geometry"]["coordinates"][0] for f in globe["features"]]
    ys = [f["geometry"]["coordinates"][1] for f in globe["features"]]
    return {
        "observations": stats["observations"],
        "sites": stats["sites"],
        "bbox": [min(xs), min(ys), max(xs), max(ys)],
    }


def rows(base: str, **query) -> int:
    """How many observations (0, 1 or more: one page of 1) match."""
    data = get_json(f"{base}{OBSERVATIONS}?{urllib.parse.urlencode({**query, 'limit': 1})}")
    return len(data["data"])


def day_problems(base: str, start: str, end: str) -> list[str]:
    """`start` must be the first observation day, `end` the last."""
    out = []
    s, e = dt.date.fromisoformat(start), dt.date.fromisoformat(end)
    if rows(base, to=start) == 0:
        out.append(f"no observation on or before the stated start {start}")
    if rows(base, to=str(s - dt.timedelta(days=1))) != 0:
        out.append(f"observations before the stated start {start}")
    if rows(base, **{"from": end}) == 0:
        out.append(f"no observation on or after the stated end {end}")
    if rows(base, **{"from": str(e + dt.timedelta(days=1))}) != 0:
        out.append(f"observations after the stated end {end}")
    return out


def wkt_box(wkt: str) -> list[float]:
    pts = [tuple(map(float, p.split())) for p in re.findall(r"-?[\d.]+ -?[\d.]+", wkt)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return [min(xs), min(ys), max(xs), max(ys)]


def observation_dataset(doc: dict) -> dict | None:
    """The dataset with a distribution on the observations route."""
    graph = nodes(doc)
    for n in doc["@graph"]:
        if n.get("@type") != "dcat:Dataset":
            continue
        for d in ids(n.get("dcat:distribution")):
            dist = graph.get(d, {})
            urls = ids(dist.get("dcat:accessURL")) + ids(dist.get("dcat:downloadURL"))
            if any(OBSERVATIONS in u for u in urls):
                return n
    return None


def schema_dataset(html: str, iri: str) -> dict | None:
    for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S):
        doc = json.loads(block)
        for n in doc.get("@graph", [doc]):
            if n.get("@type") == "Dataset" and n.get("@id") == iri:
                return n
    return None


def fact_problems(doc: dict, base: str, dist: Path, api: dict, datacite: dict, day_check) -> list[str]:
    out = []
    ds = observation_dataset(doc)
    if ds is None:
        return ["the catalogue has no dataset on the observations route"]
    where = f"DCAT {ds['@id']}"
    period = ds.get("dct:temporal") or {}
    start = (period.get("dcat:startDate") or {}).get("@value")
    end = (period.get("dcat:endDate") or {}).get("@value")
    if not start or not end:
        return [f"{where}: no temporal coverage (start {start}, end {end})"]
    out += [f"{where}: {p}" for p in day_check(start, end)]
    boxes = [wkt_box(s["dcat:bbox"]["@value"]) for s in ds.get("dct:spatial", []) if "dcat:bbox" in s]
    if boxes != [api["bbox"]]:
        out.append(f"{where}: bounding box {boxes}, /api/globe-data.php's extent is {api['bbox']}")
    counts = f"{api['observations']} observations at {api['sites']} sites"
    # The description in the default language (a list when the catalogue
    # gives it in other languages too): the one the build adds the facts to.
    texts = ds["dct:description"] if isinstance(ds["dct:description"], list) else [ds["dct:description"]]
    desc = texts[0]["@value"]
    if counts not in desc or f"from {start} to {end}" not in desc:
        out.append(f"{where}: the description does not say {counts!r} from {start} to {end}: {desc!r}")
    issued = next((d["date"] for d in datacite["dates"] if d["dateType"] == "Issued"), None)
    modified = (ds.get("dct:modified") or {}).get("@value")
    if modified != issued:
        out.append(f"{where}: dct:modified {modified}, the newest snapshot was issued {issued}")
    catalog = next(n for n in doc["@graph"] if n.get("@type") == "dcat:Catalog")
    if issued and (catalog.get("dct:modified") or {}).get("@value", "") < issued:
        out.append(f"DCAT catalogue: dct:modified {catalog.get('dct:modified')} is older than its data ({issued})")
    # DataCite.
    collected = next((d["date"] for d in datacite["dates"] if d["dateType"] == "Collected"), None)
    if collected != f"{start}/{end}":
        out.append(f"DataCite: Collected {collected}, the catalogue states {start}/{end} (held to the API above)")
    box = (datacite.get("geoLocations") or [{}])[0].get("geoLocationBox", {})
    got = [box.get(k) for k in ("westBoundLongitude", "southBoundLatitude", "eastBoundLongitude", "northBoundLatitude")]
    if got != api["bbox"]:
        out.append(f"DataCite: geoLocationBox {got}, /api/globe-data.php's extent is {api['bbox']}")
    want_sizes = [f"{api['observations']} observations", f"{api['sites']} sites"]
    if datacite.get("sizes") != want_sizes:
        out.append(f"DataCite: sizes {datacite.get('sizes')}, /api/platform-stats.php counts {want_sizes}")
    # schema.org on the dataset's page, and the page itself.
    page = ids(ds.get("dcat:landingPage"))[0]
    html = (dist / page[len(base):].lstrip("/") / "index.html").read_text()
    sdo = schema_dataset(html, ds["@id"])
    if sdo is None:
        return out + [f"{page}: no schema.org Dataset {ds['@id']}"]
    if sdo.get("temporalCoverage") != f"{start}/{end}":
        out.append(f"schema.org: temporalCoverage {sdo.get('temporalCoverage')}, the API's days are {start}/{end}")
    if sdo.get("dateModified") != issued:
        out.append(f"schema.org: dateModified {sdo.get('dateModified')}, the snapshot was issued {issued}")
    if counts not in sdo.get("description", ""):
        out.append(f"schema.org: the description does not say {counts!r}")
    w, s, e, n = api["bbox"]
    places = sdo.get("spatialCoverage", [])
    places = places if isinstance(places, list) else [places]
    shapes = [p.get("geo", {}).get("box") for p in places if isinstance(p, dict)]
    if f"{s} {w} {n} {e}" not in shapes:
        out.append(f"schema.org: spatialCoverage {shapes}, the sites' box is {s} {w} {n} {e}")
    text = re.sub(r"<[^>]+>", " ", html)
    w, s, e, n = (repr(float(x)).removesuffix(".0") for x in api["bbox"])  # as Rust writes them
    for figure in (f"{api['observations']} observations", f"{api['sites']} sites", start, end,
                   f"longitudes {w} to {e} and latitudes {s} to {n}"):
        if figure not in text:
            out.append(f"{page}: the page does not state {figure!r}")
    return out


# --- distributions -------------------------------------------------------------

def distribution_urls(doc: dict, html_pages: dict[str, str]) -> list[tuple[str, str, str]]:
    """(where, url, declared media type) of every distribution."""
    out = []
    for n in doc["@graph"]:
        if n.get("@type") != "dcat:Distribution":
            continue
        media = ids(n.get("dcat:mediaType"))[0].removeprefix(IANA)
        if "dcat:downloadURL" in n:
            url = ids(n["dcat:downloadURL"])[0]
        else:
            url = ids(n.get("dcat:accessURL"))[0]
        out.append((f"DCAT {n['@id'].rsplit('#', 1)[-1]}", url, media))
    for page, html in html_pages.items():
        for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S):
            data = json.loads(block)
            for node in data.get("@graph", [data]):
                for d in node.get("distribution", []) if node.get("@type") == "Dataset" else []:
                    out.append((f"schema.org {page} {d.get('name')}", d["contentUrl"], d["encodingFormat"]))
    return out


def media_problems(entries: list[tuple[str, str, str]], fetch) -> list[str]:
    out = []
    for where, url, media in entries:
        status, ctype = fetch(url)
        if status != 200:
            out.append(f"{where}: {url} answered {status}")
        elif essence(ctype) != essence(media):
            out.append(f"{where}: {url} is declared {media} but answers {ctype}")
    return out


# --- the OGC API ---------------------------------------------------------------

def service_problems(doc: dict, dist: Path, base: str, fetch_json, fetch) -> list[str]:
    out = []
    graph = nodes(doc)
    services = [n for n in doc["@graph"] if n.get("@type") == "dcat:DataService"]
    features = [s for s in services if any(u.rstrip("/").endswith("/api/features") for u in ids(s.get("dcat:endpointURL")))]
    if len(features) != 1:
        return [f"DCAT: {len(features)} data services with the endpoint /api/features (want 1)"]
    svc = features[0]
    catalog = next(n for n in doc["@graph"] if n.get("@type") == "dcat:Catalog")
    if svc["@id"] not in ids(catalog.get("dcat:service")):
        out.append("DCAT: the catalogue does not list the OGC API service under dcat:service")
    endpoint = ids(svc["dcat:endpointURL"])[0]
    description = ids(svc.get("dcat:endpointDescription"))
    status, _ = fetch(endpoint)
    if status != 200:
        out.append(f"OGC service: endpoint {endpoint} answered {status}")
    if len(description) != 1:
        return out + ["OGC service: no single endpointDescription"]
    status, ctype = fetch(description[0])
    api = fetch_json(description[0])
    if status != 200 or not str(api.get("openapi", "")).startswith("3.0") or "version=3.0" not in ctype.replace(" ", ""):
        out.append(f"OGC service: endpointDescription {description[0]} is not the OpenAPI 3.0 document ({status}, {ctype})")
    live = set(fetch_json(endpoint.rstrip("/") + "/conformance").get("conformsTo", []))
    declared = set(ids(svc.get("dct:conformsTo")))
    classes = {c for c in declared if "/conf/" in c}
    if not classes or not classes <= live:
        out.append(f"OGC service: conformsTo {sorted(classes)} not all in the live /conformance {sorted(live)}")
    if not any("ogcapi-features-1" in c and "/doc/IS/" in c for c in declared):
        out.append("OGC service: conformsTo does not name the OGC API – Features standard")
    obs = observation_dataset(doc)
    if obs is None or obs["@id"] not in ids(svc.get("dcat:servesDataset")):
        out.append("OGC service: it does not serve the observation data (dcat:servesDataset)")
    through = [n for n in doc["@graph"] if n.get("@type") == "dcat:Distribution" and svc["@id"] in ids(n.get("dcat:accessService"))]
    if not through:
        out.append("OGC service: no distribution is accessed through it")
    # The AI catalog and the RFC 9727 API catalog list the same document.
    ai = json.loads((dist / ".well-known" / "ai-catalog.json").read_text())
    schema = json.loads(AI_CATALOG_SCHEMA.read_text())
    for e in jsonschema.validators.validator_for(schema)(schema).iter_errors(ai):
        out.append(f"AI catalog: /{'/'.join(map(str, e.absolute_path))}: {e.message}")
    if not any(e.get("url") == description[0] for e in ai.get("entries", [])):
        out.append(f"AI catalog: no entry for {description[0]}")
    linkset = json.loads((dist / ".well-known" / "api-catalog").read_text())["linkset"]
    if not any(
        c.get("anchor", "").rstrip("/") == endpoint.rstrip("/")
        and description[0] in [l["href"] for l in c.get("service-desc", [])]
        for c in linkset
    ):
        out.append(f"API catalog: no context anchored at {endpoint} with service-desc {description[0]}")
    return out


def main() -> int:
    dist, base = Path(sys.argv[1]), sys.argv[2].rstrip("/")
    doc = json.loads((dist / "catalog.jsonld").read_text())
    problems = []
    # 1. DataCite.
    records = sorted((dist / "snapshots").glob("*/datacite.json"))
    if not records:
        problems.append("no published snapshots/*/datacite.json")
    for r in records:
        problems += datacite_problems(json.loads(r.read_text()), str(r.relative_to(dist)))
    newest = json.loads(records[-1].read_text()) if records else {}
    print(f"open data (live): {len(records)} DataCite records against {DATACITE_SCHEMA.name}")
    # 2. Facts against the API.
    api = api_facts(base)
    print(f"open data (live): the API counts {api['observations']} observations at {api['sites']} sites, box {api['bbox']}")
    check_days = lambda a, b: day_problems(base, a, b)  # noqa: E731
    if newest:
        problems += fact_problems(doc, base, dist, api, newest, check_days)
    # 3. Media types.
    pages = {}
    for n in doc["@graph"]:
        if n.get("@type") == "dcat:Dataset":
            for p in ids(n.get("dcat:landingPage")):
                pages[p[len(base):]] = (dist / p[len(base):].lstrip("/") / "index.html").read_text()
    entries = distribution_urls(doc, pages)
    seen: dict[str, tuple[int, str]] = {}

    def fetch(url: str) -> tuple[int, str]:
        if url not in seen:
            status, ctype, _ = get(url)
            seen[url] = (status, ctype)
        return seen[url]

    problems += media_problems(entries, fetch)
    print(f"open data (live): {len(entries)} distributions fetched ({len(seen)} URLs)")
    # 4. The OGC API.
    problems += service_problems(doc, dist, base, get_json, fetch)

    # 5. The test of the test.
    if newest:
        stale = copy.deepcopy(doc)
        observation_dataset(stale)["dct:temporal"]["dcat:startDate"]["@value"] = "2018-04-01"
        if not any("start" in p for p in fact_problems(stale, base, dist, api, newest, check_days)):
            problems.append("test of the test: the hand-written start 2018-04-01 passed")
        broken = copy.deepcopy(newest)
        broken["publisher"] = broken["publisher"]["name"] if isinstance(broken["publisher"], dict) else broken["publisher"]
        if not datacite_problems(broken, "copy"):
            problems.append("test of the test: a DataCite record with a string publisher passed")
    csv_on_json = [(w, u.split("?")[0], m) for w, u, m in entries if m == "text/csv" and OBSERVATIONS in u][:1]
    if not csv_on_json or not media_problems(csv_on_json, fetch):
        problems.append("test of the test: a CSV distribution on the JSON URL passed")
    without = copy.deepcopy(doc)
    without["@graph"] = [n for n in without["@graph"] if not (n.get("@type") == "dcat:DataService" and "features" in json.dumps(n.get("dcat:endpointURL")))]
    if not service_problems(without, dist, base, get_json, fetch):
        problems.append("test of the test: a catalogue without the OGC service passed")

    for p in problems:
        print("FAIL", p)
    if not problems:
        print("open data (live): ok (DataCite 4.5, facts equal to the API's, every distribution's media type, the OGC service; broken copies caught)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
