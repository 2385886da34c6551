"""No public answer of a running sidecar carries a volunteer's exact location
or a personal name, checked against the database's own values.

    python3 tests/e2e/privacy.py BASE_URL DIST_DIR DATA_DIR

DATA_DIR is the sidecar's --data-dir; its SQLite file (service.sqlite3)
holds the truth:

- every site's exact coordinates, as recorded (published coarsened);
- the sites that are not public (on private land: never published);
- the names, emails and organisations of enquiries from the contact form.

First one enquiry with a distinctive name is submitted through the contact
form's interface, as the page sends it (a challenge, its proof of work, the
form POST with the site's Origin), and is looked up in the database. Then
every public route is fetched: every file of DIST_DIR as the sidecar serves
it, the 404 page, the globe points, every page of the observations (JSON and
CSV), the statistics, health and readiness, the MCP endpoint
(initialize, every tool, every resource, every prompt; a documentation
search for the enquirer's name), the chat, and the contact challenge. Each
answer, headers and body, fails the check when it holds:

- a decimal number equal to a site's exact coordinate (compared as a float,
  so any formatting counts), or a site's latitude and longitude both
  rounded or truncated to 3-5 decimals (more precise than published);
- the id of a site that is not public, or its name when no public site
  shares it;
- an enquirer's name, surname, email or organisation.

And the observations' bbox filter must not reveal more than the published
coordinates: a box that holds a site's exact location but not its published
point must not find the site (else narrowing the box finds the exact value),
nor may a site that is not public be found by its id.

Exits non-zero, naming route and value, on any finding. Standard library
only (and e2e_support.py beside this file).
"""

import http.client
import json
import math
import os
import random
import re
import socket
import sqlite3
import string
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import solve  # noqa: E402

# Decimal places the live routes publish (sidecar::live::PRECISION_DECIMALS).
PUBLISHED_DECIMALS = 2
NUMBER = re.compile(rb"-?\d+\.(\d+)(?:[eE][-+]?\d+)?")
PROTOCOL = "2025-06-18"
SKIP_SUFFIXES = (".gz", ".br", ".zst")


class Client:
    """Plain HTTP/1.1 to the sidecar. `source` binds the local address (a
    loopback address of its own keeps this client out of the per-client
    rate limits other suites of the same run have used up)."""

    def __init__(self, base, source=None):
        u = urllib.parse.urlsplit(base)
        self.base = base.rstrip("/")
        self.origin = f"{u.scheme}://{u.netloc}"
        self.host, self.port = u.hostname, u.port or 80
        self.source = source
        self.count = 0

    def request(self, method, path, body=None, headers=None):
        kwargs = {"timeout": 30}
        if self.source:
            kwargs["source_address"] = (self.source, 0)
        conn = http.client.HTTPConnection(self.host, self.port, **kwargs)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            self.count += 1
            return r.status, r.getheaders(), data
        finally:
            conn.close()


def own_loopback_source(host):
    """A fresh 127.x address to connect from, when the sidecar is on IPv4
    loopback and the kernel lets us bind one; else None (the default)."""
    if not host.startswith("127."):
        return None
    for _ in range(5):
        addr = f"127.{random.randint(1, 254)}.{random.randint(0, 254)}.{random.randint(1, 254)}"
        if addr == host:
            continue
        try:
            with socket.socket() as s:
                s.bind((addr, 0))
            return addr
        except OSError:
            return None
    return None


class Truth:
    """What must never be published, read from the database."""

    def __init__(self, db_path):
        con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        self.sites = con.execute(
            "SELECT id, name, latitude, longitude, public FROM sites").fetchall()
        self.enquiries = con.execute(
            "SELECT reference, name, email, organisation FROM enquiries").fetchall()
        con.close()
        # Exact coordinates that coarsening changes (one that already has
        # no more than the published decimals is published as it is).
        self.exact = {}
        for sid, _, lat, lon, _ in self.sites:
            for v in (lat, lon):
                if round(v, PUBLISHED_DECIMALS) != v:
                    self.exact.setdefault(v, sid)
        public_names = {name for _, name, _, _, public in self.sites if public}
        self.private_ids = [sid for sid, _, _, _, public in self.sites if not public]
        self.private_names = sorted({name for _, name, _, _, public in self.sites
                                     if not public and name not in public_names})

    def precise_pairs(self):
        """(site, decimals, latitude, longitude) at 3-5 decimals, rounded and
        truncated, where that is more precise than what is published."""
        out = []
        for sid, _, lat, lon, _ in self.sites:
            for d in (3, 4, 5):
                f = 10 ** d
                for how in (lambda v: round(v, d), lambda v: math.trunc(v * f) / f):
                    a, b = how(lat), how(lon)
                    if a != round(lat, PUBLISHED_DECIMALS) and b != round(lon, PUBLISHED_DECIMALS):
                        out.append((sid, d, a, b))
        return sorted(set(out))


