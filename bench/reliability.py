#!/usr/bin/env python3
"""Reliability benchmark of the release sidecar (a benchmark, not a test).

    reliability.py --sidecar BIN --dist DIR --wrk WRK --pg-server SCRIPT [--rows a,b]

Prints one table, a row per figure, each with its target and whether it was
met. Rows (each starts a fresh sidecar, so its peak RSS is its own):

  keepalive   1,000 keep-alive connections for RELIABILITY_SECONDS (60) on a
              mix of pages, an asset, the live routes and MCP tool calls
              (wrk): errors, p50/p99, peak RSS.
  slowloris   500 connections trickling a request head one byte a second
              while wrk measures a page's p99; compared with the unloaded
              p99; the slow connections must be closed by the header-read
              timeout.
  slowbody    the same with 500 POST bodies trickled one byte a second at
              the chat, contact and MCP routes: closed by the request timeout.
  maxconn     10,000 connections opened against --max-connections 1000: the
              excess answered 503 with Retry-After (or refused), the process
              up, memory bounded, and a normal request answered afterwards.
  flood       8 MiB bodies and deeply nested JSON at /mcp/, the contact and
              chat routes: 413 and 400, memory bounded.
  pgoutage    PostgreSQL stopped for a few seconds under load and restarted:
              the documented degraded answers (503 problems), no crash,
              recovery without a restart, and every acknowledged enquiry in
              the database.
  diskfull    the SQLite file's disk (a small tmpfs) filled: enquiries refused
              with a problem, no crash, accepted again once space is freed,
              no acknowledged enquiry lost.
  sigterm     SIGTERM under full load: requests in flight finish, exit 0.

Only the standard library; needs wrk and, for pgoutage, psql and the
project's throwaway PostgreSQL server; diskfull needs root (mount).
"""

import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from e2e_support import free_port, ready, solve  # noqa: E402

SECONDS = int(os.environ.get("RELIABILITY_SECONDS", "60"))
ROWS = []


def row(name, figure, target, met):
    ROWS.append((name, figure, target, "met" if met else "MISSED"))
    print(f"  {name}: {figure} (target: {target}) {'met' if met else 'MISSED'}", flush=True)


