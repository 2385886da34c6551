"""The production topology on loopback, with the real parts: one PostgreSQL
cluster of its own, two sidecar processes started at the same moment, nginx
in front balancing both, wrk for load, aiosmtpd for mail.

Usage: topology.py --sidecar BIN --generate BIN --dist DIR --pg-bin DIR --workdir DIR

Shows, in order (each step bounded in time):
 1. both replicas start together; migrations ran once (the migration
    table), the sample data was filled once;
 2. wrk for 30 s on static and live GET routes through the front while
    each replica in turn is killed with SIGKILL and restarted: 0 failed
    requests (nginx retries idempotent requests on the other replica);
 3. the contact rate limit holds across replicas (a flood alternating
    between them gets 429 at the same count as one replica), and a
    challenge used on one replica is refused on the other;
 4. with both outbox workers running, every acknowledged enquiry is
    delivered exactly once;
 5. PostgreSQL stopped for 20 s under load: statistics served `stale`,
    observations 503 with Retry-After, /readyz 503, static files still
    served; then full recovery without restarting anything.

nginx serves dist/ and balances the two replicas with the configuration
`generate host-config --for nginx --sidecar-url A,B` writes, as a
deployment would use it.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contact_e2e import FROM, TO, Mailbox, Smtp, message_id  # noqa: E402
from e2e_support import Sidecar as SidecarProcess  # noqa: E402
from e2e_support import free_port, solve, wait_until  # noqa: E402

CONTACT_KEY = "topology-shared-contact-key-0123456789"
RATE_LIMIT = 5
WRK_SECONDS = 30
OUTAGE_SECONDS = 20
STATS_MAX_AGE = 60


def log(msg):
    print(f"topology: {msg}", flush=True)


def http(method, url, body=None, headers=None, timeout=10):
    """(status, headers, body bytes); never raises on HTTP errors."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def as_postgres(cmd):
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


class Postgres:
    """A cluster of this test's own, so it can be stopped and started."""

    def __init__(self, bindir, workdir):
        self.bindir, self.data = bindir, os.path.join(workdir, "pg")
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def init(self):
        os.makedirs(self.data)
        if os.geteuid() == 0:
            shutil.chown(self.data, "postgres", "postgres")
            shutil.chown(os.path.dirname(self.data), "postgres")
        subprocess.run(as_postgres([f"{self.bindir}/initdb", "-D", self.data, "-U", "postgres",
                                    "--auth=trust", "--encoding=UTF8", "--no-locale"]),
                       check=True, capture_output=True, timeout=120)

    def start(self):
        opts = (f"-h 127.0.0.1 -p {self.port} -k {self.data} -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        subprocess.run(as_postgres([f"{self.bindir}/pg_ctl", "-D", self.data, "-l",
                                    os.path.join(self.data, "server.log"), "-w", "-t", "60",
                                    "-o", opts, "start"]),
                       check=True, capture_output=True, timeout=90)

    def stop(self):
        subprocess.run(as_postgres([f"{self.bindir}/pg_ctl", "-D", self.data, "-m", "fast",
                                    "-w", "-t", "60", "stop"]),
                       check=False, capture_output=True, timeout=90)

    def sql(self, query):
        return subprocess.run(["psql", self.url, "-tAc", query], check=True,
                              capture_output=True, text=True, timeout=30).stdout.strip()


class Sidecar(SidecarProcess):
    def __init__(self, name, binary, dist, workdir, db_url, origin, smtp_port):
        log = open(os.path.join(workdir, f"sidecar-{name}.log"), "ab")
        super().__init__(binary, log, what=f"sidecar {name}")
        self.name = name
        self.args += [
            "--dist", dist,
            "--data-dir", os.path.join(workdir, f"data-{name}"), "--database", db_url,
            "--sample", "default", "--site-origin", origin, "--trusted-proxy", "127.0.0.1",
            "--contact-key", CONTACT_KEY, "--log-format", "json",
            "--smtp-url", f"smtp://127.0.0.1:{smtp_port}", "--contact-to", TO,
            "--contact-from", FROM,
            "--challenge-cost", "1", "--challenge-counter-min", "1",
            "--challenge-counter-max", "3", "--contact-min-fill-ms", "0",
            "--contact-rate-limit", str(RATE_LIMIT), "--challenge-rate-limit", "1000000",
            "--outbox-lease-ms", "3000", "--smtp-timeout-ms", "2000", "--outbox-poll-ms", "100",
            "--smtp-retry-base-ms", "200", "--smtp-retry-max-ms", "1000",
            "--workers", "2", "--shutdown-timeout-ms", "10000",
        ]


