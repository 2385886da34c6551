"""Two content releases published under load, through scripts/release, while
clients keep asking a real sidecar for pages, an old hashed asset, chat
answers, MCP searches and live statistics.

  release_load.py BASE TARGET SECONDS DIST_A DIST_B DIST_C

DIST_A is already published to TARGET and served by the sidecar at BASE.
DIST_B adds a page (the kingfisher survey, 41 pairs), DIST_C changes it
(44 pairs). At a third and two thirds of SECONDS, B then C are published
with `scripts/release publish ... --wait BASE`.

Every answer is checked against the release it names (`X-Release`):
- a page: B's and C's kingfisher page says 41 and 44 pairs, A has none (404);
- a chat answer: its `release` member equals its header, every citation is
  a page of that release, and a quote about the survey has that release's
  number;
- an MCP search for the survey finds its page exactly in B and C;
- release A's hashed asset answers 200 throughout;
- the statistics answer 200.
Exit 1 on any failed request or mixed answer; prints the figures.
"""

import hashlib
import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

PAGE = "/docs/data/kingfisher-survey/"
NUMBER = {"b": "41", "c": "44"}


def release_id(dist: Path) -> str:
    return hashlib.sha256((dist / "manifest.json").read_bytes()).hexdigest()[:16]


def pages_of(dist: Path) -> set:
    files = json.loads((dist / "manifest.json").read_text())["files"]
    return {"/" + k[: -len("index.html")] for k in files if k == "index.html" or k.endswith("/index.html")}


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.count = {}
        self.failures = []
        self.releases = {}
        self.new_page_cited = {}

    def ok(self, kind, release):
        with self.lock:
            self.count[kind] = self.count.get(kind, 0) + 1
            self.releases[release] = self.releases.get(release, 0) + 1

    def fail(self, kind, why):
        with self.lock:
            self.count[kind] = self.count.get(kind, 0) + 1
            if len(self.failures) < 50:
                self.failures.append(f"{kind}: {why}")
            else:
                self.failures.append("")


def main():
    base, target, seconds = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    dists = {name: Path(p) for name, p in zip("abc", sys.argv[4:7])}
    ids = {name: release_id(d) for name, d in dists.items()}
    name_of = {v: k for k, v in ids.items()}
    pages = {ids[n]: pages_of(d) for n, d in dists.items()}
    files_a = json.loads((dists["a"] / "manifest.json").read_text())["files"]
    asset = "/" + next(k for k in sorted(files_a) if k.startswith("assets/") and k.endswith(".css"))
    url = urllib.parse.urlsplit(base)
    origin = f"{url.scheme}://{url.netloc}"
    stats = Stats()
    stop = time.monotonic() + seconds

    def client(worker):
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        i = worker
        while time.monotonic() < stop:
            kind = ["page", "new-page", "asset", "chat", "mcp", "stats"][i % 6]
            i += 1
            try:
                check(conn, kind)
            except Exception as e:  # a refused or broken connection is a failure too
                stats.fail(kind, repr(e))
                conn.close()
                conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)

    def request(conn, method, path, body=None, headers=None):
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        return r.status, r.getheader("x-release", ""), data

    def check(conn, kind):
        if kind == "page":
            status, rel, body = request(conn, "GET", "/")
            good = status == 200 and rel in name_of
        elif kind == "new-page":
            status, rel, body = request(conn, "GET", PAGE)
            name = name_of.get(rel)
            if name == "a":
                good = status == 404
            else:
                good = status == 200 and name in NUMBER and f"{NUMBER[name]} nesting pairs" in body.decode()
        elif kind == "asset":
            status, rel, body = request(conn, "GET", asset)
            good = status == 200 and rel == ids["a"]
        elif kind == "stats":
            status, rel, body = request(conn, "GET", "/api/platform-stats.php")
            good = status == 200 and rel in name_of
        elif kind == "chat":
            question = json.dumps({"message": "How many kingfisher nesting pairs did the survey count?"})
            status, rel, body = request(conn, "POST", "/api/chat.php", question,
                                        {"Content-Type": "application/json", "Origin": origin})
            good = status == 200 and rel in name_of
            if good:
                answer = json.loads(body)
                good = answer.get("release") == rel
                for c in answer.get("citations", []):
                    path = urllib.parse.urlsplit(c["url"]).path
                    if path not in pages[rel]:
                        good = False
                    if path == PAGE:
                        name = name_of[rel]
                        if NUMBER.get(name) not in c["quote"]:
                            good = False
                        with stats.lock:
                            stats.new_page_cited[name] = stats.new_page_cited.get(name, 0) + 1
        else:
            call = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                               "params": {"name": "search_documentation",
                                          "arguments": {"query": "kingfisher survey nesting pairs"}}})
            status, rel, body = request(conn, "POST", "/mcp/", call, {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18"})
            good = status == 200 and rel in name_of
            if good:
                found = "kingfisher-survey" in body.decode()
                good = found == (name_of[rel] != "a")
        if good:
            stats.ok(kind, rel)
        else:
            stats.fail(kind, f"status {status}, release {rel!r}: {body[:200]!r}")

    threads = [threading.Thread(target=client, args=(w,)) for w in range(6)]
    started = time.monotonic()
    for t in threads:
        t.start()
    published = {}
    for name, at in (("b", seconds / 3), ("c", 2 * seconds / 3)):
        time.sleep(max(0.0, started + at - time.monotonic()))
        t0 = time.monotonic()
        subprocess.run(["scripts/release", "publish", str(dists[name]), "--to", str(target),
                        "--wait", base, "--timeout", "30"], check=True, stdout=subprocess.DEVNULL)
        published[name] = time.monotonic() - t0
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started

    total = sum(stats.count.values())
    failures = [f for f in stats.failures if f] 
    print(f"release under load: {total} requests in {elapsed:.1f} s ({total / elapsed:.0f}/s), "
          f"{len(stats.failures)} failed or mixed")
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.count.items())))
    print("  answers by release: " + ", ".join(f"{name_of.get(r, r)} ({r}) {n}" for r, n in sorted(stats.releases.items())))
    print("  publish (copy, switch, wait for the sidecar): " + ", ".join(f"{n} {s:.2f} s" for n, s in published.items()))
    print("  chat answers citing the new page: " + ", ".join(f"{n} {c}" for n, c in sorted(stats.new_page_cited.items())))
    for f in failures[:20]:
        print("  FAIL " + f)
    problems = []
    if stats.failures:
        problems.append("failed or mixed answers")
    for name in "abc":
        if not stats.releases.get(ids[name]):
            problems.append(f"no answer from release {name}")
    for name in "bc":
        if not stats.new_page_cited.get(name):
            problems.append(f"no chat answer of release {name} cited the new page")
    if problems:
        print("release under load: FAIL: " + "; ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