class Sidecar:
    """The release binary on a fresh data folder, cheap challenges and no
    rate limits (the rows measure the server, not the limits)."""

    def __init__(self, args, extra=(), database=None, data_dir=None):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.tmp = tempfile.mkdtemp(prefix="reliability-")
        self.data_dir = data_dir or self.tmp
        cmd = [
            args.sidecar, "serve", "--listen", f"127.0.0.1:{self.port}", "--dist", args.dist,
            "--data-dir", self.data_dir, "--site-origin", self.base,
            "--challenge-cost", "1", "--challenge-counter-min", "1",
            "--challenge-counter-max", "3", "--contact-min-fill-ms", "0",
            "--contact-rate-limit", "1000000", "--challenge-rate-limit", "1000000",
            "--chat-rate-limit", "1000000", "--log", "warn", *extra,
        ]
        if database:
            cmd += ["--database", database]
        if "--sample" not in extra:
            cmd += ["--sample", "default"]
        self.log = open(os.path.join(self.tmp, "sidecar.log"), "wb")
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while not self.ready():
            if time.monotonic() > deadline:
                raise SystemExit("the sidecar did not become ready")
            time.sleep(0.05)

    def ready(self):
        return ready(self.proc, self.base, lambda: ": " + self.tail())

    def alive(self):
        return self.proc.poll() is None

    def status(self, key):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) // 1024
        return 0

    def peak_mib(self):
        return self.status("VmHWM")

    def rss_mib(self):
        return self.status("VmRSS")

    def tail(self):
        self.log.flush()
        with open(os.path.join(self.tmp, "sidecar.log"), "rb") as f:
            return f.read()[-2000:].decode(errors="replace")

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def get(url, timeout=10, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def asset(base):
    html = get(base + "/")[1].decode()
    m = re.search(r'href="(/assets/[^"]+\.css)"', html)
    return m.group(1) if m else "/"


# --- wrk ------------------------------------------------------------------

MIX_LUA = r"""
local reqs = {}
local i = 0
function init(args)
  local mcp = {["Content-Type"] = "application/json",
               ["Accept"] = "application/json, text/event-stream"}
  reqs = {
    wrk.format("GET", "/"),
    wrk.format("GET", "/docs/"),
    wrk.format("GET", args[1]),
    wrk.format("GET", "/api/platform-stats.php"),
    wrk.format("GET", "/api/observations-data.php?limit=20"),
    wrk.format("GET", "/api/globe-data.php"),
    wrk.format("POST", "/mcp/", mcp,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_platform_statistics","arguments":{}}}'),
    wrk.format("POST", "/mcp/", mcp, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'),
  }
  i = math.random(#reqs)
end
function request()
  i = i % #reqs + 1
  return reqs[i]
end
"""


def wrk(args, url, connections, seconds, script=None, script_args=(), threads=1):
    cmd = [args.wrk, f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency",
           "--timeout", "10s"]
    if script:
        cmd += ["-s", script]
    cmd.append(url)
    if script_args:
        cmd += ["--", *script_args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60).stdout
    return parse_wrk(out)


def ms(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def parse_wrk(out):
    r = {"requests": 0, "errors": 0, "non2xx": 0, "p50": 0.0, "p99": 0.0, "rps": 0.0,
         "socket": "none"}
    if m := re.search(r"(\d+) requests in", out):
        r["requests"] = int(m.group(1))
    if m := re.search(r"Requests/sec:\s+([\d.]+)", out):
        r["rps"] = float(m.group(1))
    if m := re.search(r"^\s+50%\s+(\S+)", out, re.M):
        r["p50"] = ms(m.group(1))
    if m := re.search(r"^\s+99%\s+(\S+)", out, re.M):
        r["p99"] = ms(m.group(1))
    if m := re.search(r"Socket errors: (.*)", out):
        r["socket"] = m.group(1).strip()
        r["errors"] += sum(int(n) for n in re.findall(r"\d+", m.group(1)))
    if m := re.search(r"Non-2xx or 3xx responses: (\d+)", out):
        r["non2xx"] = int(m.group(1))
        r["errors"] += r["non2xx"]
    return r


# --- rows -----------------------------------------------------------------


def keepalive(args):
    s = Sidecar(args)
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(MIX_LUA)
        r = wrk(args, s.base, 1000, SECONDS, f.name, [asset(s.base)])
        os.unlink(f.name)
        peak = s.peak_mib()
        figure = (f"{r['requests']:,} requests in {SECONDS} s ({r['rps']:,.0f}/s), "
                  f"{r['errors']} errors (socket {r['socket']}), p50 {r['p50']:.1f} ms, "
                  f"p99 {r['p99']:.1f} ms, peak RSS {peak} MiB")
        row("1,000 keep-alive connections, mixed", figure,
            "0 errors, p99 < 50 ms, RSS <= 64 MiB",
            r["errors"] == 0 and r["p99"] < 50 and peak <= 64 and s.alive())
    finally:
        s.stop()


async def trickle(port, sent, trickled, seconds):
    """One slow client: sends `sent` at once, then `trickled` one byte a
    second; returns how long the server took to answer or close, None if it
    was still open after `seconds`, or "refused"."""
    start = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return "refused"
    try:
        writer.write(sent)
        await writer.drain()
        for i in range(len(trickled)):
            if time.monotonic() - start > seconds:
                return None
            writer.write(trickled[i:i + 1])
            await writer.drain()
            try:
                # Any answer (408) or the close ends it; the read is the
                # one-second pace.
                await asyncio.wait_for(reader.read(65536), timeout=1.0)
                return time.monotonic() - start
            except asyncio.TimeoutError:
                pass
    except (ConnectionError, OSError):
        return time.monotonic() - start
    finally:
        writer.close()
    return None


async def slow_clients(port, n, sent, trickled, seconds):
    # Spread the starts over a second, as real clients arrive.
    async def one(i):
        await asyncio.sleep(i / n)
        return await trickle(port, sent, trickled, seconds)

    return await asyncio.gather(*(one(i) for i in range(n)))


def run_async_in_thread(coro):
    result = {}

    def target():
        result["value"] = asyncio.run(coro)

    t = threading.Thread(target=target)
    t.start()
    return t, result


def slow(args, kind):
    s = Sidecar(args)
    try:
        base_r = wrk(args, s.base + "/", 16, 10)
        if kind == "slowloris":
            head, body_len, limit = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 60, 0, 20
            heads = [head]
        else:
            limit = 45
            heads = [
                (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 f"Accept: application/json, text/event-stream\r\nOrigin: {s.base}\r\n"
                 f"Content-Length: 2000\r\n\r\n").encode()
                for path in ["/api/chat.php", "/api/contact.php", "/mcp/"]
            ]
            body_len = 2000

        async def all_slow():
            if kind == "slowloris":
                return await slow_clients(s.port, 500, b"", heads[0], limit)
            groups = await asyncio.gather(*(
                slow_clients(s.port, n, h, b" " * body_len, limit)
                for n, h in zip([167, 167, 166], heads)))
            return [x for g in groups for x in g]

        t, result = run_async_in_thread(all_slow())
        time.sleep(2)
        loaded = wrk(args, s.base + "/", 16, 10)
        t.join(limit + 30)
        closed = [x for x in result.get("value", []) if isinstance(x, float)]
        refused = sum(1 for x in result.get("value", []) if x == "refused")
        ratio = loaded["p99"] / max(base_r["p99"], 0.001)
        what = "headers" if kind == "slowloris" else "POST bodies"
        when = (f"closed after {min(closed):.1f}–{max(closed):.1f} s" if closed else "none closed")
        figure = (f"p99 unloaded {base_r['p99']:.2f} ms, with 500 slow {what} {loaded['p99']:.2f} ms "
                  f"({ratio:.2f}×), {loaded['errors']} errors; slow connections closed by the "
                  f"server {len(closed)}/500 ({when}), {refused} refused; peak RSS {s.peak_mib()} MiB")
        row(f"500 slow {what}", figure,
            "p99 within 2× unloaded, slow connections closed by the timeout",
            ratio <= 2 and len(closed) == 500 and loaded["errors"] == 0 and s.alive())
    finally:
        s.stop()


def maxconn(args):
    s = Sidecar(args, ["--max-connections", "1000"])
    try:
        idle_rss = s.rss_mib()

        async def storm():
            counts = {"200": 0, "503": 0, "503 with Retry-After": 0, "closed": 0, "other": 0}
            held = []
            sem = asyncio.Semaphore(2000)

            async def one():
                async with sem:
                    try:
                        reader, writer = await asyncio.wait_for(
                            asyncio.open_connection("127.0.0.1", s.port), 10)
                    except (OSError, asyncio.TimeoutError):
                        counts["closed"] += 1
                        return
                    try:
                        writer.write(b"GET /api/platform-stats.php HTTP/1.1\r\nHost: x\r\n\r\n")
                        await writer.drain()
                        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 15)
                    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError):
                        counts["closed"] += 1
                        writer.close()
                        return
                    status = head.split(b" ", 2)[1].decode()
                    if status == "200":
                        counts["200"] += 1
                        held.append(writer)  # keep-alive: it keeps its slot
                    elif status == "503":
                        counts["503"] += 1
                        if b"\r\nretry-after:" in head.lower():
                            counts["503 with Retry-After"] += 1
                        writer.close()
                    else:
                        counts["other"] += 1
                        writer.close()

            await asyncio.gather(*(one() for _ in range(10_000)))
            peak = s.rss_mib()
            for w in held:
                w.close()
            return counts, peak

        counts, rss_loaded = asyncio.run(storm())
        time.sleep(1)
        after = get(s.base + "/api/platform-stats.php")[0]
        figure = (f"10,000 connections: {counts['200']:,} answered 200 and held, "
                  f"{counts['503']:,} answered 503 ({counts['503 with Retry-After']:,} with "
                  f"Retry-After), {counts['closed']:,} closed unanswered, {counts['other']} other; "
                  f"RSS idle {idle_rss} MiB, loaded {rss_loaded} MiB, peak {s.peak_mib()} MiB; "
                  f"afterwards {after}")
        row("10,000 connections against --max-connections 1000", figure,
            "excess refused with 503 + Retry-After, process up, memory bounded",
            s.alive() and after == 200 and counts["200"] <= 1000 and counts["other"] == 0
            and counts["503 with Retry-After"] == 10_000 - counts["200"]
            and s.peak_mib() <= 64)
    finally:
        s.stop()


