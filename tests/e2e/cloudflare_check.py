"""The Cloudflare Pages files of `generate host-config --for cloudflare`,
served by Cloudflare's own local runtime (`wrangler pages dev`), compared
with the sidecar alone (stdlib only).

    python3 tests/e2e/cloudflare_check.py DIST SIDECAR_BASE PAGES_BASE

For every URL of every file in DIST/manifest.json (identity coding): the
same status, Content-Type, Cache-Control, CORS and nosniff, the security
headers on HTML and the api-catalog Link, the same bytes, and a strong ETag
that revalidates. For the sidecar's routes, reached through the generated
Pages Function: the same status, type and body kind for the live routes,
MCP initialize, the contact challenge, a CORS preflight, and the 404
problem object of an unknown API path.

What Cloudflare does differently by design is not compared and is listed
in BY_DESIGN with the reason; docs/deploying.md says the same.
"""

import functools
import json
import re
import sys

import e2e_support

BY_DESIGN = {
    "content-encoding / vary":
        "Pages compresses at the edge itself and ignores precompressed twins; the local "
        "runtime sends identity only",
    "etag":
        "Pages computes its own strong ETag per file; compared instead: it revalidates (304)",
    "security headers on non-HTML files":
        "_headers holds at most 100 rules, so the HTML headers go on `/*` (harmless on "
        "other types) rather than one rule per page",
    "`…/index.html` and `/404.html`":
        "Pages serves an HTML file at its pretty URL only and answers the file's own path "
        "with a 308 to it (checked: the redirect and its target)",
    "JavaScript's Content-Type":
        "Pages types `.js` as `application/javascript`, which the HTML standard counts as "
        "the same JavaScript MIME type as the sidecar's `text/javascript`",
    "OPTIONS on files":
        "Pages answers OPTIONS for static files itself; cross-origin GETs of files are "
        "simple requests and need no preflight",
}
COMPARED = ["content-type", "cache-control", "access-control-allow-origin",
            "access-control-expose-headers", "x-content-type-options"]
HTML = ["content-security-policy", "referrer-policy", "permissions-policy", "x-frame-options"]
STRONG_ETAG = re.compile(r'^"[\x21\x23-\x7e]*"$')


# Up to 30 s a request; a header the answer repeats keeps its last value.
request = functools.partial(e2e_support.request, timeout=30, join=False)


