"""Cross-surface consistency of a built site and the sidecar serving it,
probed over HTTP: the contract (openapi.json), the routes the sidecar
answers, the discovery documents, the sitemap, the Markdown twins, the
search index, the MCP endpoint, the problem pages and the API reference
must all tell the same story.

    consistency.py check --base URL --dist DIR [--source REPO]
    consistency.py drift KIND DIST OUT

`check` runs every check against the sidecar at URL (serving DIR, built
with `generate build --base-url URL`) and prints one `FAIL [category] …`
line per disagreement, then the number of checks per category; it exits 1
when anything disagrees. DIR is read only for the file list of its
manifest; REPO (default: this repository) for the problem codes the
sidecar's source can emit.

`drift` copies DIST to OUT with one deliberate disagreement (KIND: one of
DRIFTS), keeping the manifest true to the files, for the test of the test.

Standard library only.
"""

import argparse
import concurrent.futures
import hashlib
import html
import json
import pathlib
import re
import shutil
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET

from e2e_support import NO_REDIRECT

TIMEOUT = 10
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
MCP_VERSION = "2025-06-18"
REPO = pathlib.Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- reporting

class Report:
    """Checks per category; a failed check prints at once."""

    def __init__(self):
        self.counts = {}
        self.failures = []

    def check(self, category, ok, message):
        passed, failed = self.counts.get(category, (0, 0))
        self.counts[category] = (passed + bool(ok), failed + (not ok))
        if not ok:
            line = f"FAIL [{category}] {message}"
            self.failures.append(line)
            print(line, flush=True)
        return bool(ok)

    def summary(self, seconds):
        print(f"\nconsistency: checks per category ({seconds:.1f} s)")
        for category, (passed, failed) in self.counts.items():
            print(f"  {category:<14} {passed + failed:5d} checks, {failed:4d} failed")
        total = sum(p + f for p, f in self.counts.values())
        print(f"  {'total':<14} {total:5d} checks, {len(self.failures):4d} failed")


# ---------------------------------------------------------------- HTTP

class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name):
        return self.headers.get(name) if self.headers is not None else None

    @property
    def type(self):
        return essence(self.header("Content-Type") or "")

    def text(self):
        return self.body.decode("utf-8")

    def json(self):
        return json.loads(self.body)


def request(method, url, body=None, headers=None):
    """One request, redirects not followed, every status returned."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with NO_REDIRECT.open(req, timeout=TIMEOUT) as r:
            return Response(r.status, r.headers, r.read())
    except urllib.error.HTTPError as e:
        return Response(e.code, e.headers, e.read())
    except OSError as e:
        return Response(0, None, str(e).encode())


def essence(media_type):
    return media_type.split(";")[0].strip().lower()


def parallel(fn, items, workers=4):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))


# ---------------------------------------------------------------- MCP client

class Mcp:
    """A stateless Streamable HTTP client: initialize, then one POST per call."""

    def __init__(self, url):
        self.url = url
        self.next_id = 0
        self.version = None
        result = self.call("initialize", {
            "protocolVersion": MCP_VERSION, "capabilities": {},
            "clientInfo": {"name": "consistency", "version": "1"}})
        self.version = result["protocolVersion"]
        self.server = result
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, message):
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}
        if self.version:
            headers["MCP-Protocol-Version"] = self.version
        return request("POST", self.url, json.dumps(message).encode(), headers)

    def call(self, method, params=None, rpc_error_ok=False):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        r = self.post(message)
        if r.status != 200:
            raise RuntimeError(f"MCP {method}: HTTP {r.status}: {r.body[:200]!r}")
        answer = r.json()
        if "error" in answer:
            if rpc_error_ok:
                return {"rpcError": answer["error"]}
            raise RuntimeError(f"MCP {method}: {answer['error']}")
        return answer["result"]

    def tool(self, name, arguments):
        """The result, or {"rpcError": …} for an argument refused by JSON-RPC."""
        return self.call("tools/call", {"name": name, "arguments": arguments}, rpc_error_ok=True)


# ---------------------------------------------------------------- the site

class Site:
    """What the checks share: the base URL, the contract and the documents
    every other surface is compared with."""

    def __init__(self, base, dist, report):
        self.base = base.rstrip("/")
        self.origin = origin(self.base)
        self.dist = pathlib.Path(dist)
        self.report = report
        self.problems = []  # problem objects seen in answers: (path, status, object)
        self.cache = {}
        self.openapi = self.get_json("/openapi.json")
        # A path with `{name}` segments is probed at its parameters'
        # examples (or first enum values), as a client would call it.
        self.paths = {concrete(path, item): item for path, item in self.openapi.get("paths", {}).items()}
        self.service = self.get_json("/api/service.json")
        self.llms = self.get("/llms.txt").text()
        self.llms_links = [(label, self.path_of(url)) for label, url in md_links(self.llms)]
        self.sitemap = [self.path_of(loc) for loc in sitemap_locs(self.get("/sitemap.xml").text())]
        manifest = json.loads((self.dist / "manifest.json").read_text())
        self.files = sorted(manifest["files"])
        self.description = self.openapi.get("info", {}).get("description", "")

    def url(self, path):
        return self.base + path

    def path_of(self, url):
        """The path of a same-origin URL (with its query, without its
        fragment), or None."""
        url = url.split("#")[0]
        if url.startswith("/"):
            return url
        if origin(url) != self.origin:
            return None
        parts = urllib.parse.urlsplit(url)
        return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    def get(self, path, **kw):
        if kw or path not in self.cache:
            r = request("GET", self.url(path), **kw)
            if kw:
                return r
            self.cache[path] = r
        return self.cache[path]

    def get_json(self, path):
        r = self.get(path)
        if r.status != 200:
            raise SystemExit(f"consistency: GET {path} answered {r.status}; is the sidecar serving the site?")
        return r.json()

    def note_problem(self, path, r):
        if r.type == "application/problem+json" and r.body:
            try:
                self.problems.append((path, r.status, r.json()))
            except ValueError:
                self.report.check("problems", False, f"{path}: a problem+json answer that is not JSON")


def origin(url):
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def md_links(text):
    """(label, url) of every Markdown link of a text."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"\[((?:\\.|[^\]])*)\]\(([^)\s]+)\)", text)]


def sitemap_locs(text):
    ns = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
    return [loc.text.strip() for loc in ET.fromstring(text).iter(f"{ns}loc")]


def html_links(text):
    return re.findall(r'(?:href|src)="([^"#]*)', text)


def twin_header(markdown, name):
    m = re.search(rf"^> {name}: (.*)$", markdown, re.M)
    return m.group(1).strip() if m else None


def h1(markdown):
    m = re.search(r"^# (.+)$", markdown, re.M)
    return m.group(1).strip() if m else None


def one_line(s):
    return " ".join(str(s).split())


