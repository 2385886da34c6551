#!/usr/bin/env python3
"""The OGC API - Features routes through two real clients, GDAL's OAPIF
driver (ogrinfo, ogr2ogr) and OWSLib, each answer compared with the
service's own REST routes (/api/globe-data.php, /api/observations-data.php).

  tests/e2e/ogc_clients.py BASE_URL

GDAL:
- `ogrinfo -so` on each collection takes at most 3 HTTP requests (the
  driver reads the layer's size from `numberMatched`) and reports the
  count the REST routes give;
- a `-where` on `observed_at` in GDAL's own date form ('YYYY/MM/DD',
  alone and as a range) reaches the server as `datetime` and returns the
  observations of /api/observations-data.php for the same window;
- a `-where` equality on a queryable reaches the server as a query
  parameter (`parameter=nitrate`);
- a `-spat` box on the observations returns those of the REST route.

OWSLib:
- the collections, and each collection's queryables (a JSON Schema);
- items with a 4-number bbox, a 6-number bbox and a box across the
  antimeridian, against the globe's sites;
- open datetime intervals and a property filter, their numberMatched
  against the REST routes.
"""

import datetime
import json
import sys
import urllib.error
import urllib.request

from owslib.ogcapi.features import Features

from ogc_support import BASE, LANDING, check, export, failures, gdal, get_json, rest_observations


def day_before(day):
    return (datetime.date.fromisoformat(day) - datetime.timedelta(days=1)).isoformat()


globe = get_json("/api/globe-data.php")["features"]
sites = {f["id"]: tuple(f["geometry"]["coordinates"]) for f in globe}
total = sum(f["properties"]["observations"] for f in globe)
latest = max(f["properties"]["latest_observed_at"] for f in globe)[:10]
start = day_before(day_before(latest))  # three days of observations
print(f"the globe: {len(sites)} sites, {total} observations, the latest on {latest}")
key = lambda p: (p["site_id"], p["observed_at"], p["parameter"])

# --- GDAL ----------------------------------------------------------------
# The command a QGIS user's first look amounts to: the layer's summary.
for layer, want in [("sites", len(sites)), ("observations", total)]:
    out, urls, errors = gdal(["ogrinfo", "-ro", "-so", LANDING, layer])
    count = next((l.split(":")[1].strip() for l in out.splitlines() if l.startswith("Feature Count:")), None)
    check(not errors and count == str(want), f"ogrinfo -so {layer}: Feature Count {count}, the REST routes {want} ({errors[:2]})")
    check(len(urls) <= 3, f"ogrinfo -so {layer}: {len(urls)} HTTP requests (at most 3): {urls[:4]}")

# A date filter as GDAL users write it, alone and as a range.
since = rest_observations(**{"from": start})
slash = start.replace("-", "/")
obs, urls, errors = export("observations", "-where", f"observed_at >= '{slash}'", "-oo", "PAGE_SIZE=200")
sent = [u for u in urls if "datetime=" in u]
check(not errors and sent, f"-where observed_at >= '{slash}': sent as datetime ({sent[:1]}, {errors[:2]})")
check(0 < len(since) and sorted(key(f["properties"]) for f in obs) == sorted(key(r) for r in since),
      f"-where observed_at >= '{slash}': {len(obs)} observations, /api/observations-data.php has {len(since)}")
end = day_before(latest)
window = [r for r in since if r["observed_at"] <= f"{end}T00:00:00Z"]
obs, urls, errors = export("observations", "-where",
                           f"observed_at >= '{slash}' AND observed_at <= '{end.replace('-', '/')}'",
                           "-oo", "PAGE_SIZE=200")
sent = [u for u in urls if "datetime=" in u]
check(not errors and sent and "%2F.." not in sent[0], f"a date range: sent as one closed datetime interval ({sent[:1]})")
check(0 < len(window) and sorted(key(f["properties"]) for f in obs) == sorted(key(r) for r in window),
      f"a date range: {len(obs)} observations, /api/observations-data.php has {len(window)}")

# A queryable in -where: a query parameter, not a client-side filter.
nitrate = [r for r in since if r["parameter"] == "nitrate"]
obs, urls, errors = export("observations", "-where", f"parameter = 'nitrate' AND observed_at >= '{slash}'",
                           "-oo", "PAGE_SIZE=200")
sent = [u for u in urls if "parameter=nitrate" in u]
check(not errors and sent, f"-where parameter = 'nitrate': sent as parameter=nitrate ({[u for u in urls if 'items' in u][-1:]})")
check(0 < len(nitrate) and sorted(key(f["properties"]) for f in obs) == sorted(key(r) for r in nitrate),
      f"-where parameter = 'nitrate': {len(obs)} observations, /api/observations-data.php has {len(nitrate)}")