def flood(args):
    s = Sidecar(args)
    try:
        big = b"[" * (8 * 1024 * 1024)
        # Deep but within the 64 KiB body limit: the parser's depth is tested.
        nested = b"[" * 30_000 + b"]" * 30_000
        nested_obj = b'{"a":' * 10_000 + b"1" + b"}" * 10_000
        paths = ["/mcp/", "/api/contact.php", "/api/chat.php"]
        counts = {}

        def send(path, body, declare=True):
            sock = socket.create_connection(("127.0.0.1", s.port), timeout=30)
            try:
                head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        f"Accept: application/json, text/event-stream\r\nOrigin: {s.base}\r\n")
                if declare:
                    head += f"Content-Length: {len(body)}\r\n\r\n"
                else:
                    head += "Transfer-Encoding: chunked\r\n\r\n"
                    body = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
                sock.sendall(head.encode())
                try:
                    sock.sendall(body)
                except OSError:
                    pass  # refused before the end: the answer is still there
                reply = b""
                while b"\r\n\r\n" not in reply:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    reply += chunk
                return reply.split(b" ", 2)[1].decode() if reply else "closed"
            except OSError:
                return "reset"
            finally:
                sock.close()

        import concurrent.futures

        jobs = []
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            for _ in range(20):
                for p in paths:
                    jobs.append(("8 MiB declared", pool.submit(send, p, big)))
                    jobs.append(("8 MiB chunked", pool.submit(send, p, big, False)))
                    jobs.append(("nested arrays", pool.submit(send, p, nested)))
                    jobs.append(("nested objects", pool.submit(send, p, nested_obj)))
            for kind, job in jobs:
                counts.setdefault(kind, {}).setdefault(job.result(), 0)
                counts[kind][job.result()] += 1
        peak = s.peak_mib()
        ok = (set(counts["8 MiB declared"]) <= {"413"}
              and set(counts["8 MiB chunked"]) <= {"413", "reset"}
              and set(counts["nested arrays"]) | set(counts["nested objects"]) <= {"400", "413", "422"})
        figure = "; ".join(
            f"{kind}: " + ", ".join(f"{n}× {status}" for status, n in sorted(c.items()))
            for kind, c in counts.items()) + f"; peak RSS {peak} MiB"
        row(f"flood of 8 MiB and deeply nested bodies ({len(jobs) // 4} of each kind)", figure,
            "413 / 400, memory bounded", ok and peak <= 64 and s.alive())
    finally:
        s.stop()