def declared_methods(item):
    return {m.upper() for m in item if m.upper() in METHODS}


def allowed(declared):
    """What a route with these operations answers: HEAD wherever GET is,
    OPTIONS (CORS preflight) everywhere."""
    out = set(declared) | {"OPTIONS"}
    if "GET" in out:
        out.add("HEAD")
    return out


def body_for(method):
    if method in ("POST", "PUT", "PATCH"):
        return b"{}", {"Content-Type": "application/json"}
    return None, {}


def concrete(path, item):
    """`path` with each `{name}` segment replaced by the example of its
    parameter in `item` (the first of `examples`, else of `enum`)."""
    for op in item.values():
        for p in op.get("parameters", []) if isinstance(op, dict) else []:
            if p.get("in") == "path":
                schema = p.get("schema", {})
                value = (schema.get("examples") or schema.get("enum") or [None])[0]
                if value is not None:
                    path = path.replace("{" + p["name"] + "}", str(value))
    return path


# ---------------------------------------------------------------- 1. routes

def check_routes(site):
    """Every contract path answers exactly its declared methods; every other
    method is 405 with an Allow header naming the declared ones."""
    rep = site.report
    jobs = [(path, method) for path in site.paths for method in METHODS]

    def probe(job):
        path, method = job
        body, headers = body_for(method)
        return job, request(method, site.url(path), body, headers)

    for (path, method), r in parallel(probe, jobs):
        declared = declared_methods(site.paths[path])
        ok_methods = allowed(declared)
        site.note_problem(path, r)
        if method in ok_methods:
            rep.check("routes", r.status not in (0, 404, 405),
                      f"{method} {path}: the contract declares it, the sidecar answers {r.status}")
        else:
            rep.check("routes", r.status == 405,
                      f"{method} {path}: not in the contract, the sidecar answers {r.status} (expected 405)")
            got = {m.strip().upper() for m in (r.header("Allow") or "").split(",") if m.strip()}
            if r.status == 405:
                rep.check("routes", got == ok_methods,
                          f"{path}: Allow is {sorted(got)}, the contract declares {sorted(ok_methods)}")
    # A declared GET answers 200 with a media type its 200 response declares,
    # asked with an example of each required query parameter.
    for path, item in site.paths.items():
        op = item.get("get")
        if not op:
            continue
        required = {}
        for p in op.get("parameters", []):
            if p.get("in") == "query" and p.get("required"):
                schema = p.get("schema", {})
                required[p["name"]] = (schema.get("examples") or schema.get("enum") or [""])[0]
        r = site.get(path + ("?" + urllib.parse.urlencode(required) if required else ""))
        declared = {essence(t) for t in op.get("responses", {}).get("200", {}).get("content", {})}
        rep.check("routes", r.status == 200 and r.type in declared,
                  f"GET {path}: {r.status} {r.type}, the contract declares 200 {sorted(declared)}")


# ---------------------------------------------------------------- 2. static files

def described_patterns(site):
    """What the contract's description says about paths that are not
    operations: backticked paths (`/assets/` a prefix, `…/<code>/` a
    pattern)."""
    exact, prefixes, patterns = set(), [], []
    for token in re.findall(r"`([^`\s]+)`", site.description):
        path = site.path_of(token) if "://" in token else token
        if not path or not path.startswith("/"):
            continue
        if "<" in path:
            rx = re.escape(path)
            rx = re.sub(r"<[^>]*>", "[^/]+", rx.replace("\\<", "<").replace("\\>", ">"))
            patterns.append(re.compile(rx + r"\Z"))
        elif path.endswith("…"):
            prefixes.append(path[:-1])
        elif path.endswith("/") and path not in site.paths and path != "/":
            # A folder: the page at that address and what lies under it.
            prefixes.append(path)
            exact.add(path)
        else:
            exact.add(path)
    return exact, prefixes, patterns


def check_static(site):
    """Every path the sidecar answers outside the contract's operations is a
    kind of file the contract describes: a page listed in the sitemap or
    llms.txt (or matching a page pattern of the contract, such as the problem
    pages), a page's Markdown twin, or a file under a prefix the contract
    names (`/assets/`). Static files take GET, HEAD and OPTIONS only."""
    rep = site.report
    exact, prefixes, patterns = described_patterns(site)
    rep.check("static", prefixes, "the contract's description names no prefix for static files (such as `/assets/`)")
    listed = set(site.sitemap) | {p for _, p in site.llms_links if p}

    def page_of(path):
        """A page's URL for its file path (`x/index.html` and `x/` alike)."""
        return path[: -len("index.html")] if path.endswith("/index.html") else path

    def described(path, media_type):
        path = page_of(path.split("?")[0])
        if path in site.paths or path in exact or any(p.match(path) for p in patterns):
            return True
        if media_type == "text/html":
            return path in listed
        if path.endswith("/index.md"):
            page = path[: -len("index.md")]
            return page in listed or path in listed or any(p.match(page) for p in patterns)
        return path in listed or any(path.startswith(p) for p in prefixes)

    files = {"/" + f for f in site.files} | {page_of("/" + f) for f in site.files if f.endswith("index.html")}
    candidates = set(files)
    # Every same-origin URL the documents name.
    candidates |= {p.split("?")[0] for _, url, _ in discovery_urls(site) if (p := site.path_of(url))}
    # Neighbours of the contract's paths and paths a server of this kind
    # commonly answers: none may answer unless described.
    for path in site.paths:
        candidates |= {path.rstrip("/") or "/", path + "/" if not path.endswith("/") else path + "x",
                       path + ".br", path + ".gz"}
    candidates |= {"/api", "/api/", "/mcp/x", "/api/x", "/manifest.json", "/feed.xml", "/index.php",
                   "/.well-known/", "/.well-known/mcp", "/.well-known/mcp.json", "/api/openapi.json"}
    robots = site.get("/robots.txt").text()
    candidates |= {m.rstrip("$") for m in re.findall(r"^(?:Allow|Disallow):\s*(\S+)", robots, re.M)}
    # Every same-origin link of every page.
    pages = sorted(c for c in candidates if c.endswith("/") or c.endswith(".html"))
    for r in parallel(lambda p: site.get(p), pages):
        if r.status == 200 and r.type == "text/html":
            for link in html_links(r.text()):
                p = site.path_of(urllib.parse.urljoin(site.base + "/", link)) if link else None
                if p:
                    candidates.add(p)
    candidates -= set(site.paths)

    def probe(path):
        return path, request("GET", site.url(path))

    redirects = []
    for path, r in parallel(probe, sorted(candidates)):
        site.note_problem(path, r)
        if r.status in (301, 302, 303, 307, 308):
            redirects.append((path, r.header("Location") or ""))
            continue
        if page_of(path) not in files:
            # Not a file of dist/: unless the contract lists it (it does
            # not: contract paths were taken out), the sidecar must not
            # answer it.
            rep.check("routes", r.status == 404, f"{path}: the sidecar answers GET with {r.status} {r.type}, "
                      f"but it is no file of the site and the contract has no such path")
            continue
        if page_of(path) != path and page_of(path) in candidates:
            continue  # `x/index.html` answers as `x/` does; checked there
        rep.check("static", r.status == 200, f"GET {path}: {r.status}")
        if r.status == 200:
            rep.check("static", described(path, r.type),
                      f"{path} ({r.type}): the sidecar serves it, but the contract neither lists it nor "
                      f"describes it (not a path, not a page in sitemap.xml or llms.txt, no twin of one, "
                      f"not under a prefix its description names)")
    for path, location in redirects:
        target = site.path_of(urllib.parse.urljoin(site.url(path), location))
        r = request("GET", site.url(target)) if target else None
        rep.check("static", r is not None and r.status == 200 and described(target, r.type),
                  f"{path} redirects to {location!r}, which is not a described page")
    # Files take GET, HEAD and OPTIONS only.
    files = ["/" + f for f in site.files if "/" + f not in site.paths]

    def post(path):
        return path, request("POST", site.url(path), b"{}", {"Content-Type": "application/json"})

    for path, r in parallel(post, files):
        site.note_problem(path, r)
        got = {m.strip().upper() for m in (r.header("Allow") or "").split(",") if m.strip()}
        rep.check("static", r.status == 405 and got == {"GET", "HEAD", "OPTIONS"},
                  f"POST {path}: {r.status}, Allow {sorted(got)} (a file takes GET, HEAD, OPTIONS)")


