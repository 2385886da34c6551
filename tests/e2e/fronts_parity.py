"""Header parity of front servers with the sidecar alone (stdlib only).

    python3 tests/e2e/fronts_parity.py DIST SIDECAR_BASE NAME=FRONT_BASE...

For every URL of every file in DIST/manifest.json and every route of the
sidecar, the same requests go to the sidecar and to each front (nginx,
Caddy, … in front of that same sidecar); the answers must agree in status,
Content-Type, Cache-Control, Vary, Content-Encoding, Link, CORS, security
headers, Allow, Location and Retry-After, and in their bodies (files byte
for byte per content-coding, problem objects member by member, proxied
ETags exactly). A front's own ETag must be strong and answer
If-None-Match with 304.

Differences a host forces are listed in KNOWN, each with its reason; a
difference not listed fails, and so does a listed one that no longer
occurs, so the list stays exact.
"""

import json
import re
import sys

from e2e_support import request

COMPARED = [
    "content-type", "cache-control", "vary", "content-encoding", "link",
    "access-control-allow-origin", "access-control-expose-headers",
    "access-control-allow-methods", "access-control-allow-headers",
    "access-control-max-age", "access-control-allow-credentials", "allow",
    "x-content-type-options", "content-security-policy", "referrer-policy",
    "permissions-policy", "x-frame-options", "location", "retry-after",
]
HTML_HEADERS = ["content-security-policy", "referrer-policy", "permissions-policy", "x-frame-options"]

# (front, case, header) -> reason. `case` names the kind of request (see
# the calls to check() below); header "etag" means the ETag value itself.
KNOWN = {
    ("nginx", "folder-redirect", "content-type"):
        "nginx writes its own small HTML body on a 308 (`return 308`), typed text/html; "
        "the sidecar's 308 has no body",
    ("nginx", "alias", "content-type"):
        "as for the folder redirect: nginx writes its own small HTML body on a 301 "
        "(`return 301`); the sidecar's has none",
    ("caddy", "revalidate", "content-security-policy"):
        "Caddy's `header` directive sets headers before the file server answers, so its 304 "
        "keeps the HTML headers the sidecar sends only with a body (harmless on a 304)",
    ("caddy", "revalidate", "referrer-policy"): "as content-security-policy on a 304",
    ("caddy", "revalidate", "permissions-policy"): "as content-security-policy on a 304",
    ("caddy", "revalidate", "x-frame-options"): "as content-security-policy on a 304",
    ("caddy", "revalidate", "link"):
        "Caddy's `header` directive applies before the answer is known, so the api-catalog "
        "Link is also on its 304",
}
# Always different, by design of every front, checked separately:
# ETag of a file: nginx writes "hex(mtime)-hex(size)", Caddy base-36 mtime
# and size, both one per twin; neither can send the manifest's stored ETag
# and still answer If-None-Match itself. Compared instead: a strong ETag
# that revalidates (304).

STRONG_ETAG = re.compile(r'^"[\x21\x23-\x7e]*"$')


def norm(name, value):
    if value is None:
        return None
    if name == "vary":
        return sorted({t.strip().lower() for t in value.split(",") if t.strip()})
    if name == "x-content-type-options":
        return value.lower()
    return value


