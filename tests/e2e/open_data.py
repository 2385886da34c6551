"""The open-data catalogue as catalogues and search engines read it.

  open_data.py DIST

1. `DIST/catalog.jsonld` validates against the official DCAT-AP 3.0.1 SHACL
   shapes (tests/e2e/dcat-ap/, run with pyshacl): no violation, and no
   warning but the ones listed in ALLOWED_WARNINGS.
2. The schema.org JSON-LD of every dataset's page parses as RDF and says
   what the catalogue says: each Dataset names every parameter the
   contract publishes (openapi.json's `parameter` enum) with its unit, and
   carries its licence, distributions, spatial and temporal coverage and
   credit text; licence, distributions and coverage agree with the DCAT-AP
   catalogue.
3. The test of the test: a copy of the catalogue without a dataset's
   title and a copy of the page without one parameter must each fail.

Exits non-zero with every failure listed.
"""

from __future__ import annotations

import copy
import csv
import json
import re
import sys
from pathlib import Path

from pyshacl import validate
from rdflib import RDF, Graph, Literal, Namespace, URIRef

HERE = Path(__file__).resolve().parent
SHAPES = [HERE / "dcat-ap" / n for n in ("shapes.ttl", "range.ttl", "mdr-vocabularies.shape.ttl", "shapes_recommended.ttl")]
SH = Namespace("http://www.w3.org/ns/shacl#")
DCAT = Namespace("http://www.w3.org/ns/dcat#")
DCT = Namespace("http://purl.org/dc/terms/")
SDO = Namespace("https://schema.org/")

# Warnings of the recommended shapes the catalogue keeps on purpose
# (docs/decisions/0048-open-data-catalogue.md).
ALLOWED_WARNINGS = [
    # (path, focus node starts or ends with, message contains, why)
    (str(DCT.publisher), "", "", "the publisher is not in the EU corporate-body table"),
    (str(DCAT.bbox), "http://publications.europa.eu/resource/authority/country/", "", "a country of the EU table has its geometry there"),
    (str(DCAT.centroid), "http://publications.europa.eu/resource/authority/country/", "", "a country of the EU table has its geometry there"),
    (str(DCT.spatial), "#observations", "sh:or", "the bounding box beside the countries is a place no table names"),
    (str(DCT.spatial), "#observations", "Node Kind sh:IRI", "the bounding box beside the countries is a place no table names"),
    (str(DCT.spatial), "#water-watch-archive", "Less than 1", "reference files (protocols, codes) cover no place"),
]


# A build without a citable snapshot has computed no coverage for the
# observation data, and states none (decision 0215).
WITHOUT_SNAPSHOT = [
    (str(DCT.temporal), "#observations", "Less than 1", "no snapshot: the coverage is computed from one"),
]


def allowed(path: str, focus: str, msg: str, extra: list | None = None) -> bool:
    return any(
        path == p and (focus.startswith(f) or focus.endswith(f)) and m in msg
        for p, f, m, _ in ALLOWED_WARNINGS + (extra or [])
    )


def shapes_graph() -> Graph:
    g = Graph()
    for f in SHAPES:
        g.parse(f, format="turtle")
    return g


def shacl_results(data: Graph, shapes: Graph) -> list[tuple[str, str, str, str]]:
    """(severity, focus node, path, message) of every result."""
    _, report, _ = validate(data, shacl_graph=shapes, inference="none", allow_warnings=True)
    out = []
    # Only the report's own results: a nested shape's details are reasons
    # for one of them, at the severity the outer shape gives it.
    for r in report.objects(next(report.subjects(RDF.type, SH.ValidationReport)), SH.result):
        sev = str(report.value(r, SH.resultSeverity)).rsplit("#", 1)[-1]
        out.append(
            (
                sev,
                str(report.value(r, SH.focusNode)),
                str(report.value(r, SH.resultPath)),
                str(report.value(r, SH.resultMessage)),
            )
        )
    return sorted(out)


def catalogue_problems(doc: dict, shapes: Graph, extra: list | None = None) -> list[str]:
    g = Graph().parse(data=json.dumps(doc), format="json-ld")
    problems = []
    for sev, focus, path, msg in shacl_results(g, shapes):
        if sev == "Warning" and allowed(path, focus, msg, extra):
            continue
        problems.append(f"DCAT-AP {sev}: {focus} {path}: {msg}")
    if not list(g.subjects(RDF.type, DCAT.Dataset)):
        problems.append("DCAT-AP: the catalogue lists no dataset")
    return problems