# A -spat box on the observations.
w, s, e, n = 3.3, 50.7, 7.3, 53.6
boxed_rest = rest_observations(**{"from": start, "bbox": f"{w},{s},{e},{n}"})
obs, urls, errors = export("observations", "-spat", str(w), str(s), str(e), str(n),
                           "-where", f"observed_at >= '{slash}'", "-oo", "PAGE_SIZE=200")
check(not errors and any("bbox=" in u and "datetime=" in u for u in urls), "-spat with -where: sent as bbox and datetime")
check(0 < len(boxed_rest) < len(since) and sorted(key(f["properties"]) for f in obs) == sorted(key(r) for r in boxed_rest),
      f"-spat: {len(obs)} observations, /api/observations-data.php has {len(boxed_rest)} in the box")

# --- OWSLib --------------------------------------------------------------
api = Features(f"{BASE}/api/features")
ids = sorted(c["id"] for c in api.collections()["collections"])
check(ids == ["observations", "sites"], f"OWSLib: the collections {ids}")
try:
    q = api.collection_queryables("observations")
    check(q.get("type") == "object" and q.get("$id", "").endswith("/collections/observations/queryables")
          and {"parameter", "site_id", "country", "water_body_type", "quality_flag"} <= set(q.get("properties", {})),
          f"OWSLib: the observations' queryables {sorted(q.get('properties', {}))}")
except RuntimeError as err:
    check(False, f"OWSLib: the observations' queryables ({str(err)[:120]})")


def items(collection, **kw):
    """Every feature of a query, page by page, and the first page's
    numberMatched; None when the server refuses it."""
    try:
        page = api.collection_items(collection, limit=1000, **kw)
    except RuntimeError as err:
        print(f"     {collection} {kw}: {str(err)[:160]}")
        return None, None
    features, matched = list(page["features"]), page.get("numberMatched")
    while nxt := next((l["href"] for l in page["links"] if l["rel"] == "next"), None):
        page = json.loads(urllib.request.urlopen(nxt, timeout=30).read())
        features += page["features"]
    return features, matched


def in_box(w, s, e, n):
    lon_ok = (lambda x: x >= w or x <= e) if w > e else (lambda x: w <= x <= e)
    return {k for k, (x, y) in sites.items() if lon_ok(x) and s <= y <= n}


for label, bbox, box in [
    ("4 numbers", [3.3, 50.7, 7.3, 53.6], (3.3, 50.7, 7.3, 53.6)),
    ("6 numbers", [3.3, 50.7, -100, 7.3, 53.6, 3000], (3.3, 50.7, 7.3, 53.6)),
    ("across the antimeridian", [15, 40, 5, 60], (15, 40, 5, 60)),
]:
    got, matched = items("sites", bbox=bbox)
    want = in_box(*box)
    ok = got is not None and {f["id"] for f in got} == want and matched == len(want)
    check(ok and 0 < len(want) < len(sites),
          f"OWSLib bbox {label} {bbox}: {None if got is None else len(got)} sites (numberMatched {matched}), the globe has {len(want)}")

got, matched = items("observations", datetime_=f"{start}/..")
check(got is not None and matched == len(since) and sorted(key(f["properties"]) for f in got) == sorted(key(r) for r in since),
      f"OWSLib datetime={start}/..: numberMatched {matched}, /api/observations-data.php has {len(since)}")
try:
    before = api.collection_items("observations", limit=1, datetime_=f"../{day_before(start)}").get("numberMatched")
except RuntimeError as err:
    before = None
check(before is not None and before + len(since) == total,
      f"OWSLib datetime=../{day_before(start)}: numberMatched {before}, and {len(since)} since: {total} in all")
got, matched = items("observations", datetime_=f"{start}/..", parameter="nitrate")
check(got is not None and matched == len(nitrate) and all(f["properties"]["parameter"] == "nitrate" for f in got)
      and len(got) == len(nitrate), f"OWSLib parameter=nitrate: numberMatched {matched}, /api/observations-data.php has {len(nitrate)}")
for bad in ["bbox=1,2,3", "bbox=1,2,9,3,4,5", "datetime=2024/06/01", "parameter=gold", "colour=red"]:
    try:
        urllib.request.urlopen(f"{BASE}/api/features/collections/observations/items?{bad}", timeout=30)
        check(False, f"{bad}: refused")
    except urllib.error.HTTPError as err:
        body = json.loads(err.read())
        check(err.code == 400 and body.get("errors", [{}])[0].get("name") == bad.split("=")[0],
              f"{bad}: a 400 problem naming it ({body.get('detail')})")

if failures:
    print(f"ogc-clients: {len(failures)} failed")
    sys.exit(1)
print("ogc-clients: all checks passed")
