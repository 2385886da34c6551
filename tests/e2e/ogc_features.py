#!/usr/bin/env python3
"""GDAL's OGC API - Features driver (OAPIF) as a real client of the
sidecar's /api/features routes, compared with the seed's own routes.

  tests/e2e/ogc_features.py BASE_URL [HTML_DIR]

- ogrinfo lists the two collections, without an error (the API definition
  it reads from `service-desc` included);
- ogr2ogr pages through every public site (a small page size, so `next`
  links are followed) and gets exactly the sites and rounded coordinates
  of /api/globe-data.php;
- a spatial filter reaches the server as `bbox` and returns the globe's
  sites inside the box;
- a time filter on `observed_at` reaches the server as `datetime` and
  returns exactly the observations /api/observations-data.php returns for
  the same window;
- single features, unknown ones (404 problems), HTML by `f` and by
  `Accept`, CORS and conditional requests, over HTTP.

With HTML_DIR, the HTML page of every kind of document is saved there (for
html-validate).
"""

import json
import pathlib
import sys

from ogc_support import BASE, LANDING, check, export, failures, gdal, get_json, http, rest_observations


globe = {f["id"]: tuple(f["geometry"]["coordinates"]) for f in get_json("/api/globe-data.php")["features"]}
print(f"the globe has {len(globe)} public sites")

# The collections.
out, urls, errors = gdal(["ogrinfo", "-ro", "-q", LANDING])
check("1: sites" in out and "2: observations" in out, "ogrinfo lists the sites and observations collections")
check(not errors, f"ogrinfo reports no error ({errors[:3]})")

# Every link of the landing page to the site answers (a client follows
# service-doc and service-desc to learn the API).
for link in get_json("/api/features")["links"]:
    href = link["href"]
    if href.startswith(BASE + "/"):
        status, _, _ = http(href[len(BASE):], accept=link.get("type", "*/*"))
        check(status == 200, f"the landing page's {link['rel']} link {href} answers 200 (got {status})")

# Every site, page by page.
sites, urls, errors = export("sites", "-oo", "PAGE_SIZE=25")
got = {f["properties"]["id"]: tuple(f["geometry"]["coordinates"]) for f in sites}
pages = [u for u in urls if "/collections/sites/items" in u]
check(not errors, f"ogr2ogr reads every site without an error ({errors[:3]})")
check(len(pages) >= len(globe) // 25 and any("cursor=" in u for u in pages),
      f"ogr2ogr followed the next links ({len(pages)} pages of 25)")
check(len(sites) == len(globe), f"ogr2ogr got {len(sites)} sites, the globe has {len(globe)}")
check(got == globe, "the same sites at the same rounded coordinates as /api/globe-data.php")

# A spatial filter.
w, s, e, n = 3.3, 50.7, 7.3, 53.6
inside = {k: v for k, v in globe.items() if w <= v[0] <= e and s <= v[1] <= n}
boxed, urls, errors = export("sites", "-spat", str(w), str(s), str(e), str(n))
got = {f["properties"]["id"]: tuple(f["geometry"]["coordinates"]) for f in boxed}
check(not errors and any("bbox=" in u for u in urls), "the spatial filter reaches the server as bbox")
check(0 < len(inside) < len(globe) and got == inside,
      f"bbox: {len(got)} sites, the globe has {len(inside)} inside the box")

# A time filter.
latest = max(f["properties"]["latest_observed_at"] for f in get_json("/api/globe-data.php")["features"])
since = latest[:10] + "T00:00:00Z"
obs, urls, errors = export("observations", "-where", f"observed_at >= '{since}'", "-oo", "PAGE_SIZE=20")
api = rest_observations(**{"from": since})
key = lambda p: (p["site_id"], p["observed_at"], p["parameter"], round(p["value"], 6))
check(not errors and any("datetime=" in u for u in urls), f"the time filter reaches the server as datetime ({[u for u in urls if 'items' in u][:2]})")
check(0 < len(api) and sorted(key(f["properties"]) for f in obs) == sorted(key(r) for r in api),
      f"datetime: {len(obs)} observations, /api/observations-data.php has {len(api)} since {since}")
check(all((f["geometry"]["coordinates"][0], f["geometry"]["coordinates"][1]) == (r["longitude"], r["latitude"])
          for f, r in zip(sorted(obs, key=lambda f: key(f["properties"])), sorted(api, key=key))),
      "observations at their sites' rounded coordinates")

# Single features and mistakes.
some = sorted(globe)[0]
status, headers, body = http(f"/api/features/collections/sites/items/{some}")
feature = json.loads(body)
check(status == 200 and headers.get("content-type") == "application/geo+json"
      and tuple(feature["geometry"]["coordinates"]) == globe[some], f"the site {some} as one feature")
one = api[0]
status, _, body = http(f"/api/features/collections/observations/items/{one['id']}")
check(status == 200 and json.loads(body)["properties"]["observed_at"] == one["observed_at"],
      f"the observation {one['id']} as one feature")
for path in ["/api/features/collections/rivers", "/api/features/collections/sites/items/no-such-site",
             "/api/features/collections/observations/items/999999999"]:
    status, headers, body = http(path)
    check(status == 404 and headers.get("content-type") == "application/problem+json"
          and json.loads(body)["code"] == "not_found", f"{path}: a 404 problem")
status, _, body = http("/api/features/collections/sites/items?bbox=1,2")
check(status == 400 and json.loads(body)["errors"][0]["name"] == "bbox", "a bad bbox: a 400 naming it")
status, _, body = http("/api/features/collections/sites/items?colour=red")
check(status == 400 and json.loads(body)["code"] == "unknown_parameter", "an unknown parameter: a 400")

# HTML, negotiation, CORS, conditional requests.
status, headers, body = http("/api/features/collections/sites/items?f=html&limit=5")
check(status == 200 and headers.get("content-type", "").startswith("text/html") and b"<table>" in body,
      "f=html: an HTML page")
status, headers, body = http("/api/features/collections", accept="text/html,application/xhtml+xml,*/*;q=0.8")
check(status == 200 and headers.get("content-type", "").startswith("text/html"), "a browser's Accept: HTML")
check("Accept" in headers.get("vary", ""), "Vary: Accept")
status, headers, _ = http("/api/features/collections/sites/items", headers={"Origin": "https://gis.example"})
check(headers.get("access-control-allow-origin") == "*", "CORS as the other public routes")
status, _, _ = http("/api/features/collections/sites/items", headers={"If-None-Match": headers.get("etag", "")})
check(status == 304, "a matching If-None-Match: 304")
if len(sys.argv) > 2:
    out = pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for i, path in enumerate(["/api/features", "/api/features/conformance", "/api/features/collections",
                              "/api/features/collections/sites", "/api/features/collections/sites/items?limit=5",
                              f"/api/features/collections/sites/items/{some}",
                              "/api/features/collections/observations/items?limit=5",
                              f"/api/features/collections/observations/items/{one['id']}",
                              "/api/features/collections/observations/queryables"]):
        status, headers, body = http(path + ("&" if "?" in path else "?") + "f=html")
        check(status == 200 and headers.get("content-type", "").startswith("text/html"), f"{path}: HTML")
        (out / f"{i}.html").write_bytes(body)
conformance = get_json("/api/features/conformance")["conformsTo"]
for c in ["core", "geojson", "html"]:
    check(f"http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/{c}" in conformance, f"conforms to {c}")

if failures:
    print(f"ogc-features: {len(failures)} failed")
    sys.exit(1)
print("ogc-features: all checks passed")