def enquire(base, n):
    """One enquiry; returns (status, reference or problem code)."""
    try:
        status, body = get(base + "/api/contact-challenge", timeout=10)
        if status != 200:
            return status, json.loads(body).get("code") if body else None
        fields = {"name": f"Visitor {n}", "email": f"v{n}@visitor.example", "organisation": "",
                  "topic": "other", "message": f"Enquiry {n}.", "consent": True, "website": "",
                  "altcha": solve(json.loads(body))}
        req = urllib.request.Request(base + "/api/contact.php", data=json.dumps(fields).encode(),
                                     method="POST",
                                     headers={"Content-Type": "application/json", "Origin": base})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.load(r)["reference"]
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.load(e).get("code")
        except ValueError:
            return e.code, None
    except OSError as e:
        return "error", str(e)


def enquiries_under(base, stop, results):
    n = 0
    while not stop.is_set():
        results.append(enquire(base, n))
        n += 1


def pgoutage(args):
    url = subprocess.run([args.pg_server], capture_output=True, text=True, check=True).stdout.strip()
    db = "reliability_bench"
    subprocess.run(["psql", url, "-qc", f"DROP DATABASE IF EXISTS {db}"], check=True,
                   capture_output=True)
    subprocess.run(["psql", url, "-qc", f"CREATE DATABASE {db}"], check=True, capture_output=True)
    db_url = url.rsplit("/", 1)[0] + "/" + db
    s = Sidecar(args, database=db_url)
    try:
        stop, results, statuses = threading.Event(), [], {}
        workers = [threading.Thread(target=enquiries_under, args=(s.base, stop, results))
                   for _ in range(2)]
        for w in workers:
            w.start()

        def poll():
            while not stop.is_set():
                for path in ["/api/platform-stats.php", "/api/observations-data.php?limit=5",
                             "/readyz", "/"]:
                    st = get(s.base + path, timeout=10)[0]
                    statuses.setdefault(path, {}).setdefault(st, 0)
                    statuses[path][st] += 1
                time.sleep(0.01)

        poller = threading.Thread(target=poll)
        poller.start()
        time.sleep(3)
        subprocess.run([args.pg_server, "stop"], check=True, capture_output=True)
        down_at = time.monotonic()
        time.sleep(5)
        subprocess.run([args.pg_server], check=True, capture_output=True)
        up_at = time.monotonic()
        recovered = None
        while time.monotonic() - up_at < 30:
            if get(s.base + "/readyz")[0] == 200 and enquire(s.base, 10_000)[0] == 201:
                recovered = time.monotonic() - up_at
                break
            time.sleep(0.1)
        time.sleep(2)
        stop.set()
        for w in workers + [poller]:
            w.join(30)
        acknowledged = {ref for st, ref in results if st == 201}
        out = subprocess.run(["psql", db_url, "-tAc", "SELECT reference FROM enquiries"],
                             capture_output=True, text=True, check=True).stdout.split()
        lost = acknowledged - set(out)
        refused = {}
        for st, code in results:
            if st != 201:
                refused[f"{st} {code}"] = refused.get(f"{st} {code}", 0) + 1
        down = ", ".join(f"{p} {dict(sorted((str(k), v) for k, v in c.items()))}"
                         for p, c in statuses.items())
        figure = (f"outage {up_at - down_at:.1f} s; enquiries acknowledged {len(acknowledged)}, "
                  f"refused {refused}, lost {len(lost)}; answers {down}; "
                  f"recovered {recovered:.1f} s after the restart" if recovered is not None else
                  f"outage {up_at - down_at:.1f} s; NOT recovered within 30 s")
        no_500 = all(k != 500 for c in statuses.values() for k in c)
        row("PostgreSQL stopped and restarted under load", figure,
            "no crash, 503 while down, recovery without restart, no acknowledged enquiry lost",
            s.alive() and recovered is not None and not lost and no_500
            and all(st in (201, 503) for st, _ in results))
    finally:
        s.stop()
        subprocess.run(["psql", url, "-qc", f"DROP DATABASE IF EXISTS {db}"],
                       capture_output=True)