def main():
    dist, sidecar, pages = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3].rstrip("/")
    manifest = json.load(open(f"{dist}/manifest.json"))
    redirects = manifest.get("redirects", {})
    failures = []
    compared = 0

    def fail(msg):
        failures.append(msg)
        if len(failures) <= 40:
            print("FAIL " + msg, file=sys.stderr)

    for key, entry in sorted(manifest["files"].items()):
        urls = [f"/{key}"]
        if key == "index.html" or key.endswith("/index.html"):
            urls.insert(0, f"/{key[:-len('index.html')]}")
        for url in urls:
            identity = {"Accept-Encoding": "identity"}
            s_status, s_h, s_body = request(sidecar, "GET", url, identity)
            p_status, p_h, p_body = request(pages, "GET", url, identity)
            compared += 1
            if url.endswith(".html") and p_status == 308:
                pretty = url[:-len("index.html")] if url.endswith("/index.html") else url[:-len(".html")]
                if p_h.get("location") != pretty:
                    fail(f"GET {url}: 308 to {p_h.get('location')!r}, want {pretty!r}")
                if key != "404.html" and f"/{key[:-len('index.html')]}" not in urls:
                    fail(f"GET {url}: redirected, and its folder URL is not checked")
                continue
            if url in redirects:
                continue  # a moved page's old folder: checked below
            if (s_status, p_status) != (200, 200):
                fail(f"GET {url}: sidecar {s_status}, pages {p_status}")
                continue
            for name in COMPARED + (HTML if "text/html" in entry["content_type"] else []) + ["link"]:
                a, b = s_h.get(name), p_h.get(name)
                if name == "x-content-type-options":
                    a, b = a and a.lower(), b and b.lower()
                if name == "content-type" and a == "text/javascript; charset=utf-8":
                    a = b if b == "application/javascript" else a
                if a != b:
                    fail(f"GET {url}: {name}: sidecar {a!r}, pages {b!r}")
            if s_body != p_body:
                fail(f"GET {url}: body differs ({len(s_body)} vs {len(p_body)} bytes)")
            tag = p_h.get("etag", "")
            if not STRONG_ETAG.match(tag):
                fail(f"GET {url}: pages ETag {tag!r} is not strong")
            else:
                again = request(pages, "GET", url, {"If-None-Match": tag, **identity})[0]
                if again != 304:
                    fail(f"GET {url}: If-None-Match {tag} answered {again}, want 304")

    # Moved pages (`_redirects`): the old path, with and without its slash,
    # answers 301 to the page on both.
    for old, target in sorted(redirects.items()):
        for url in sorted({old, old.rstrip("/")}):
            s_status, s_h, _ = request(sidecar, "GET", url)
            p_status, p_h, _ = request(pages, "GET", url)
            compared += 1
            for name, status, headers in [("sidecar", s_status, s_h), ("pages", p_status, p_h)]:
                if status != 301 or headers.get("location") != target:
                    fail(f"GET {url} through {name}: {status} to {headers.get('location')!r}, not 301 to {target!r}")

    # The sidecar's routes, through the Pages Function.
    mcp_init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "cloudflare-check", "version": "1"}}}).encode()
    mcp_headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-06-18"}
    cases = [
        ("GET", "/api/platform-stats.php", {}, None, "json"),
        ("GET", "/api/globe-data.php", {}, None, "json"),
        ("GET", "/api/observations-data.php?limit=2", {}, None, "json"),
        ("GET", "/api/contact-challenge", {}, None, "json"),
        ("POST", "/mcp/", mcp_headers, mcp_init, "json"),
        ("POST", "/mcp", mcp_headers, mcp_init, "json"),
        ("OPTIONS", "/api/platform-stats.php", {"Origin": "https://elsewhere.example",
                                                "Access-Control-Request-Method": "GET"}, None, "none"),
        ("GET", "/api/no-such-route", {}, None, "problem"),
        ("GET", "/api/observations-data.php?limit=0", {}, None, "problem"),
        ("GET", "/healthz", {}, None, "json"),
    ]
    # An unknown page: the 404 page with status 404 on both.
    compared += 1
    s_status, s_h, s_body = request(sidecar, "GET", "/no-such-page/", {"Accept-Encoding": "identity"})
    p_status, p_h, p_body = request(pages, "GET", "/no-such-page/", {"Accept-Encoding": "identity"})
    if (s_status, p_status) != (404, 404) or s_body != p_body:
        fail(f"GET /no-such-page/: sidecar {s_status}, pages {p_status}, bodies equal: {s_body == p_body}")
    for method, path, headers, body, kind in cases:
        compared += 1
        s_status, s_h, s_body = request(sidecar, method, path, headers, body)
        p_status, p_h, p_body = request(pages, method, path, headers, body)
        if s_status != p_status:
            fail(f"{method} {path}: status: sidecar {s_status}, pages {p_status}")
            continue
        for name in ["content-type", "cache-control", "access-control-allow-origin",
                     "access-control-allow-methods", "allow"]:
            if s_h.get(name) != p_h.get(name):
                fail(f"{method} {path}: {name}: sidecar {s_h.get(name)!r}, pages {p_h.get(name)!r}")
        if kind == "problem":
            a, b = json.loads(s_body), json.loads(p_body)
            if (a["code"], a["status"], a["type"]) != (b["code"], b["status"], b["type"]):
                fail(f"{method} {path}: problem {a} vs {b}")
        elif kind == "json":
            a, b = json.loads(s_body), json.loads(p_body)
            if type(a) is not type(b) or (isinstance(a, dict) and sorted(a) != sorted(b)):
                fail(f"{method} {path}: members {sorted(a)} vs {sorted(b)}")

    print(f"cloudflare: {compared} requests compared with the sidecar alone; not compared, "
          "by design: " + "; ".join(f"{k} ({v})" for k, v in BY_DESIGN.items()))
    if failures:
        print(f"cloudflare: {len(failures)} differences", file=sys.stderr)
        sys.exit(1)
    print("cloudflare: every compared answer agrees")


if __name__ == "__main__":
    main()