class Scanner:
    def __init__(self, truth, names):
        self.truth = truth
        self.pairs = truth.precise_pairs()
        # Lower-cased needles for personal data, with what each is.
        self.names = [(n.lower().encode(), label) for n, label in names if n and len(n) >= 4]
        self.private = [(s.lower().encode(), f"the id of the non-public site {s}")
                        for s in truth.private_ids]
        self.private += [(s.lower().encode(), f"the name of a non-public site, {s!r}")
                         for s in truth.private_names]
        self.routes = set()
        self.answers = 0
        self.bytes = 0
        self.findings = []

    def scan(self, route, where, headers, body):
        self.routes.add(route)
        self.answers += 1
        blob = b"\n".join(f"{k}: {v}".encode("latin-1", "replace") for k, v in headers) + b"\n\n" + body
        self.bytes += len(blob)
        low = blob.lower()
        for needle, label in self.names + self.private:
            i = low.find(needle)
            if i >= 0:
                self.found(where, f"{label}: {blob[max(0, i - 60):i + len(needle) + 60]!r}")
        floats = set()
        for m in NUMBER.finditer(blob):
            if len(m.group(1)) <= PUBLISHED_DECIMALS:
                continue
            try:
                v = float(m.group(0))
            except ValueError:
                continue
            floats.add(v)
            if v in self.truth.exact:
                self.found(where, f"the exact coordinate {m.group(0).decode()} of site "
                                  f"{self.truth.exact[v]}: "
                                  f"{blob[max(0, m.start() - 60):m.end() + 60]!r}")
        for sid, d, a, b in self.pairs:
            if a in floats and b in floats:
                self.found(where, f"site {sid}'s latitude {a} and longitude {b} ({d} decimals)")

    def found(self, where, what):
        if len(self.findings) < 200:
            print(f"  FAIL {where}: {what}")
        self.findings.append(f"{where}: {what}")


def submit_enquiry(client, name, email, organisation, message):
    """The form POST the contact page makes, with the challenge solved as its
    widget solves it. Returns the enquiry's reference."""
    for attempt in range(3):
        status, headers, body = client.request("GET", "/api/contact-challenge",
                                               headers={"Accept": "application/json"})
        if status == 429 and attempt < 2:
            wait = int(dict((k.lower(), v) for k, v in headers).get("retry-after", "5"))
            print(f"privacy: the challenge is rate-limited, waiting {wait}s")
            time.sleep(min(wait, 120) + 1)
            continue
        break
    if status != 200:
        raise AssertionError(f"GET /api/contact-challenge: {status} {body[:300]!r}")
    issued = time.monotonic()
    altcha = solve(json.loads(body))
    # The form is filled by a person: the sidecar refuses a faster submission.
    time.sleep(max(0.0, 3.5 - (time.monotonic() - issued)))
    fields = {"name": name, "email": email, "organisation": organisation, "topic": "other",
              "message": message, "consent": "true", "website": "", "altcha": altcha}
    status, headers, body = client.request(
        "POST", "/api/contact.php", body=urllib.parse.urlencode(fields).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": client.origin,
                 "Accept": "text/html"})
    h = dict((k.lower(), v) for k, v in headers)
    if status == 303 and "reference=" in h.get("location", ""):
        return h["location"].split("reference=", 1)[1]
    if status == 201:
        return json.loads(body)["reference"]
    raise AssertionError(f"POST /api/contact.php: {status} {body[:300]!r}")