# ---------------------------------------------------------------- 3. discovery

def discovery_urls(site, checks=None):
    """(where, url, declared media type or None) of every URL the discovery
    documents, the service information and the contract name; `checks`, a
    Report, also checks the catalog's entries."""
    out = []
    catalog = site.get_json("/.well-known/ai-catalog.json")
    rep = checks or Report()
    host = catalog.get("host", {})
    if host.get("documentationUrl"):
        out.append(("ai-catalog host.documentationUrl", host["documentationUrl"], None))
    for e in catalog.get("entries", []):
        rep.check("discovery", ("url" in e) != ("data" in e), f"ai-catalog entry {e.get('identifier')}: exactly one of url, data")
        if "url" in e:
            rep.check("discovery", origin(e["url"]) == site.origin,
                      f"ai-catalog entry {e.get('identifier')}: {e['url']} is not on the site's origin")
            out.append((f"ai-catalog {e.get('identifier')}", e["url"], e.get("type")))
    linkset = site.get_json("/.well-known/api-catalog")
    for context in linkset.get("linkset", []):
        out.append(("api-catalog anchor", context.get("anchor", ""), None))
        for rel, targets in context.items():
            if isinstance(targets, list):
                for t in targets:
                    out.append((f"api-catalog {rel}", t.get("href", ""), t.get("type")))
    card = site.get_json("/.well-known/mcp/server-card.json")
    if card.get("websiteUrl"):
        out.append(("server card websiteUrl", card["websiteUrl"], None))
    for remote in card.get("remotes", []):
        out.append(("server card remote", remote.get("url", ""), "mcp"))
    for label, url in md_links(site.llms):
        out.append((f"llms.txt [{label}]", url, None))
    for loc in sitemap_locs(site.get("/sitemap.xml").text()):
        out.append(("sitemap.xml", loc, "text/html"))

    def strings(value, where):
        if isinstance(value, dict):
            for k, v in value.items():
                yield from strings(v, f"{where}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from strings(v, f"{where}[{i}]")
        elif isinstance(value, str) and re.fullmatch(r"(https?://|/)\S*", value):
            yield where, value

    for where, value in strings(site.service, "service.json"):
        out.append((where, value, None))
    info = site.openapi.get("info", {})
    for where, value in [("openapi info.contact.url", info.get("contact", {}).get("url")),
                         ("openapi externalDocs.url", site.openapi.get("externalDocs", {}).get("url"))]:
        if value:
            out.append((where, value, None))
    for server in site.openapi.get("servers", []):
        out.append(("openapi servers", server["url"].rstrip("/") + "/", None))
    robots = site.get("/robots.txt").text()
    for url in re.findall(r"^Sitemap:\s*(\S+)", robots, re.M):
        out.append(("robots.txt Sitemap", url, "application/xml"))
    security = site.get("/.well-known/security.txt").text()
    for field, url in re.findall(r"^(Contact|Canonical|Policy):\s*(\S+)", security, re.M):
        if not url.startswith("mailto:"):
            out.append((f"security.txt {field}", url, "text/plain" if field == "Canonical" else None))
    return out


def check_discovery(site):
    """Every same-origin URL of the discovery documents answers 200 with the
    media type it is declared with."""
    rep = site.report
    urls = discovery_urls(site, rep)
    external = 0

    def probe(entry):
        where, url, declared = entry
        path = site.path_of(url)
        if path is None:
            return entry, path, None
        item = site.paths.get(path.split("?")[0], {})
        if "post" in item and "get" not in item and "mcp" not in item["post"].get("tags", []):
            # A POST-only route named as a target: reachable means its
            # preflight answers.
            r = request("OPTIONS", site.url(path))
            return (where, url, None), path, Response(200 if r.status == 204 else r.status, r.headers, r.body)
        if declared == "mcp" or "post" in item and "get" not in item:
            # The MCP endpoint: what it answers is a JSON-RPC exchange, so
            # probe it with initialize.
            body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": MCP_VERSION, "capabilities": {},
                "clientInfo": {"name": "consistency", "version": "1"}}}
            r = request("POST", site.url(path), json.dumps(body).encode(),
                        {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
            return (where, url, "application/json"), path, r
        return entry, path, request("GET", site.url(path))

    for (where, url, declared), path, r in parallel(probe, urls):
        if path is None:
            external += 1
            continue
        rep.check("discovery", r.status == 200, f"{where}: {url} answers {r.status}")
        if declared and r.status == 200:
            rep.check("discovery", r.type == essence(declared),
                      f"{where}: {url} is declared as {declared!r} but served as {r.header('Content-Type')!r}")
    print(f"  (discovery: {len(urls)} URLs, {external} on other origins not probed)")


# Sentences shorter than this (in words) may recur: they are the stock
# endings of list notes, each about its own page ("Archived as used in
# 2024."); a claim said twice is longer.
REPEAT_MIN_WORDS = 8


def sentences(text):
    """The sentences of a text discovery document: Markdown links reduced to
    their labels, list, quote and heading markers dropped, split after `.`,
    `!` or `?`; fragments without such an ending (titles, `Field: value`
    lines) are not sentences."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    out = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:[-*>#]+\s*)+", "", line)
        for part in re.split(r"(?<=[.!?])\s+", line):
            part = one_line(part)
            if re.search(r"[.!?]$", part) and len(part.split()) >= REPEAT_MIN_WORDS:
                out.append(part)
    return out


def repeated_sentences(text):
    """Each sentence of `text` said more than once, with its count."""
    counts = {}
    for sentence in sentences(text):
        counts[sentence] = counts.get(sentence, 0) + 1
    return {s: n for s, n in counts.items() if n > 1}


def check_repetition(site):
    """No text discovery document says a sentence twice (llms.txt once
    quoted the site's description and then listed it again as the home
    page's note)."""
    rep = site.report
    docs = {"llms.txt": site.llms,
            "robots.txt": site.get("/robots.txt").text(),
            "security.txt": site.get("/.well-known/security.txt").text(),
            "openapi info.description": site.description}
    for where, text in docs.items():
        repeated = repeated_sentences(text)
        rep.check("repetition", not repeated,
                  f"{where} repeats "
                  + "; ".join(f"{n} times: {s[:80]!r}" for s, n in sorted(repeated.items())))


def self_test_repetition():
    """The sentence splitter on known texts: a check that passes on
    anything would not show itself here."""
    said = "The observatory publishes open data on fresh water for everyone."
    described = f"# Site\n\n> Water, measured. {said}\n"
    assert not repeated_sentences(described)
    twice = described + f"\n- [Home](/index.md): Water, measured. {said}\n"
    assert repeated_sentences(twice) == {said: 2}, repeated_sentences(twice)
    short = "- [A](/a/): Notes on a. Archived as used in 2024.\n- [B](/b/): Notes on b. Archived as used in 2024.\n"
    assert not repeated_sentences(short), "short stock endings may recur"


# ---------------------------------------------------------------- 4. pages

def check_pages(site):
    """Sitemap pages, Markdown twins (`<page>index.md`), the search index and
    llms.txt list the same pages, with the same titles."""
    rep = site.report
    index_path = next((p for label, p in site.llms_links if p and p.endswith(".json")
                       and "parts" in (site.get(p).json() if site.get(p).status == 200 else {})), None)
    rep.check("pages", index_path, "llms.txt links no search index (a JSON document with `parts`)")
    index = {}
    if index_path:
        # The head lists its parts; each is served, and they hold as many
        # documents as the head says.
        head = site.get(index_path).json()
        for part in head["parts"]:
            r = site.get(part)
            if rep.check("pages", r.status == 200 and r.type == "application/json",
                         f"search index part {part} answers {r.status} {r.type}"):
                index.update({d["url"]: d for d in r.json()["documents"]})
        rep.check("pages", len(index) == head["documents"],
                  f"the search index says {head['documents']} documents, its parts hold {len(index)}")
    sitemap = set(site.sitemap)
    twins_listed = {p for _, p in site.llms_links if p and p.endswith("/index.md")}
    twin_files = {"/" + f for f in site.files if f.endswith("/index.md") or f == "index.md"}
    pages = sitemap | set(index) | {t[: -len("index.md")] for t in twins_listed | twin_files}
    twin_text = {}

    def fetch(page):
        return page, request("GET", site.url(page + "index.md"))

    for page, r in parallel(fetch, sorted(pages)):
        twin = page + "index.md"
        ok = rep.check("pages", r.status == 200 and r.type == "text/markdown",
                       f"{page}: Markdown twin {twin} answers {r.status} {r.type}")
        if ok:
            twin_text[page] = r.text()
        rep.check("pages", page in sitemap, f"{page}: has a twin or search entry but is not in sitemap.xml")
        rep.check("pages", page in index, f"{page}: not in the search index")
        rep.check("pages", twin in twins_listed, f"{page}: its twin {twin} is not listed in llms.txt")
        if ok and page in index:
            rep.check("pages", h1(twin_text[page]) == index[page]["title"],
                      f"{page}: twin title {h1(twin_text[page])!r}, search index {index[page]['title']!r}")
    for label, path in site.llms_links:
        if path in twins_listed and path[: -len("index.md")] in twin_text:
            title = h1(twin_text[path[: -len("index.md")]])
            rep.check("pages", html.unescape(label.replace("\\", "")) == title,
                      f"llms.txt lists {path} as {label!r}, its twin's title is {title!r}")
    site.twin_text = twin_text
    site.search_index = index


# ---------------------------------------------------------------- 5. MCP resources

def check_mcp_resources(site, mcp):
    """Every resource of resources/list reads exactly as the HTTP document it
    names, and every twin is a resource."""
    rep = site.report
    resources, cursor = [], None
    for _ in range(100):
        page = mcp.call("resources/list", {"cursor": cursor} if cursor else {})
        resources += page.get("resources", [])
        cursor = page.get("nextCursor")
        if not cursor:
            break
    foreign = sorted({origin(r["uri"]) for r in resources if origin(r["uri"]) != site.origin})
    rep.check("mcp-resources", not foreign,
              f"resource URIs name {foreign}, but the site (sitemap.xml, llms.txt) is at {site.origin}: "
              f"an agent fetching them over HTTP does not reach this service")
    seen = set()

    def read(res):
        return res, mcp.call("resources/read", {"uri": res["uri"]})

    for res, result in parallel(read, resources, workers=2):
        path = urllib.parse.urlsplit(res["uri"]).path
        seen.add(path)
        contents = result.get("contents", [])
        if not rep.check("mcp-resources", len(contents) == 1 and "text" in contents[0],
                         f"{res['uri']}: resources/read gives no single text content"):
            continue
        text = contents[0]["text"]
        r = site.get(path)
        rep.check("mcp-resources", r.status == 200, f"{res['uri']}: {path} answers {r.status} over HTTP")
        if r.status != 200:
            continue
        rep.check("mcp-resources", text == r.text(),
                  f"{res['uri']}: resources/read text differs from GET {path} "
                  f"({len(text)} vs {len(r.body)} bytes)")
        rep.check("mcp-resources", essence(res.get("mimeType", "")) == r.type,
                  f"{res['uri']}: mimeType {res.get('mimeType')!r}, served as {r.type!r}")
        meta = res.get("_meta") or {}
        if path.endswith("index.md"):
            for key, field in (("licence", "Licence"), ("attribution", "Attribution")):
                rep.check("mcp-resources", meta.get(key) == twin_header(r.text(), field),
                          f"{res['uri']}: _meta.{key} {meta.get(key)!r}, the twin says {twin_header(r.text(), field)!r}")
            if mcp.version >= "2025-06-18":
                rep.check("mcp-resources", res.get("title") == h1(r.text()),
                          f"{res['uri']}: title {res.get('title')!r}, the twin's is {h1(r.text())!r}")
    for page in sorted(site.twin_text):
        rep.check("mcp-resources", page + "index.md" in seen,
                  f"{page}index.md: a Markdown twin that resources/list does not offer")


# ---------------------------------------------------------------- 6. MCP tools

def json_diff(a, b, where="$"):
    """Paths at which two JSON values differ; `generated_at` (the time of the
    answer) is allowed to differ."""
    if where.endswith(".generated_at"):
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += json_diff(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{where}.{k}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in json_diff(x, y, f"{where}[{i}]")]
    return [] if a == b else [where]


def tool_data(result):
    """A tool result's data: structuredContent, which must equal its text."""
    if "rpcError" in result:
        return None, f"JSON-RPC error {result['rpcError']}"
    if result.get("isError"):
        return None, "isError"
    texts = [c.get("text") for c in result.get("content", []) if c.get("type") == "text"]
    structured = result.get("structuredContent")
    try:
        parsed = json.loads(texts[0]) if texts else None
    except ValueError:
        parsed = None  # a text for people (Markdown); structuredContent carries the data
    if structured is not None and parsed is not None and json_diff(structured, parsed):
        return None, "structuredContent differs from its text content"
    return (structured if structured is not None else parsed), None


def check_mcp_globe(site, mcp, rep, name, path, props):
    """The globe tool against its route: without arguments a summary of the
    route's points; with `limit` and `cursor` every point, in `site_id`
    order, as the route gives it (plus the tool's `region`)."""
    features = site.get(path).json().get("features", [])
    data, err = tool_data(mcp.tool(name, {}))
    if not rep.check("mcp-tools", err is None, f"{name}(): {err}"):
        return
    rep.check("mcp-tools", data.get("sites") == len(features)
              and data.get("observations") == sum(f["properties"]["observations"] for f in features),
              f"{name}(): the summary's totals differ from GET {path}")
    if not rep.check("mcp-tools", {"limit", "cursor"} <= props, f"{name}: no limit and cursor to page with"):
        return
    got, args = [], {"limit": 50}
    while True:
        data, err = tool_data(mcp.tool(name, args))
        if not rep.check("mcp-tools", err is None, f"{name}({args}): {err}"):
            return
        for f in data.get("features", []):
            f["properties"].pop("region", None)
            got.append(f)
        if not data.get("next_cursor"):
            break
        args = {"limit": 50, "cursor": data["next_cursor"]}
    want = sorted(features, key=lambda f: f["id"])
    diff = json_diff(want, got)
    rep.check("mcp-tools", not diff, f"{name}(limit, cursor): the points differ from GET {path} at {diff[:5]}")


def check_mcp_tools(site, mcp):
    """Each live-data tool answers what its HTTP route answers for the same
    arguments; the tool that gives the service information gives
    /api/service.json."""
    rep = site.report
    tools = {t["name"]: t for t in mcp.call("tools/list")["tools"]}
    live_paths = {p for p, item in site.paths.items()
                  if "get" in item and "live-data" in item["get"].get("tags", [])}
    rep.check("mcp-tools", live_paths, "the contract tags no GET operation `live-data`")
    named = {}
    for name, t in tools.items():
        for path in re.findall(r"(/[A-Za-z0-9_.\-/]+)", t.get("description", "")):
            path = path.rstrip(".")
            if path in live_paths:
                named.setdefault(path, []).append(name)
        for path in re.findall(r"(/api/[A-Za-z0-9_.\-/]+)", t.get("description", "")):
            path = path.rstrip(".")
            rep.check("mcp-tools", path in site.paths,
                      f"{name}: its description names {path}, which the contract does not list")
    for path in sorted(live_paths):
        rep.check("mcp-tools", len(named.get(path, [])) == 1,
                  f"{path}: live-data route named by tools {named.get(path, [])} (expected exactly one)")
    compared = []
    for path, names in sorted(named.items()):
        name = names[0]
        schema_props = tools[name].get("inputSchema", {}).get("properties", {})
        props = set(schema_props)
        params = {p.get("name"): p for p in site.paths[path]["get"].get("parameters", []) if p.get("in") == "query"}
        # `format` chooses the representation (JSON or CSV); a tool answers JSON.
        representation = {n for n, p in params.items() if "json" in p.get("schema", {}).get("enum", [])}
        if not params and props:
            # A route without a query (the globe's): the tool's arguments
            # are its own, compared below.
            check_mcp_globe(site, mcp, rep, name, path, props)
            continue
        # `fields` selects members of the route's rows: the tool's own.
        own = {"fields"} & props
        rep.check("mcp-tools", props - own == set(params) - representation,
                  f"{name}: arguments {sorted(props)}, {path} takes {sorted(set(params) - representation)}")
        # A tool may page smaller than its route: asked without `limit`, the
        # route is asked for the tool's default.
        tool_limit = schema_props.get("limit", {}).get("default")
        cases = [{}]
        first = site.get(path + ("?limit=3" if "limit" in params else "")).json() if params else None
        if params and "limit" in props:
            cases.append({"limit": 3})
            rows = first.get("data", []) if isinstance(first, dict) else []
            if first and first.get("next_cursor") and "cursor" in props:
                cases.append({"limit": 3, "cursor": first["next_cursor"]})
            if rows:
                row = rows[0]
                for arg, key in (("parameter", "parameter"), ("site", "site_id")):
                    if arg in props and key in row:
                        cases.append({arg: row[key], "limit": 5})
            if {"from", "to"} <= props:
                cases.append({"from": "2026-01-01", "to": "2026-06-30", "limit": 4})
            if "bbox" in props:
                cases.append({"bbox": "-10,35,30,60", "limit": 4})
            cases.append({"limit": 0})  # refused by both
            if own:
                cases.append({"fields": ["observed_at", "value"], "limit": 3})
        if "parameter" in params and params["parameter"].get("required"):
            # A route that needs `parameter`: each case names one.
            value = params["parameter"]["schema"]["enum"][0]
            cases = [{"parameter": value}, {"parameter": value, "interval": "year"}, {}]
        for args in cases:
            route_args = {k: v for k, v in args.items() if k not in own}
            if tool_limit and "limit" not in args and "limit" in params:
                route_args["limit"] = tool_limit
            query = urllib.parse.urlencode(route_args)
            r = site.get(path + (f"?{query}" if query else ""))
            site.note_problem(path, r)
            result = mcp.tool(name, args)
            data, err = tool_data(result)
            if r.status != 200:
                rep.check("mcp-tools", err is not None,
                          f"{name}({args}): {path} refuses with {r.status}, the tool answers data")
                continue
            if not rep.check("mcp-tools", err is None, f"{name}({args}): {err}"):
                continue
            expected = r.json()
            if "fields" in args:
                expected["data"] = [{k: row[k] for k in args["fields"]} for row in expected["data"]]
                expected["fields"] = args["fields"]
            diff = json_diff(expected, data)
            compared.append(f"{name}({json.dumps(args)})")
            rep.check("mcp-tools", not diff, f"{name}({args}) differs from GET {path}?{query} at {diff[:5]}")
    print(f"  (mcp-tools: compared with HTTP: {', '.join(compared)})")
    # The service information tool and the document tool.
    for name, t in tools.items():
        props = t.get("inputSchema", {}).get("properties", {})
        if "section" in props:
            # Without a section: the identity, contact and guardrails of
            # /api/service.json and the titles of its other sections.
            data, err = tool_data(mcp.tool(name, {}))
            whole = {k: site.service.get(k) for k in ("name", "description", "url", "updated", "contact", "guardrails")}
            rep.check("mcp-tools", err is None and not json_diff(whole, {k: data.get(k) for k in whole}),
                      f"{name}(): differs from /api/service.json")
            titles = [x.get("title") for x in site.service.get("services", [])]
            rep.check("mcp-tools", err is None and data.get("sections", {}).get("services") == titles,
                      f"{name}(): the services' titles differ from /api/service.json")
            for section in props["section"].get("enum", []):
                data, err = tool_data(mcp.tool(name, {"section": section}))
                rep.check("mcp-tools", err is None and data == {section: site.service.get(section)},
                          f"{name}(section={section}): differs from /api/service.json's {section}")
        elif set(t.get("inputSchema", {}).get("required", [])) == {"path"}:
            for page in sorted(site.twin_text)[:: max(1, len(site.twin_text) // 6)]:
                data, err = tool_data(mcp.tool(name, {"path": page}))
                rep.check("mcp-tools", err is None and data.get("markdown") == site.twin_text[page],
                          f"{name}({page}): markdown differs from GET {page}index.md")


# ---------------------------------------------------------------- 7. problems

def source_codes(repo):
    """The problem codes the sidecar's source can answer with: every
    `Code::Variant` / `ProblemCode::Variant` in sidecar/src, named by the
    contract crate's table (variant → code string)."""
    table = {}
    problems_rs = repo / "contract/src/problems.rs"
    if problems_rs.exists():
        for variant, code in re.findall(r'ProblemCode::(\w+)\s*=>\s*\(\s*"([a-z_]+)"', problems_rs.read_text()):
            table[variant] = code
    found = {}
    for rs in sorted((repo / "sidecar/src").rglob("*.rs")):
        for n, line in enumerate(rs.read_text().splitlines(), 1):
            for variant in re.findall(r"\b(?:Problem)?Code::([A-Z][A-Za-z0-9]*)\b", line):
                if variant == "ALL":
                    continue
                code = table.get(variant) or re.sub(r"(?<!^)([A-Z])", r"_\1", variant).lower()
                found.setdefault(code, f"{rs.relative_to(repo)}:{n}")
            # A code written as a string where a problem is built.
            for code in re.findall(r'(?:Problem::new|problem)\([^)]*"([a-z]+(?:_[a-z]+)+)"', line):
                found.setdefault(code, f"{rs.relative_to(repo)}:{n}")
    return found


def check_problems(site, repo):
    """Every problem code (the contract's list, the sidecar source's, and
    every code seen in an answer) has its page, its place in the contract
    and its row in the API reference, with one status and one title."""
    rep = site.report
    schema = site.openapi.get("components", {}).get("schemas", {}).get("Problem", {})
    contract = schema.get("properties", {}).get("code", {}).get("enum", [])
    rep.check("problems", contract, "the contract's Problem schema lists no `code` enum")
    source = source_codes(repo)
    rep.check("problems", source, f"no problem code found in {repo / 'sidecar/src'}")
    for code, where in sorted(source.items()):
        rep.check("problems", code in contract, f"{code}: the sidecar can answer with it ({where}) but the contract does not list it")
    for code in contract:
        rep.check("problems", code in source, f"{code}: listed in the contract, but no sidecar source answers with it")
    seen = {}
    for path, status, obj in site.problems:
        seen.setdefault(obj.get("code"), (path, status, obj))
    print(f"  (problems: codes seen in answers: {', '.join(sorted(map(str, seen)))}; "
          f"in the sidecar's source: {len(source)}; in the contract: {len(contract)})")
    for code, (path, status, obj) in sorted(seen.items(), key=lambda kv: str(kv[0])):
        rep.check("problems", code in contract, f"{path}: answered with code {code!r}, not in the contract")
        rep.check("problems", obj.get("status") == status, f"{path}: problem status {obj.get('status')} in an HTTP {status}")
    # The type URL pattern the contract's description gives.
    m = re.search(r"`([^`]*<code>[^`]*)`", site.description)
    rep.check("problems", m, "the contract's description gives no type URL pattern with <code>")
    pattern = m.group(1) if m else site.base + "/docs/problems/<code>/"
    # The API reference: the twin with a table row per code.
    rows = {}
    for page, text in getattr(site, "twin_text", {}).items():
        for code, url, status, title in re.findall(r"^\| \[`([a-z_]+)`\]\(([^)]+)\) \| (\d{3}) \| (.+?) \|$", text, re.M):
            rows[code] = (page, url, int(status), title)
    index_page = site.path_of(pattern.split("<code>")[0])
    index = site.get(index_page) if index_page else None
    rep.check("problems", index is not None and index.status == 200, f"the problems index {index_page} does not answer 200")
    every = sorted(set(contract) | set(source) | {c for c in seen if isinstance(c, str)})
    pages = dict(parallel(lambda c: (c, site.get(site.path_of(pattern.replace("<code>", c)) or "/")), every))
    for code in every:
        url = pattern.replace("<code>", code)
        page = pages[code]
        ok = rep.check("problems", page.status == 200 and page.type == "text/html",
                       f"{code}: its page {url} answers {page.status} {page.type}")
        title = status = None
        if ok:
            text = page.text()
            tm = re.search(r"<h1>(.*?)</h1>", text, re.S)
            sm = re.search(r"<dt>HTTP status</dt><dd>(\d{3})</dd>", text)
            title = html.unescape(tm.group(1).strip()) if tm else None
            status = int(sm.group(1)) if sm else None
            rep.check("problems", f"<code>{code}</code>" in text and title and status,
                      f"{code}: its page does not name the code, a title and a status")
        row = rows.get(code)
        if rep.check("problems", row, f"{code}: no row in the API reference's problem codes table"):
            rep.check("problems", (row[1], row[2], row[3]) == (url, status, title),
                      f"{code}: API reference row {row[1:]} disagrees with its page ({url}, {status}, {title!r})")
        if index is not None and index.status == 200:
            rep.check("problems", f"<code>{code}</code>" in index.text(), f"{code}: not listed on {index_page}")
        if code in seen:
            path, http_status, obj = seen[code]
            rep.check("problems", (obj.get("type"), obj.get("status"), obj.get("title")) == (url, status, title),
                      f"{code}: answered at {path} with type/status/title "
                      f"{(obj.get('type'), obj.get('status'), obj.get('title'))}, its page says {(url, status, title)}")
    # The contract's example problems agree with the pages.
    for name, resp in site.openapi.get("components", {}).get("responses", {}).items():
        for media in resp.get("content", {}).values():
            ex = media.get("example")
            if isinstance(ex, dict) and "code" in ex and ex["code"] in rows:
                _, url, status, title = rows[ex["code"]]
                rep.check("problems", (ex.get("type"), ex.get("status"), ex.get("title")) == (url, status, title),
                          f"contract response {name}: example {ex.get('code')} has "
                          f"{(ex.get('type'), ex.get('status'), ex.get('title'))}, the reference says {(url, status, title)}")


# ---------------------------------------------------------------- 8. identity

def check_identity(site, mcp):
    """Name, description, contact, licences and guardrails read the same in
    every document that states them."""
    rep = site.report
    s = site.service
    name, email = s.get("name"), s.get("contact", {}).get("email")
    form = urllib.parse.urljoin(site.base + "/", s.get("contact", {}).get("form_url", ""))
    info = site.openapi.get("info", {})
    catalog = site.get_json("/.well-known/ai-catalog.json")
    card = site.get_json("/.well-known/mcp/server-card.json")
    security = site.get("/.well-known/security.txt").text()
    llms_h1 = h1(site.llms)
    quote = re.search(r"^> (.+)$", site.llms, re.M)

    def same(where, got, want):
        rep.check("identity", got == want, f"{where}: {got!r}, service.json says {want!r}")

    same("llms.txt H1 (name)", llms_h1, name)
    same("llms.txt summary (description)", quote.group(1) if quote else None, one_line(s.get("description", "")))
    same("ai-catalog host.displayName", catalog.get("host", {}).get("displayName"), name)
    same("openapi info.contact.name", info.get("contact", {}).get("name"), name)
    same("openapi info.contact.email", info.get("contact", {}).get("email"), email)
    same("openapi info.contact.url (the contact form)", info.get("contact", {}).get("url"), form)
    same("openapi info.description, first paragraph", info.get("description", "").split("\n\n")[0], s.get("description"))
    rep.check("identity", name and name in info.get("title", ""), f"openapi info.title {info.get('title')!r} does not name {name!r}")
    rep.check("identity", name and name in card.get("description", ""), f"server card description does not name {name!r}")
    rep.check("identity", name and name in (mcp.server.get("instructions") or ""), f"MCP instructions do not name {name!r}")
    same("security.txt Contact (e-mail)", (re.findall(r"^Contact: mailto:(\S+)", security, re.M) or [None])[0], email)
    rep.check("identity", f"Contact: {form}" in security, f"security.txt names no Contact: {form}")
    rep.check("identity", any(p == site.path_of(form) for _, p in site.llms_links), f"llms.txt does not link the contact form {form}")
    rep.check("identity", site.get(site.path_of(form) or "/").status == 200, f"the contact form {form} does not answer 200")
    # The one e-mail address of the service everywhere one is written.
    texts = {"llms.txt": site.llms, "security.txt": security, "openapi.json": json.dumps(site.openapi)}
    texts.update({f"{p}index.md": t for p, t in site.twin_text.items()})
    for where, text in texts.items():
        for other in sorted(set(re.findall(r"[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b", text)) - {email}):
            rep.check("identity", False, f"{where} gives the e-mail address {other}, service.json's is {email}")
    contact_twins = [p for p, t in site.twin_text.items() if email and email in t]
    rep.check("identity", contact_twins, f"no Markdown twin gives the contact e-mail {email}")
    # Guardrails: llms.txt, the server card and the MCP instructions quote
    # the summary; llms.txt lists every rule agents must follow.
    g = s.get("guardrails", {})
    summary = one_line(g.get("summary", ""))
    card_guardrails = next((v for k, v in card.get("_meta", {}).items() if k.endswith("/guardrails")), "")
    for where, text in (("llms.txt", site.llms), ("server card _meta guardrails", card_guardrails),
                        ("MCP instructions", one_line(mcp.server.get("instructions") or ""))):
        rep.check("identity", summary and summary in one_line(text), f"{where} does not quote the guardrails summary")
    for rule in g.get("agents_must_not", []):
        rep.check("identity", f"- {one_line(rule)}" in site.llms, f"llms.txt misses the guardrail {rule!r}")
        rep.check("identity", any(one_line(rule) in one_line(t) for t in site.twin_text.values()),
                  f"no Markdown twin states the guardrail {rule!r}")
    for where, text in (("llms.txt", site.llms), ("server card", card_guardrails), ("openapi info.description", site.description)):
        rep.check("identity", form in text, f"{where} does not point enquiries at the form {form}")
    # Licences: each stated licence is one of service.json's, with its title
    # and URL; the contract's own licence is the grant that covers it.
    grants = g.get("licences", [])
    by_id = {l["licence"]: l for l in grants}
    lic = info.get("license", {})
    grant = by_id.get(lic.get("identifier"))
    if rep.check("identity", grant, f"openapi info.license {lic.get('identifier')!r} is none of service.json's licences"):
        rep.check("identity", lic.get("name") == grant.get("title"),
                  f"openapi info.license name {lic.get('name')!r}, service.json calls {grant['licence']} {grant.get('title')!r}")
    covering = [l for l in grants if "OpenAPI" in l.get("applies_to", "")]
    for l in covering:
        rep.check("identity", lic.get("identifier") == l["licence"],
                  f"openapi info.license is {lic.get('identifier')!r}, but service.json publishes the OpenAPI contract "
                  f"under {l['licence']} ({l.get('applies_to')!r})")
    for page, text in sorted(site.twin_text.items()):
        stated = twin_header(text, "Licence")
        if stated is None:
            continue
        m = re.fullmatch(r"(.+) \(([^()]+)\) — (\S+)", stated)
        known = m and by_id.get(m.group(2))
        rep.check("identity", known and (known.get("title"), known.get("url")) == (m.group(1), m.group(3)),
                  f"{page}index.md: licence {stated!r} is not one of service.json's licences as named there")
    obs = [p for p, item in site.paths.items() if "get" in item and "live-data" in item["get"].get("tags", [])]
    for path in sorted(obs):
        r = site.get(path)
        data = r.json() if r.status == 200 and r.type.endswith("json") else {}
        if isinstance(data, dict) and isinstance(data.get("licence"), dict):
            l = data["licence"]
            known = by_id.get(l.get("id"))
            rep.check("identity", known and (known.get("title"), known.get("url")) == (l.get("title"), l.get("url")),
                      f"{path}: licence {l} is not one of service.json's licences as named there")
            if known:
                rep.check("identity", data.get("attribution") == known.get("attribution"),
                          f"{path}: attribution {data.get('attribution')!r}, service.json's {known['licence']} grant says {known.get('attribution')!r}")
    # Each HTML page shows the licence and attribution of its twin.
    def page(p):
        return p, request("GET", site.url(p))

    for p, r in parallel(page, sorted(site.twin_text)):
        text = site.twin_text[p]
        stated = twin_header(text, "Licence")
        if r.status != 200 or not stated:
            continue
        body = r.text()
        url = stated.rsplit(" — ", 1)[-1]
        rep.check("identity", f'<link rel="license" href="{url}">' in body,
                  f"{p}: the page's licence link is not the twin's licence {url}")
        attribution = twin_header(text, "Attribution")
        if attribution:
            rep.check("identity", html.escape(attribution, quote=False) in body or attribution in html.unescape(body),
                      f"{p}: the page does not show the twin's attribution {attribution!r}")
        rep.check("identity", f'href="{p}index.md"' in body or f'{site.base}{p}index.md' in body,
                  f"{p}: the page does not link its Markdown twin")
        footer = re.search(r"<footer[^>]*>\s*<p>([^<·]*)", body)
        rep.check("identity", footer and footer.group(1).strip() == card.get("title"),
                  f"{p}: the footer names {footer.group(1).strip() if footer else None!r}, "
                  f"the MCP server card's title is {card.get('title')!r}")


# ---------------------------------------------------------------- main

def run_check(args):
    started = time.monotonic()
    report = Report()
    site = Site(args.base, args.dist, report)
    print(f"consistency: {site.base} (dist {args.dist}): {len(site.paths)} contract paths, "
          f"{len(site.files)} files, {len(site.sitemap)} sitemap pages", flush=True)
    self_test_repetition()
    steps = [
        ("routes", lambda: check_routes(site)),
        ("static", lambda: check_static(site)),
        ("discovery", lambda: check_discovery(site)),
        ("repetition", lambda: check_repetition(site)),
        ("pages", lambda: check_pages(site)),
    ]
    for _, step in steps:
        step()
    mcp_path = next((p for p, item in site.paths.items() if p.endswith("/") and "post" in item
                     and "mcp" in item["post"].get("tags", [])), None)
    if report.check("mcp-resources", mcp_path, "the contract has no MCP endpoint (a POST path tagged mcp)"):
        mcp = Mcp(site.url(mcp_path))
        check_mcp_resources(site, mcp)
        check_mcp_tools(site, mcp)
        check_problems(site, pathlib.Path(args.source))
        check_identity(site, mcp)
    report.summary(time.monotonic() - started)
    return 1 if report.failures else 0


# ---------------------------------------------------------------- drift fixtures

def rewrite(out, key, data):
    """Replaces a file of a built dist/, keeping its manifest entry true."""
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    entry = manifest["files"][key]
    for enc in entry.pop("encodings", {}).values():
        (out / enc["path"]).unlink(missing_ok=True)
    (out / key).write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    entry.update(size=len(data), sha256=sha, etag=f'"{sha[:32]}"')
    manifest_path.write_text(json.dumps(manifest, indent=2))


def remove(out, key):
    manifest_path = out / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    entry = manifest["files"].pop(key)
    for enc in entry.get("encodings", {}).values():
        (out / enc["path"]).unlink(missing_ok=True)
    (out / key).unlink()
    manifest_path.write_text(json.dumps(manifest, indent=2))


def ere(text):
    """`text` as a literal in a POSIX extended regular expression (grep -E)."""
    return re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", text)


def drift_route(out):
    """The first live-data GET dropped from the contract; the sidecar still
    answers it."""
    doc = json.loads((out / "openapi.json").read_text())
    path = sorted(p for p, item in doc["paths"].items()
                  if "live-data" in item.get("get", {}).get("tags", []))[0]
    del doc["paths"][path]
    rewrite(out, "openapi.json", json.dumps(doc, indent=2).encode())
    return rf"^FAIL \[routes\] {ere(path)}: the sidecar answers"


def drift_sitemap(out):
    """The last page of sitemap.xml that has a Markdown twin dropped from it."""
    text = (out / "sitemap.xml").read_text()
    files = json.loads((out / "manifest.json").read_text())["files"]
    urls = [m for m in re.finditer(r"  <url>\n    <loc>([^<]*)</loc>\n.*?</url>\n", text, re.S)
            if urllib.parse.urlsplit(m.group(1)).path.lstrip("/") + "index.md" in files]
    m = urls[-1]
    rewrite(out, "sitemap.xml", (text[: m.start()] + text[m.end():]).encode())
    page = urllib.parse.urlsplit(m.group(1)).path
    return rf"^FAIL \[pages\] {ere(page)}: .*not in sitemap\.xml"


def drift_problem_page(out):
    """The page of the contract's last problem code removed."""
    doc = json.loads((out / "openapi.json").read_text())
    code = doc["components"]["schemas"]["Problem"]["properties"]["code"]["enum"][-1]
    remove(out, f"docs/problems/{code}/index.html")
    return rf"^FAIL \[problems\] {ere(code)}: its page .* answers 404"


def drift_name(out):
    """llms.txt names the service differently."""
    text = (out / "llms.txt").read_text()
    rewrite(out, "llms.txt", re.sub(r"^# (.*)$", r"# \1 (former name)", text, count=1, flags=re.M).encode())
    return r"^FAIL \[identity\] llms\.txt H1 \(name\)"


def drift_repeat(out):
    """llms.txt says the site's description twice: as its quote and again
    as the home page's note, as it once did."""
    text = (out / "llms.txt").read_text()
    quote = re.search(r"^> (.+)$", text, re.M).group(1)
    home = re.search(r"^- \[[^\]]*\]\([^)]*/index\.md\)$", text, re.M)
    rewrite(out, "llms.txt", (text[: home.end()] + f": {quote}" + text[home.end():]).encode())
    return r"^FAIL \[repetition\] llms\.txt repeats"


DRIFTS = {
    "route": drift_route,
    "sitemap": drift_sitemap,
    "problem-page": drift_problem_page,
    "name": drift_name,
    "repeat": drift_repeat,
}


def run_drift(args):
    """Writes the drifted copy; prints the pattern (grep -E) of the FAIL line
    the checks must give for it."""
    out = pathlib.Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(args.dist, out)
    print(DRIFTS[args.kind](out))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="run every check against a running sidecar")
    c.add_argument("--base", required=True, help="the sidecar's base URL (the dist's --base-url)")
    c.add_argument("--dist", required=True, help="the built dist/ the sidecar serves")
    c.add_argument("--source", default=str(REPO), help="the repository (for the sidecar's problem codes)")
    d = sub.add_parser("drift", help="copy a dist with one deliberate disagreement")
    d.add_argument("kind", choices=sorted(DRIFTS))
    d.add_argument("dist")
    d.add_argument("out")
    args = parser.parse_args()
    if args.command == "drift":
        sys.exit(run_drift(args))
    try:
        sys.exit(run_check(args))
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        # Not a disagreement: the checks could not run (exit 2, not 1).
        print(f"consistency: could not complete the checks: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