class Checker:
    def __init__(self, sidecar, fronts):
        self.sidecar = sidecar
        self.fronts = fronts
        self.failures = []
        self.used = set()
        self.count = 0

    def fail(self, msg, kind=None):
        self.failures.append((msg, kind or msg))
        if len(self.failures) <= 40:
            print("FAIL " + msg, file=sys.stderr)

    def diff(self, front, case, name, what, a, b):
        key = (front, case, name)
        if key in KNOWN:
            self.used.add(key)
            return
        self.fail(f"{front} {what}: {name}: sidecar {a!r}, {front} {b!r}", f"{front} {case} {name}")

    def check(self, case, method, path, headers=None, body=None, compare_body="bytes",
              etag="front", rate_limited=False):
        """One request to the sidecar and every front; returns the answers."""
        want = request(self.sidecar, method, path, headers, body)
        answers = {}
        for name, base in self.fronts.items():
            got = request(base, method, path, headers, body)
            answers[name] = got
            self.count += 1
            what = f"{method} {path} {headers or ''}"
            if rate_limited and got[0] == 429 and want[0] != 429:
                # The contact routes' limit is per client and every server
                # here reaches the sidecar from 127.0.0.1: a later request
                # may be the one past it. Its answer must still be the
                # sidecar's, with the route's CORS.
                problem = json.loads(got[2])
                if (problem.get("code") != "too_many_requests" or "retry-after" not in got[1]
                        or got[1].get("access-control-allow-origin") != want[1].get("access-control-allow-origin")
                        or norm("vary", got[1].get("vary")) != norm("vary", want[1].get("vary"))):
                    self.fail(f"{name} {what}: a 429 unlike the sidecar's: {got[1]} {got[2][:200]!r}")
                continue
            if got[0] != want[0]:
                self.fail(f"{name} {what}: status: sidecar {want[0]}, {name} {got[0]}")
                continue
            for h in COMPARED:
                a, b = norm(h, want[1].get(h)), norm(h, got[1].get(h))
                if a != b:
                    self.diff(name, case, h, what, a, b)
            if etag == "same" and want[1].get("etag") != got[1].get("etag"):
                self.diff(name, case, "etag", what, want[1].get("etag"), got[1].get("etag"))
            if etag == "front" and want[1].get("etag") and want[0] in (200, 206):
                tag = got[1].get("etag")
                if not tag or not STRONG_ETAG.match(tag):
                    self.fail(f"{name} {what}: not a strong ETag: {tag!r}")
            if compare_body == "bytes" and method != "HEAD" and want[2] != got[2]:
                self.fail(f"{name} {what}: body differs ({len(want[2])} vs {len(got[2])} bytes)")
            if compare_body == "problem":
                self.same_problem(name, what, want, got)
            if compare_body == "jsonrpc":
                a, b = json.loads(want[2]), json.loads(got[2])
                if a.get("result", {}).get("protocolVersion") != b.get("result", {}).get("protocolVersion"):
                    self.fail(f"{name} {what}: MCP answers differ")
        return want, answers

    def same_problem(self, name, what, want, got):
        try:
            a, b = json.loads(want[2]), json.loads(got[2])
        except ValueError:
            self.fail(f"{name} {what}: not a JSON problem: {got[2][:120]!r}")
            return
        for member in ["type", "title", "status", "code"]:
            if a.get(member) != b.get(member):
                self.fail(f"{name} {what}: problem {member}: {a.get(member)!r} vs {b.get(member)!r}")

    def revalidate(self, path, encoding):
        """Each server's own ETag answers 304 with the same headers."""
        headers = {"Accept-Encoding": encoding}
        for name, base in [("sidecar", self.sidecar)] + list(self.fronts.items()):
            status, h, _ = request(base, "GET", path, headers)
            tag = h.get("etag")
            if status != 200 or not tag:
                self.fail(f"{name} GET {path}: {status}, ETag {tag!r}")
                return
            if name == "sidecar":
                want = request(base, "GET", path, {**headers, "If-None-Match": tag})
                if want[0] != 304:
                    self.fail(f"sidecar {path}: If-None-Match gave {want[0]}")
                continue
            got = request(base, "GET", path, {**headers, "If-None-Match": tag})
            self.count += 1
            what = f"GET {path} If-None-Match {tag} ({encoding})"
            if got[0] != 304:
                self.fail(f"{name} {what}: {got[0]}, not 304")
                continue
            if got[1].get("etag") != tag:
                self.fail(f"{name} {what}: 304 with ETag {got[1].get('etag')!r}")
            for hname in COMPARED:
                a, b = norm(hname, want[1].get(hname)), norm(hname, got[1].get(hname))
                if a != b:
                    self.diff(name, "revalidate", hname, what, a, b)


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
MARKDOWN = "text/markdown; charset=utf-8"