def page_graphs(html: str) -> list[Graph]:
    """Every JSON-LD block of a page, with schema.org's context read as its
    vocabulary (the context document itself is not fetched)."""
    graphs = []
    for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S):
        doc = json.loads(block)
        if doc.get("@context") in ("https://schema.org", "https://schema.org/"):
            doc["@context"] = {"@vocab": "https://schema.org/"}
        graphs.append(Graph().parse(data=json.dumps(doc), format="json-ld"))
    return graphs


def dataset_problems(html: str, page: str, catalogue: Graph, parameters: dict[str, str] | None) -> list[str]:
    """`parameters` (name → unit) must all be named when given."""
    problems = []
    g = Graph()
    for part in page_graphs(html):
        g += part
    datasets = list(g.subjects(RDF.type, SDO.Dataset))
    if not datasets:
        return [f"{page}: no schema.org Dataset"]
    for ds in datasets:
        where = f"{page} Dataset {ds}"
        for prop in ("name", "description", "license", "creditText", "distribution", "includedInDataCatalog"):
            if g.value(ds, SDO[prop]) is None:
                problems.append(f"{where}: no {prop}")
        # The same facts as the catalogue's dataset of the same IRI.
        dcat_ds = URIRef(str(ds))
        if (dcat_ds, RDF.type, DCAT.Dataset) not in catalogue:
            problems.append(f"{where}: not a dataset of the DCAT-AP catalogue")
            continue
        dcat_licences = {str(o) for d in catalogue.objects(dcat_ds, DCAT.distribution) for o in catalogue.objects(d, DCT.license)}
        if {str(g.value(ds, SDO.license))} != dcat_licences:
            problems.append(f"{where}: licence {g.value(ds, SDO.license)} but the catalogue says {sorted(dcat_licences)}")
        urls = {str(g.value(d, SDO.contentUrl)) for d in g.objects(ds, SDO.distribution)}
        dcat_urls = set()
        for d in catalogue.objects(dcat_ds, DCAT.distribution):
            u = catalogue.value(d, DCAT.downloadURL) or catalogue.value(d, DCAT.accessURL)
            dcat_urls.add(str(u))
        if urls != dcat_urls:
            problems.append(f"{where}: distributions {sorted(urls)} but the catalogue has {sorted(dcat_urls)}")
        period = catalogue.value(dcat_ds, DCT.temporal)
        if period is None and g.value(ds, SDO.temporalCoverage) is not None:
            problems.append(f"{where}: temporalCoverage {g.value(ds, SDO.temporalCoverage)} but the catalogue states none")
        if period is not None:
            start, end = catalogue.value(period, DCAT.startDate), catalogue.value(period, DCAT.endDate)
            want = f"{start or '..'}/{end or '..'}"
            if str(g.value(ds, SDO.temporalCoverage)) != want:
                problems.append(f"{where}: temporalCoverage {g.value(ds, SDO.temporalCoverage)}, the catalogue says {want}")
        if catalogue.value(dcat_ds, DCT.spatial) is not None and g.value(ds, SDO.spatialCoverage) is None:
            problems.append(f"{where}: no spatialCoverage although the catalogue has a spatial coverage")
        if parameters is not None:
            named = {}
            for v in g.objects(ds, SDO.variableMeasured):
                named[str(g.value(v, SDO.name))] = str(g.value(v, SDO.unitText))
            for name, unit in parameters.items():
                if name not in named:
                    problems.append(f"{where}: variableMeasured does not name the published parameter `{name}`")
                elif named[name] != unit:
                    problems.append(f"{where}: `{name}` in {named[name]!r}, the vocabulary says {unit!r}")
    return problems


