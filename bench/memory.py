"""The sidecar's resident memory on a built site, after a warm-up.

    python3 bench/memory.py SIDECAR DIST LABEL [REQUESTS]

Starts SIDECAR on DIST (its own SQLite data folder, sample data off),
reads its resident set (VmRSS) once it is ready, sends REQUESTS (1,000)
mixed requests in a fixed rotation — six in ten files the manifest lists
(pages, twins, search files, assets), two chat questions, two MCP calls
(documentation search and reading a page) — and reads it again. Prints one
Markdown table row: label, pages, dist/ size, RSS at ready, RSS after the
warm-up, peak (VmHWM).
"""

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time

QUESTIONS = [
    "How do I measure nitrate in a stream?",
    "What should I bring on my first site visit?",
    "Can I reuse the archive material?",
    "Which tools does the MCP endpoint offer?",
    "What is the weather in Paris tomorrow?",
]
SEARCHES = ["nitrate", "licence archive", "classification consensus", "turbidity tube"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def dist_mib(dist):
    total = 0
    for root, _, files in os.walk(dist):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total / 2**20


def main():
    sidecar, dist, label = sys.argv[1:4]
    requests = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    with open(os.path.join(dist, "manifest.json")) as f:
        files = sorted(json.load(f)["files"])
    pages = sum(1 for k in files if k.endswith("index.html"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as data:
        proc = subprocess.Popen(
            [sidecar, "serve", "--listen", f"127.0.0.1:{port}", "--dist", dist,
             "--data-dir", data, "--site-origin", base, "--sample", "none",
             "--chat-rate-limit", "1000000000", "--log", "warn"] + sys.argv[5:],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            conn = wait_ready(port, proc)
            ready = kib(proc.pid, "VmRSS")
            rng = random.Random(7)
            failed = 0
            for i in range(requests):
                status = one(conn, base, i, rng, files)
                if status >= 400:
                    failed += 1
            after = kib(proc.pid, "VmRSS")
            peak = kib(proc.pid, "VmHWM")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    if failed:
        print(f"bench-memory: {failed} of {requests} requests failed", file=sys.stderr)
        sys.exit(1)
    print(f"| {label} | {pages} | {dist_mib(dist):.0f} | {ready / 1024:.1f} "
          f"| {after / 1024:.1f} | {peak / 1024:.1f} |")


def wait_ready(port, proc):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"bench-memory: the sidecar exited ({proc.returncode})")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/readyz")
            response = conn.getresponse()
            response.read()
            if response.status == 200:
                return conn
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit("bench-memory: the sidecar did not become ready in 120 s")


def one(conn, base, i, rng, files):
    """Request number `i` of the rotation; returns its status."""
    kind = i % 10
    if kind < 6:
        key = rng.choice(files)
        return call(conn, "GET", "/" + key, None, {})
    if kind < 8:
        body = json.dumps({"message": QUESTIONS[i % len(QUESTIONS)]})
        headers = {"Content-Type": "application/json", "Origin": base}
        return call(conn, "POST", "/api/chat.php", body, headers)
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    if kind == 8:
        params = {"name": "search_documentation",
                  "arguments": {"query": SEARCHES[i % len(SEARCHES)]}}
        method = "tools/call"
    else:
        page = rng.choice([k for k in files[:2000] if k.endswith("index.md")] or ["index.md"])
        params = {"uri": "/" + page.removesuffix("index.md")}
        method = "resources/read"
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    return call(conn, "POST", "/mcp/", body, headers)


def call(conn, method, path, body, headers):
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    response.read()
    return response.status


if __name__ == "__main__":
    main()