def markdown_on_request(c, dist, manifest, redirects):
    """Three page URLs with a Markdown twin (decision 0046): the twin for
    `Accept: text/markdown` (also compressed, on HEAD and revalidated with
    each server's own ETag), the HTML for a browser, `*/*` and a refused
    `text/markdown;q=0`; `Vary: Accept` on all of them, on every server."""
    pages = [k for k in sorted(manifest)
             if (k == "index.html" or k.endswith("/index.html"))
             and k[: -len("html")] + "md" in manifest
             and "/" + k[: -len("index.html")] not in redirects]
    pages = ([p for p in pages if p == "index.html"] + [p for p in pages if p != "index.html"])[:3]
    if len(pages) < 3:
        c.fail(f"only {len(pages)} pages with a Markdown twin to ask for", "markdown-pages")
    servers = [("sidecar", c.sidecar), *c.fronts.items()]
    for key in pages:
        url = "/" + key[: -len("index.html")]
        twin = open(f"{dist}/{key[:-len('html')]}md", "rb").read()
        page = open(f"{dist}/{key}", "rb").read()
        for accept, want_twin in [("text/markdown", True), ("text/markdown, text/html;q=0.5", True),
                                  ("text/markdown, text/html, */*", True), (BROWSER, False),
                                  ("*/*", False), ("text/markdown;q=0", False)]:
            headers = {"Accept": accept, "Accept-Encoding": "identity"}
            want, answers = c.check("markdown", "GET", url, headers)
            for name, (status, h, body) in [("sidecar", want), *answers.items()]:
                what = f"{name} GET {url} Accept: {accept}"
                vary = norm("vary", h.get("vary")) or []
                if status != 200 or "accept" not in vary:
                    c.fail(f"{what}: {status}, Vary {h.get('vary')!r}", f"markdown vary {name}")
                if want_twin and (h.get("content-type") != MARKDOWN or body != twin):
                    c.fail(f"{what}: {h.get('content-type')!r}, {len(body)} bytes, not the twin",
                           f"markdown twin {name}")
                if not want_twin and (not h.get("content-type", "").startswith("text/html") or body != page):
                    c.fail(f"{what}: {h.get('content-type')!r}, not the page", f"markdown page {name}")
        md = {"Accept": "text/markdown"}
        c.check("markdown-head", "HEAD", url, {**md, "Accept-Encoding": "identity"})
        for coding in manifest[key[: -len("html")] + "md"].get("encodings", {}):
            c.check("markdown-coded", "GET", url, {**md, "Accept-Encoding": coding})
        for name, base in servers:
            status, h, _ = request(base, "GET", url, {**md, "Accept-Encoding": "br"})
            tag = h.get("etag")
            if status != 200 or not tag or not STRONG_ETAG.match(tag):
                c.fail(f"{name} GET {url} in Markdown: {status}, ETag {tag!r}", f"markdown etag {name}")
                continue
            again = request(base, "GET", url, {**md, "Accept-Encoding": "br", "If-None-Match": tag})
            html = request(base, "GET", url, {"Accept": BROWSER, "Accept-Encoding": "br", "If-None-Match": tag})
            c.count += 2
            if again[0] != 304 or "accept" not in (norm("vary", again[1].get("vary")) or []):
                c.fail(f"{name} {url}: the twin's ETag gave {again[0]}, Vary {again[1].get('vary')!r}",
                       f"markdown 304 {name}")
            if html[0] != 200:
                c.fail(f"{name} {url}: the twin's ETag validated the page ({html[0]})", f"markdown etag {name}")
    print(f"parity: Markdown on request checked on {', '.join(pages)}")