def published_parameters(dist: Path) -> list[str]:
    """The values of the observation route's `parameter` query parameter."""
    api = json.loads((dist / "openapi.json").read_text())
    for item in api["paths"].values():
        for op in item.values():
            if not isinstance(op, dict):
                continue
            for p in op.get("parameters", []):
                if "$ref" in p:
                    name = p["$ref"].rsplit("/", 1)[-1]
                    p = api["components"]["parameters"][name]
                if p.get("name") == "parameter" and p.get("in") == "query":
                    schema = p["schema"]
                    if "$ref" in schema:
                        schema = api["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
                    enum = schema.get("enum") or schema.get("items", {}).get("enum")
                    if enum:
                        return enum
    raise SystemExit("openapi.json: no `parameter` query parameter with an enum")


def units_from_reference(dist: Path, names: list[str]) -> dict[str, str]:
    """Each parameter's unit as the archive's parameter reference (a
    published file, written apart from the contract) gives it."""
    units = {}
    with (dist / "files/archive/parameter-reference.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            if row.get("parameter") in names and row.get("unit"):
                units[row["parameter"]] = row["unit"]
    return units


def main() -> int:
    dist = Path(sys.argv[1])
    shapes = shapes_graph()
    doc = json.loads((dist / "catalog.jsonld").read_text())
    with_snapshot = (dist / "snapshots").is_dir()
    extra = [] if with_snapshot else WITHOUT_SNAPSHOT
    problems = catalogue_problems(doc, shapes, extra)
    catalogue = Graph().parse(data=json.dumps(doc), format="json-ld")
    names = published_parameters(dist)
    units = units_from_reference(dist, names)
    parameters = {n: units.get(n, "") for n in names}
    pages = sorted({str(o) for s in catalogue.subjects(RDF.type, DCAT.Dataset) for o in catalogue.objects(s, DCAT.landingPage)})
    base = str(next(catalogue.subjects(RDF.type, DCAT.Catalog))).split("/catalog.jsonld")[0]
    observations_page = None
    for page in pages:
        path = page[len(base):]
        html = (dist / path.lstrip("/") / "index.html").read_text()
        with_variables = '"variableMeasured"' in html
        if with_variables:
            observations_page = (path, html)
        problems += dataset_problems(html, path, catalogue, parameters if with_variables else None)
    if observations_page is None:
        problems.append("no dataset page names its variables (variableMeasured)")
    obs = URIRef(f"{base}/catalog.jsonld#observations")
    if with_snapshot and catalogue.value(obs, DCT.temporal) is None:
        problems.append("the observation data state no temporal coverage although the build has a snapshot")
    if not with_snapshot and catalogue.value(obs, DCT.temporal) is not None:
        problems.append("without a snapshot the observation data state a temporal coverage nothing computed")
    # Every language the catalogue's own title is in, each dataset's title,
    # description and keywords are in too, each literal tagged.
    cat = next(catalogue.subjects(RDF.type, DCAT.Catalog))
    tags = {t.language for t in catalogue.objects(cat, DCT.title)}
    if None in tags:
        problems.append("the catalogue's title has a literal without @language")
    for ds in catalogue.subjects(RDF.type, DCAT.Dataset):
        for prop in (DCT.title, DCT.description, DCAT.keyword):
            have = {t.language for t in catalogue.objects(ds, prop)}
            if have != tags:
                problems.append(f"{ds} {prop.n3(catalogue.namespace_manager)} in {sorted(map(str, have))}, the catalogue in {sorted(map(str, tags))}")
    print(f"open data: catalogue in {', '.join(sorted(map(str, tags)))}, with {len(pages)} dataset pages, {len(names)} published parameters checked"
          f" ({'with' if with_snapshot else 'without'} a citable snapshot)")

    # The test of the test.
    broken = copy.deepcopy(doc)
    for node in broken["@graph"]:
        if node.get("@type") == "dcat:Dataset":
            del node["dct:title"]
            break
    if not any("title" in p for p in catalogue_problems(broken, shapes, extra)):
        problems.append("test of the test: a dataset without a title passed the DCAT-AP shapes")
    if observations_page is not None:
        path, html = observations_page
        first = names[0]
        cut = re.sub(r'\{"@type": "PropertyValue", "name": "%s"[^}]*\},? ?' % re.escape(first), "", html, count=1)
        if cut == html:
            problems.append(f"test of the test: could not remove `{first}` from {path}")
        elif not any(f"`{first}`" in p for p in dataset_problems(cut, path, catalogue, parameters)):
            problems.append(f"test of the test: {path} without `{first}` passed")
    for p in problems:
        print("FAIL", p)
    if not problems:
        print("open data: ok (DCAT-AP shapes, schema.org Dataset, both broken copies caught)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