def diskfull(args):
    if os.geteuid() != 0:
        row("SQLite disk full", "skipped: mounting a small tmpfs needs root", "—", False)
        return
    mnt = tempfile.mkdtemp(prefix="reliability-disk-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mnt], check=True)
    s = None
    try:
        s = Sidecar(args, ["--sample", "none"], data_dir=mnt)
        before = [enquire(s.base, n) for n in range(5)]
        filler = os.path.join(mnt, "filler")
        with open(filler, "wb") as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 20))
                    f.flush()
            except OSError:
                pass
        # Whatever is left below a page.
        try:
            with open(filler, "ab") as f:
                while True:
                    f.write(b"\0" * 512)
                    f.flush()
        except OSError:
            pass
        during = [enquire(s.base, 100 + n) for n in range(20)]
        stats = get(s.base + "/api/platform-stats.php")[0]
        page = get(s.base + "/")[0]
        os.unlink(filler)
        after = [enquire(s.base, 200 + n) for n in range(5)]
        acknowledged = {ref for st, ref in before + during + after if st == 201}
        con = sqlite3.connect(os.path.join(mnt, "service.sqlite3"), timeout=10)
        stored = {r[0] for r in con.execute("SELECT reference FROM enquiries")}
        con.close()
        lost = acknowledged - stored
        summary = {}
        for st, code in during:
            key = f"{st} {code if st != 201 else 'acknowledged'}"
            summary[key] = summary.get(key, 0) + 1
        figure = (f"before {sum(st == 201 for st, _ in before)}/5 acknowledged; disk full: "
                  f"{summary}, statistics {stats}, page {page}; space freed: "
                  f"{sum(st == 201 for st, _ in after)}/5 acknowledged; lost {len(lost)}")
        row("SQLite disk full", figure,
            "no crash, a problem answer while full, recovery without restart, none lost",
            s.alive() and not lost and all(st == 201 for st, _ in before + after)
            and all(st in (201, 503, 507) for st, _ in during))
    finally:
        if s:
            s.stop()
        subprocess.run(["umount", mnt], check=False)
        os.rmdir(mnt)