def main():
    dist, sidecar = sys.argv[1], sys.argv[2].rstrip("/")
    fronts = dict(a.split("=", 1) for a in sys.argv[3:])
    whole = json.load(open(f"{dist}/manifest.json"))
    manifest = whole["files"]
    redirects = whole.get("redirects", {})
    c = Checker(sidecar, fronts)

    urls = []
    for key in sorted(manifest):
        folder = "/" + key[: -len("index.html")]
        # A moved page's old folder redirects (below); its HTML page, for
        # hosts without redirects, is still a file at …/index.html.
        if (key == "index.html" or key.endswith("/index.html")) and folder not in redirects:
            urls.append((key, folder))
        urls.append((key, "/" + key))
    print(f"parity: {len(urls)} URLs of {len(manifest)} files, fronts {', '.join(fronts)}")

    for key, url in urls:
        entry = manifest[key]
        c.check("file", "GET", url, {"Accept-Encoding": "identity"})
        c.check("file-head", "HEAD", url, {"Accept-Encoding": "identity"})
        for coding in entry.get("encodings", {}):
            c.check(f"file-{coding}", "GET", url, {"Accept-Encoding": coding})
        c.check("preflight", "OPTIONS", url, {
            "Origin": "https://elsewhere.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match",
        }, compare_body=None)
        c.revalidate(url, "identity")
        if "br" in entry.get("encodings", {}):
            c.revalidate(url, "br")

    markdown_on_request(c, dist, manifest, redirects)

    # Ranges of the identity bytes.
    c.check("range", "GET", "/llms.txt", {"Range": "bytes=0-9"})

    # Folders without their slash, the query kept.
    folders = sorted({u.rstrip("/") for _, u in urls if u.endswith("/") and u != "/"})
    for folder in folders[:20]:
        c.check("folder-redirect", "GET", folder, compare_body=None)
    if folders:
        c.check("folder-redirect", "GET", folders[0] + "?q=a%20b", compare_body=None)

    # A moved page (front matter `aliases`): its old path, without its
    # slash and with a query, answers 301 to the page (the query kept) on
    # the sidecar and every front, and the page is there.
    if not redirects:
        c.fail("the build has no moved page (manifest `redirects`) to follow", "no-alias")
    for old, new in sorted(redirects.items()):
        for path, target in [(old, new), (old.rstrip("/"), new), (old + "?q=a%20b", new + "?q=a%20b")]:
            want, answers = c.check("alias", "GET", path, compare_body=None, etag=None)
            for name, (status, headers, _) in [("sidecar", want), *answers.items()]:
                if status != 301 or headers.get("location") != target:
                    c.fail(f"GET {path} through {name}: {status} to {headers.get('location')!r}, "
                           f"not 301 to {target!r}", f"alias {name}")
        c.check("alias-target", "GET", new, {"Accept-Encoding": "identity"})

    # What is not published: the 404 page or a problem.
    for path in ["/no-such-page/", "/manifest.json", "/index.html.br", "/index.html.gz", "/assets/"]:
        c.check("not-found-page", "GET", path, {"Accept-Encoding": "br"})
    for path in ["/api/no-such-route", "/api", "/api/", "/mcp/no-such", "/api/service.json.br"]:
        c.check("not-found-problem", "GET", path, compare_body="problem")
    c.check("method", "POST", "/docs/", {"Content-Type": "text/plain"}, b"x", compare_body="problem")
    c.check("method", "PUT", "/llms.txt", {"Content-Type": "text/plain"}, b"x", compare_body="problem")
    c.check("method", "DELETE", "/api/service.json", compare_body="problem")

    # The sidecar's routes, through the proxy with its own headers.
    origin = json.load(open(f"{dist}/openapi.json"))["servers"][0]["url"].rstrip("/")
    live = ["/api/platform-stats.php", "/api/observations-data.php?limit=2&parameter=nitrate",
            "/api/globe-data.php"]
    for path in live:
        for enc in ["identity", "br"]:
            c.check("live", "GET", path, {"Accept-Encoding": enc}, compare_body=None, etag="same")
        want, _ = c.check("live-head", "HEAD", path, compare_body=None, etag="same")
        tag = want[1].get("etag")
        if tag:
            c.check("live-304", "GET", path, {"If-None-Match": tag}, compare_body=None, etag="same")
    c.check("live-error", "GET", "/api/observations-data.php?nope=1", compare_body="problem")
    for path in ["/healthz", "/readyz"]:
        c.check("ops", "GET", path, etag=None)
    # Metrics live on the sidecar's admin listener: neither the sidecar's
    # public listener nor any front answers them.
    want, answers = c.check("ops-hidden", "GET", "/metrics", compare_body=None, etag=None)
    for name, got in [("sidecar", want), *answers.items()]:
        if got[0] != 404:
            c.fail(f"GET /metrics through {name}: {got[0]}, not 404", "metrics-public")
    c.check("challenge", "GET", "/api/contact-challenge", compare_body=None, etag=None)
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "parity", "version": "1"}}}).encode()
    mcp_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    for path in ["/mcp/", "/mcp"]:
        c.check("mcp", "POST", path, mcp_headers, init, compare_body="jsonrpc", etag=None)
        c.check("mcp-get", "GET", path, compare_body="problem", etag=None)
    c.check("mcp-too-large", "POST", "/mcp/", mcp_headers, b" " * 70000, compare_body="problem", etag=None)
    c.check("contact", "POST", "/api/contact.php",
            {"Content-Type": "application/json", "Origin": origin}, b"{}", compare_body="problem", etag=None,
            rate_limited=True)
    c.check("contact-foreign", "POST", "/api/contact.php",
            {"Content-Type": "application/json", "Origin": "https://elsewhere.example"}, b"{}",
            compare_body="problem", etag=None)
    for path, method, hdrs in [
        ("/api/platform-stats.php", "GET", "if-none-match"),
        ("/mcp/", "POST", "content-type, mcp-protocol-version"),
        ("/api/contact.php", "POST", "content-type"),
    ]:
        c.check("route-preflight", "OPTIONS", path, {
            "Origin": origin, "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": hdrs}, compare_body=None, etag=None)

    stale = [k for k in KNOWN if k[0] in fronts and k not in c.used]
    for k in stale:
        c.fail(f"listed difference {k} no longer occurs: remove it from KNOWN")
    print(f"parity: {c.count} answers compared; known differences seen: "
          + ("; ".join(f"{f} {case} {h}" for f, case, h in sorted(c.used)) or "none"))
    if c.failures:
        kinds = {}
        for _, kind in c.failures:
            kinds[kind] = kinds.get(kind, 0) + 1
        for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1])[:30]:
            print(f"  {n:5d} x {kind}", file=sys.stderr)
        print(f"parity: {len(c.failures)} failures", file=sys.stderr)
        sys.exit(1)
    print("parity: every answer agrees (known differences listed above, each with its reason in KNOWN)")


if __name__ == "__main__":
    main()