def dist_paths(dist):
    out = []
    for root, _, files in os.walk(dist):
        for f in files:
            if f.endswith(SKIP_SUFFIXES) and os.path.exists(os.path.join(root, f.rsplit(".", 1)[0])):
                continue
            rel = os.path.relpath(os.path.join(root, f), dist).replace(os.sep, "/")
            if f == "index.html":
                rel = rel[: -len("index.html")]
            out.append("/" + rel)
    return sorted(out)


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: privacy.py BASE_URL DIST_DIR DATA_DIR")
    base, dist, data_dir = sys.argv[1:]
    db = os.path.join(data_dir, "service.sqlite3")
    if not os.path.isfile(db):
        sys.exit(f"privacy: no database at {db}: give the running sidecar's --data-dir")

    client = Client(base)
    own = Client(base, own_loopback_source(client.host))

    # The enquirer: a name found nowhere else.
    tag = "".join(random.choice(string.ascii_lowercase) for _ in range(6))
    surname = f"Quillvane{tag}"
    name = f"Odalys {surname}"
    email = f"odalys.{tag}@privacy-probe.example"
    organisation = f"Fernhollow Society {tag}"
    reference = submit_enquiry(own, name, email, organisation,
                               f"Please keep my details private ({tag}).")
    truth = Truth(db)
    stored = [e for e in truth.enquiries if e[0] == reference]
    if not stored or stored[0][1] != name:
        raise AssertionError(f"the enquiry {reference} is not in {db} under {name!r}")
    print(f"privacy: enquiry {reference} from {name!r} stored; {len(truth.sites)} sites "
          f"({len(truth.private_ids)} not public), {len(truth.exact)} exact coordinates, "
          f"{len(truth.enquiries)} enquiries in the database")

    needles = [(name, "the enquirer's name"), (surname, "the enquirer's surname"),
               (email, "the enquirer's email"), (organisation, "the enquirer's organisation")]
    for ref, n, e, o in truth.enquiries:
        # Other enquiries of the run: their emails are unique; names with a
        # space are, in practice.
        needles.append((e, f"the email of enquiry {ref}"))
        if n and " " in n.strip() and len(n) >= 8:
            needles.append((n, f"the name of enquiry {ref}"))
        if o and len(o) >= 8:
            needles.append((o, f"the organisation of enquiry {ref}"))
    scanner = Scanner(truth, needles)

    def get(route, path, headers=None, c=client):
        status, h, body = c.request("GET", path, headers=headers or {})
        scanner.scan(route, f"GET {path}", h, body)
        return status, h, body

    # Every file of dist/, as served.
    files = dist_paths(dist)
    served = 0  # the others (the build manifest, say) are not served at all
    for path in files:
        status, h, _ = get("dist", urllib.parse.quote(path))
        if status == 301 or status == 308 or status == 302:
            loc = dict((k.lower(), v) for k, v in h).get("location", "")
            status, _, _ = get("dist", urllib.parse.urlsplit(loc).path)
        served += status == 200
    get("404", "/no-such-page-privacy/")

    # The live routes.
    status, _, body = get("globe", "/api/globe-data.php")
    assert status == 200, f"globe: {status}"
    features = json.loads(body)["features"]
    for encoding in ("gzip",):
        # The compressed variant is the same document (scanned decoded).
        import gzip

        status, h, raw = client.request("GET", "/api/globe-data.php", headers={"Accept-Encoding": encoding})
        if dict((k.lower(), v) for k, v in h).get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        scanner.scan("globe", f"GET /api/globe-data.php ({encoding})", h, raw)
    get("statistics", "/api/platform-stats.php")
    for path in ("/healthz", "/readyz"):
        get("ops", path)
    get("contact-challenge", "/api/contact-challenge", c=own)

    pages = rows = 0
    cursor = None
    while True:
        q = {"limit": "1000"}
        if cursor:
            q["cursor"] = cursor
        status, _, body = get("observations", "/api/observations-data.php?" + urllib.parse.urlencode(q))
        assert status == 200, f"observations: {status} {body[:200]!r}"
        page = json.loads(body)
        pages += 1
        rows += len(page.get("observations", page.get("data", [])))
        cursor = page.get("next_cursor")
        if not cursor:
            break
    path = "/api/observations-data.php?format=csv&limit=1000"
    csv_pages = 0
    while path:
        status, h, body = get("observations-csv", path)
        assert status == 200, f"observations csv: {status} {body[:200]!r}"
        csv_pages += 1
        link = dict((k.lower(), v) for k, v in h).get("link", "")
        m = re.search(r'<([^>]+)>;\s*rel="next"', link)
        path = urllib.parse.urlsplit(m.group(1))._replace(scheme="", netloc="").geturl() if m else None
    # Asking for a site that is not public, or for the box around it.
    for sid, _, lat, lon, public in truth.sites:
        if public:
            continue
        status, _, body = get("observations", f"/api/observations-data.php?site={sid}")
        n = len(json.loads(body).get("data", [])) if status == 200 else 0
        if n:
            scanner.found(f"observations?site={sid}", f"{n} observations of a non-public site")
        bbox = f"{lon - 0.001},{lat - 0.001},{lon + 0.001},{lat + 0.001}"
        get("observations", f"/api/observations-data.php?format=csv&bbox={bbox}")
        break

    # OGC API - Features: every site and every observation, page by page
    # (JSON, and the sites as HTML), and each non-public site asked for by id.
    for collection in ("sites", "observations"):
        path = f"/api/features/collections/{collection}/items?limit=1000"
        while path:
            status, _, body = get("features", path)
            assert status == 200, f"features {collection}: {status} {body[:200]!r}"
            nxt = [link["href"] for link in json.loads(body)["links"] if link["rel"] == "next"]
            path = urllib.parse.urlsplit(nxt[0])._replace(scheme="", netloc="").geturl() if nxt else None
    get("features", "/api/features/collections/sites/items?limit=1000&f=html")
    # (Not scanned: a 404 names the path it was asked, the id included.)
    # The answer must be the one an id that never existed gets.
    _, _, unknown = client.request("GET", "/api/features/collections/sites/items/no-such-site")
    for sid, _, lat, lon, public in truth.sites:
        if not public:
            status, _, body = client.request("GET", f"/api/features/collections/sites/items/{sid}")
            same = json.loads(body).get("detail", "").replace(sid, "?") == \
                json.loads(unknown).get("detail", "").replace("no-such-site", "?")
            if status != 404 or not same:
                scanner.found(f"features sites/items/{sid}", f"a non-public site answers {status} {body[:120]!r}")

    # The bbox filter must not be an oracle for the exact location: a box
    # (0.05 degrees wide) holding a site's exact location, with one edge
    # between it and the published coordinate, must not find the site —
    # else moving that edge finds the exact value in a few dozen queries.
    oracle = probed = 0
    for sid, _, lat, lon, public in truth.sites[:40]:
        if not public:
            continue
        for axis, exact in (("lon", lon), ("lat", lat)):
            shown = round(exact, PUBLISHED_DECIMALS)
            if abs(shown - exact) < 2e-6:
                continue
            lo, hi = (exact - 0.05, exact + 1e-6) if shown > exact else (exact - 1e-6, exact + 0.05)
            box = [lon - 0.05, lo, lon + 0.05, hi] if axis == "lat" else [lo, lat - 0.05, hi, lat + 0.05]
            bbox = ",".join(f"{v:.6f}" for v in box)
            path = f"/api/observations-data.php?site={sid}&limit=1&bbox={bbox}"
            status, _, body = get("observations", path)
            probed += 1
            f_path = f"/api/features/collections/sites/items?limit=1000&bbox={bbox}"
            f_status, _, f_body = get("features", f_path)
            if f_status == 200 and any(f["id"] == sid for f in json.loads(f_body)["features"]):
                oracle += 1
                scanner.found(f"GET {f_path}", f"site {sid} found by a box that holds its exact {axis} only")
            if status == 200 and json.loads(body)["data"]:
                oracle += 1
                if oracle <= 3:
                    scanner.found(f"GET {path}", f"site {sid} found by a box that holds its exact {axis} "
                                                 f"{exact} but not the published {shown}: the bbox filter "
                                                 "reveals the exact location")
    if oracle > 3:
        scanner.found("observations bbox", f"{oracle} of {probed} such boxes found their site")

    # MCP: every tool, resource and prompt.
    rpc_id = 0

    def rpc(method, params=None):
        nonlocal rpc_id
        rpc_id += 1
        msg = {"jsonrpc": "2.0", "id": rpc_id, "method": method}
        if params is not None:
            msg["params"] = params
        status, h, body = client.request("POST", "/mcp/", body=json.dumps(msg).encode(), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL})
        assert status == 200, f"MCP {method}: {status} {body[:200]!r}"
        answer = json.loads(body)
        assert "result" in answer, f"MCP {method}: {answer}"
        return h, body, answer["result"]

    def mcp(method, params=None, label=None):
        h, body, result = rpc(method, params)
        scanner.scan("mcp", f"MCP {label or method}", h, body)
        return result

    mcp("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                       "clientInfo": {"name": "privacy", "version": "1"}})
    tools = mcp("tools/list")["tools"]
    calls = {
        "get_service_information": [{}],
        "get_platform_statistics": [{}],
        # The summary, then every point page by page (a page is at most 50).
        "get_globe_points": [{}, {"limit": 50}],
        "get_observations": [{"limit": 50}],
        "get_observation_trend": [{"parameter": p, "interval": "year"} for p in ("nitrate", "ph")],
        "search_documentation": [{"query": q, "limit": 20} for q in
                                 ("enquiry", "contact", "volunteer", "location coordinates", "site")],
        "get_document": [],
        "prepare_enquiry": [{"topic": "Data access", "message": "May we reuse the data?"}],
    }
    mcp_pages = 0
    for tool in tools:
        for args in calls.get(tool["name"], [{}]):
            if "limit" in args:
                cursor = None
                while True:
                    a = dict(args, **({"cursor": cursor} if cursor else {}))
                    r = mcp("tools/call", {"name": tool["name"], "arguments": a}, f"tools/call {tool['name']}")
                    mcp_pages += 1
                    cursor = (r.get("structuredContent") or {}).get("next_cursor")
                    if not cursor:
                        break
            else:
                mcp("tools/call", {"name": tool["name"], "arguments": args}, f"tools/call {tool['name']}")
    # Searching for the enquirer finds nothing (the query itself is echoed).
    for q in (surname, email):
        _, _, r = rpc("tools/call", {"name": "search_documentation", "arguments": {"query": q}})
        found = (r.get("structuredContent") or {}).get("results", [])
        scanner.scan("mcp", f"MCP search_documentation {q!r} (results)", [],
                     json.dumps(found).encode())
    resources, cursor = [], None
    while True:
        r = mcp("resources/list", {"cursor": cursor} if cursor else {})
        resources += r["resources"]
        cursor = r.get("nextCursor")
        if not cursor:
            break
    mcp("resources/templates/list")
    for res in resources:
        mcp("resources/read", {"uri": res["uri"]}, f"resources/read {res['uri']}")
        if res.get("mimeType") == "text/markdown":
            mcp("tools/call", {"name": "get_document", "arguments": {"path": res["uri"]}},
                f"tools/call get_document {res['uri']}")
    for p in mcp("prompts/list")["prompts"]:
        args = {a["name"]: "water quality" for a in p.get("arguments", [])}
        mcp("prompts/get", {"name": p["name"], "arguments": args}, f"prompts/get {p['name']}")

    # The chat, asked about people and places (not naming anyone).
    questions = ["Who sent the latest enquiry?", "Who contacted you recently?",
                 "Where exactly are the observation sites?", "How many volunteers are there?",
                 "What are the coordinates of the sites?", "Which sites are on private land?"]
    questions += [f"Where is {n}?" for n in truth.private_names[:3]]
    chats = 0
    for q in questions:
        status, h, body = own.request("POST", "/api/chat.php", body=json.dumps({"message": q}).encode(),
                                      headers={"Content-Type": "application/json", "Origin": own.origin,
                                               "Accept": "application/json"})
        chats += 1
        # The private site's name in the question is echoed by design: only
        # what the answer adds counts.
        scanned = body
        for n in truth.private_names[:3]:
            if n in q:
                scanned = body.replace(n.encode(), b"")
        scanner.scan("chat", f"POST /api/chat.php {q!r} ({status})", h, scanned)

    print(f"privacy: scanned {scanner.answers} answers ({scanner.bytes / 1e6:.1f} MB) of "
          f"{len(scanner.routes)} routes: {len(files)} dist files ({served} served), {len(features)} globe points, "
          f"{pages} JSON and {csv_pages} CSV observation pages ({rows} observations), "
          f"{mcp_pages} MCP observation pages, {len(tools)} MCP tools, {len(resources)} resources, "
          f"{chats} chat questions; {len(scanner.pairs)} coordinate pairs and "
          f"{len(scanner.names) + len(scanner.private)} names and ids looked for")
    if scanner.findings:
        print(f"privacy: {len(scanner.findings)} finding(s)")
        sys.exit(1)
    print("privacy: no exact coordinate, non-public site or personal name in any answer")


if __name__ == "__main__":
    main()