def sigterm(args):
    s = Sidecar(args)
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(MIX_LUA)
        out = {}

        def load():
            out["wrk"] = wrk(args, s.base, 256, 8, f.name, [asset(s.base)])

        t = threading.Thread(target=load)
        t.start()

        # Slow requests in flight when the signal comes: head sent, body late.
        def inflight(i, results):
            body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
            try:
                sock = socket.create_connection(("127.0.0.1", s.port), timeout=20)
                sock.sendall(b"POST /mcp/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                             b"Accept: application/json, text/event-stream\r\nConnection: close\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
                time.sleep(1.5)
                sock.sendall(body[10:])
                reply = b""
                while chunk := sock.recv(65536):
                    reply += chunk
                results[i] = reply.startswith(b"HTTP/1.1 200") and b'"tools"' in reply
            except OSError:
                results[i] = False

        time.sleep(3)
        results = [None] * 50
        threads = [threading.Thread(target=inflight, args=(i, results)) for i in range(50)]
        for th in threads:
            th.start()
        time.sleep(0.5)
        started = time.monotonic()
        s.proc.send_signal(signal.SIGTERM)
        code = s.proc.wait(timeout=60)
        took = time.monotonic() - started
        for th in threads:
            th.join(30)
        t.join(30)
        os.unlink(f.name)
        done = sum(1 for r in results if r)
        figure = (f"exit {code} after {took:.1f} s; slow requests in flight completed {done}/50; "
                  f"wrk before the signal: {out['wrk']['requests']:,} requests")
        row("SIGTERM under full load", figure, "in-flight requests finish, exit 0",
            code == 0 and done == 50)
    finally:
        s.stop()


ALL = ["keepalive", "slowloris", "slowbody", "maxconn", "flood", "pgoutage", "diskfull",
       "sigterm"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sidecar", required=True)
    p.add_argument("--dist", required=True)
    p.add_argument("--wrk", default="wrk")
    p.add_argument("--pg-server", required=True)
    p.add_argument("--rows", default=",".join(ALL))
    args = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 65536), hard))
    runs = {
        "keepalive": keepalive,
        "slowloris": lambda a: slow(a, "slowloris"),
        "slowbody": lambda a: slow(a, "slowbody"),
        "maxconn": maxconn,
        "flood": flood,
        "pgoutage": pgoutage,
        "diskfull": diskfull,
        "sigterm": sigterm,
    }
    for name in args.rows.split(","):
        print(f"reliability: {name}", flush=True)
        runs[name](args)
    print()
    print("| row | figure | target | |")
    print("|---|---|---|---|")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")
    sys.exit(0)


if __name__ == "__main__":
    main()