class Nginx:
    """nginx as `generate host-config --for nginx` configures it, both
    replicas as its upstream, inside a main nginx.conf of its own."""

    def __init__(self, workdir, port, upstreams, generate, dist):
        self.dir = os.path.join(workdir, "nginx")
        self.port = port
        self.base = f"http://127.0.0.1:{self.port}"
        os.makedirs(os.path.join(self.dir, "tmp"))
        os.chmod(os.path.join(self.dir, "tmp"), 0o1777)
        # nginx's workers drop root: they read a world-readable copy of dist/.
        site = os.path.join(self.dir, "dist")
        shutil.copytree(dist, site)
        subprocess.run(["chmod", "-R", "a+rX", site], check=True)
        subprocess.run([generate, "host-config", "--for", "nginx", "--dist", site,
                        "--sidecar-url", ",".join(f"http://127.0.0.1:{p}" for p in upstreams),
                        "--listen", f"127.0.0.1:{port}", "--nginx-brotli-static",
                        "--out", os.path.join(self.dir, "generated")],
                       check=True, stdout=subprocess.DEVNULL)
        conf = f"""
load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;
worker_processes 1;
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {self.dir}/tmp/body;
  proxy_temp_path {self.dir}/tmp/proxy;
  fastcgi_temp_path {self.dir}/tmp/fastcgi;
  uwsgi_temp_path {self.dir}/tmp/uwsgi;
  scgi_temp_path {self.dir}/tmp/scgi;
  include {self.dir}/generated/nginx.conf;
}}
"""
        self.conf = os.path.join(self.dir, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(["nginx", "-c", self.conf, "-p", self.dir],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until("nginx", lambda: self._up(), 20)

    def _up(self):
        if self.proc.poll() is not None:
            raise AssertionError(f"nginx exited: {open(os.path.join(self.dir, 'error.log')).read()}")
        try:
            return http("GET", self.base + "/healthz", timeout=2)[0] == 200
        except OSError:
            return False

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            self.proc.wait(timeout=20)


def wrk(base, seconds, paths, workdir, name, connections=16):
    """Runs wrk over `paths` (round robin); returns its parsed summary."""
    script = os.path.join(workdir, f"{name}.lua")
    with open(script, "w") as f:
        f.write("local paths = {" + ",".join(json.dumps(p) for p in paths) + "}\n"
                "local i = 0\n"
                "request = function()\n"
                "  i = i % #paths + 1\n"
                "  return wrk.format('GET', paths[i])\n"
                "end\n")
    out = subprocess.run(["wrk", "-t", "2", "-c", str(connections), "-d", f"{seconds}s",
                          "--timeout", "5s", "-s", script, base],
                         check=True, capture_output=True, text=True, timeout=seconds + 60).stdout
    total = int(re.search(r"(\d+) requests in", out).group(1))
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    socket_errors = sum(int(x) for x in errors.groups()) if errors else 0
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    return {"requests": total, "socket_errors": socket_errors,
            "non_2xx": int(non_2xx.group(1)) if non_2xx else 0, "rps": rps, "raw": out}


STATIC = ["/", "/docs/", "/api/service.json", "/openapi.json", "/llms.txt", "/robots.txt"]
LIVE = ["/api/platform-stats.php", "/api/globe-data.php",
        "/api/observations-data.php?limit=50", "/api/observations-data.php?parameter=nitrate&limit=20",
        "/healthz"]


def step_start_together(pg, a, b):
    log("1. two replicas started at the same moment on one PostgreSQL")
    a.spawn()
    b.spawn()
    wait_until("both replicas ready", lambda: a.ready() and b.ready(), 90)
    migrations = sorted(f for f in os.listdir(os.path.join(
        os.path.dirname(__file__), "../../sidecar/src/store/migrations/postgres")) if f.endswith(".sql"))
    rows = pg.sql("SELECT string_agg(version::text, ',' ORDER BY version) FROM schema_migrations")
    want = ",".join(str(int(f.split("_", 1)[0])) for f in migrations)
    assert rows == want, f"schema_migrations holds {rows!r}, expected {want!r}"
    observations = int(pg.sql("SELECT count(*) FROM observations"))
    assert observations == 40_000, f"{observations} observations: the sample was filled more than once?"
    log(f"   migrations applied once ({rows}); sample filled once ({observations} observations)")


def step_kill_under_load(front, a, b, workdir):
    log(f"2. wrk {WRK_SECONDS} s through the front, SIGKILL and restart of each replica")
    events = []

    def chaos():
        for replica, at in ((a, 8), (b, 18)):
            time.sleep(max(0, at - (time.monotonic() - t0)))
            replica.kill()
            events.append(f"{time.monotonic() - t0:.1f}s SIGKILL {replica.name}")
            replica.spawn()
            wait_until(f"replica {replica.name} back", replica.ready, 30)
            events.append(f"{time.monotonic() - t0:.1f}s {replica.name} ready again")

    t0 = time.monotonic()
    thread = threading.Thread(target=chaos)
    thread.start()
    result = wrk(front.base, WRK_SECONDS, STATIC + LIVE, workdir, "kill")
    thread.join(timeout=60)
    for e in events:
        log(f"   {e}")
    log(f"   {result['requests']} requests, {result['rps']:.0f} req/s, "
        f"socket errors {result['socket_errors']}, non-2xx/3xx {result['non_2xx']}")
    assert len(events) == 4, events
    assert result["socket_errors"] == 0 and result["non_2xx"] == 0, result["raw"]
    return result


def contact_post(base, origin):
    return http("POST", base + "/api/contact.php", body=b"{}",
                headers={"Content-Type": "application/json", "Origin": origin})


def step_contact_shared(a, b, origin):
    log("3. contact rate limit and used challenges shared by the replicas")
    statuses = [contact_post((a, b)[i % 2].base, origin)[0] for i in range(RATE_LIMIT)]
    assert 429 not in statuses, statuses
    over = [contact_post((b, a)[i % 2].base, origin) for i in range(2)]
    assert [s for s, _, _ in over] == [429, 429], [s for s, _, _ in over]
    assert all(h["Retry-After"] for _, h, _ in over)
    log(f"   alternating A/B: {statuses} then 429 429 (limit {RATE_LIMIT} per client)")

    # A challenge issued and used on A, replayed on B.
    status, _, body = http("GET", a.base + "/api/contact-challenge")
    assert status == 200, status
    altcha = solve(json.loads(body))
    fields = {"name": "Replay Test", "email": "replay@visitor.example", "organisation": "",
              "topic": "other", "message": "One enquiry, two replicas.", "consent": True,
              "website": "", "altcha": altcha}
    payload = json.dumps(fields).encode()
    # Its own client address, so the flood above does not limit it.
    headers = {"Content-Type": "application/json", "Origin": origin,
               "X-Forwarded-For": "192.0.2.10"}
    first = http("POST", a.base + "/api/contact.php", body=payload, headers=headers)
    assert first[0] == 201, first
    replay = http("POST", b.base + "/api/contact.php", body=payload, headers=headers)
    assert replay[0] == 422 and json.loads(replay[2])["code"] == "challenge_replayed", replay
    log("   a challenge used on A: 201 there, 422 challenge_replayed on B")
    return json.loads(first[2])["reference"]


def step_delivery(a, b, origin, mailbox, earlier, count=60):
    log(f"4. {count} enquiries over both replicas, both outbox workers running")
    refs = [earlier]
    lock = threading.Lock()

    def one(i):
        replica = (a, b)[i % 2]
        status, _, body = http("GET", replica.base + "/api/contact-challenge")
        assert status == 200, status
        fields = {"name": f"Visitor {i}", "email": f"visitor{i}@visitor.example",
                  "organisation": "", "topic": "other", "message": f"Enquiry {i}.",
                  "consent": True, "website": "", "altcha": solve(json.loads(body))}
        status, _, body = http("POST", replica.base + "/api/contact.php",
                               body=json.dumps(fields).encode(),
                               headers={"Content-Type": "application/json", "Origin": origin,
                                        "X-Forwarded-For": f"198.51.100.{i % 250}"})
        assert status == 201, (status, body)
        with lock:
            refs.append(json.loads(body)["reference"])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(refs) == count + 1, len(refs)
    wait_until("every enquiry delivered", lambda: all(mailbox.by_id(message_id(r)) for r in refs), 60)
    time.sleep(2)  # a duplicate would arrive within a lease or two
    dupes = [r for r in refs if len(mailbox.by_id(message_id(r))) != 1]
    assert not dupes, f"delivered more than once: {dupes}"
    log(f"   {len(refs)} acknowledged, {len(refs)} delivered, each exactly once")


def stats(replica):
    status, headers, body = http("GET", replica.base + "/api/platform-stats.php")
    return status, headers, json.loads(body) if body else None


def step_outage(pg, front, a, b, workdir, quiet_since):
    log(f"5. PostgreSQL stopped for {OUTAGE_SECONDS} s under load")
    # The statistics are kept STATS_MAX_AGE s; no statistics request since
    # `quiet_since`, so from then on each replica's copy is past its age.
    wait = quiet_since + STATS_MAX_AGE + 1 - time.time()
    if wait > 0:
        log(f"   waiting {wait:.0f} s for the cached statistics to age")
        time.sleep(wait)
    pids = (a.proc.pid, b.proc.pid)
    load = {}
    loader = threading.Thread(target=lambda: load.update(
        wrk(front.base, OUTAGE_SECONDS, STATIC, workdir, "outage", connections=8)))
    pg.stop()
    t0 = time.monotonic()
    loader.start()
    seen = {"stale": set(), "obs503": set(), "ready503": set()}
    n = 0
    while time.monotonic() - t0 < OUTAGE_SECONDS:
        for r in (a, b):
            n += 1
            status, _, doc = stats(r)
            if status == 200 and doc["stale"] is True:
                seen["stale"].add(r.name)
            status, headers, _ = http("GET", r.base + f"/api/observations-data.php?limit={n % 900 + 1}&parameter=ph")
            if status == 503 and headers["Retry-After"]:
                seen["obs503"].add(r.name)
            if http("GET", r.base + "/readyz")[0] == 503:
                seen["ready503"].add(r.name)
        time.sleep(0.5)
    pg.start()
    loader.join(timeout=60)
    log(f"   during the outage: {seen}; static load {load['requests']} requests, "
        f"socket errors {load['socket_errors']}, non-2xx {load['non_2xx']}")
    for k, v in seen.items():
        assert v == {"A", "B"}, f"{k}: only {v}"
    assert load["socket_errors"] == 0 and load["non_2xx"] == 0, load["raw"]

    t1 = time.monotonic()

    def recovered():
        for r in (a, b):
            if http("GET", r.base + "/readyz")[0] != 200:
                return False
            if http("GET", r.base + "/api/observations-data.php?limit=7&parameter=ph")[0] != 200:
                return False
            status, _, doc = stats(r)
            if status != 200 or doc["stale"]:
                return False
        return True

    wait_until("recovery after PostgreSQL returned", recovered, 30)
    assert (a.proc.pid, b.proc.pid) == pids and a.proc.poll() is None and b.proc.poll() is None
    log(f"   recovered {time.monotonic() - t1:.1f} s after PostgreSQL returned, no restart")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sidecar", required=True)
    ap.add_argument("--generate", required=True)
    ap.add_argument("--dist", required=True)
    ap.add_argument("--pg-bin", required=True)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()

    pg = Postgres(args.pg_bin, args.workdir)
    mailbox = Mailbox()
    smtp = Smtp(mailbox, free_port())
    front_port = free_port()
    origin = f"http://127.0.0.1:{front_port}"
    a = Sidecar("A", args.sidecar, args.dist, args.workdir, pg.url, origin, smtp.port)
    b = Sidecar("B", args.sidecar, args.dist, args.workdir, pg.url, origin, smtp.port)
    front = Nginx(args.workdir, front_port, [a.port, b.port], args.generate, args.dist)
    try:
        pg.init()
        pg.start()
        smtp.start()
        step_start_together(pg, a, b)
        front.start()
        step_kill_under_load(front, a, b, args.workdir)
        quiet_since = time.time()
        ref = step_contact_shared(a, b, origin)
        step_delivery(a, b, origin, mailbox, ref)
        step_outage(pg, front, a, b, args.workdir, quiet_since)
        codes = (a.stop(), b.stop())
        assert codes == (0, 0), f"replicas exited with {codes}"
        log("both replicas stopped with SIGTERM, exit 0")
    except BaseException:
        for r in (a, b):
            r.log.flush()
            with open(r.log.name, "rb") as f:
                tail = f.read()[-3000:].decode(errors="replace")
            print(f"--- sidecar {r.name} log tail:\n{tail}", file=sys.stderr)
        raise
    finally:
        for r in (a, b):
            try:
                if r.proc and r.proc.poll() is None:
                    r.proc.kill()
            except OSError:
                pass
        front.stop()
        if smtp.controller:
            smtp.stop()
        pg.stop()
    print("topology e2e passed")


if __name__ == "__main__":
    main()
