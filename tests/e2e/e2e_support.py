"""What the Python scripts of tests/e2e share, standard library only: free
ports, waiting, HTTP requests made exactly as written, a sidecar process
on loopback, and the contact form's proof of work, solved as the widget
solves it.

Used by the scripts beside this file and by bench/reliability.py.
"""

import base64
import hashlib
import http.client
import json
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {seconds}s waiting for {what}")


def request(base, method, path, headers=None, body=None, timeout=20, join=True):
    """One request on a fresh connection to `base` (scheme and host), the
    path sent as given: (status, headers with lower-case names, body). A
    header the answer repeats is joined with ", " (`join`), or its last
    value is kept."""
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read()
        h = {}
        for k, v in r.getheaders():
            k = k.lower()
            h[k] = f"{h[k]}, {v}" if join and k in h else v
        return r.status, h, data
    finally:
        conn.close()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


# A urllib opener that hands redirects back as answers instead of following them.
NO_REDIRECT = urllib.request.build_opener(NoRedirect)


def ready(proc, base, describe=lambda: "", what="the sidecar"):
    """True once `base`/readyz answers 200; raises if `proc` (`what`) has
    exited."""
    if proc.poll() is not None:
        raise AssertionError(f"{what} exited with {proc.returncode}{describe()}")
    try:
        with urllib.request.urlopen(base + "/readyz", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


class Sidecar:
    """`BINARY serve` on a free loopback port, its output to `log` (a file
    open for writing), named `what` in errors. `args` are the flags after
    --listen; a subclass that needs `base` in them adds them after calling
    this."""

    def __init__(self, binary, log, args=(), what="the sidecar"):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.args = [binary, "serve", "--listen", f"127.0.0.1:{self.port}", *args]
        self.log, self.what, self.proc = log, what, None

    def spawn(self):
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=self.log)

    def start(self, seconds=30):
        """Spawns the process and waits until it is ready."""
        self.spawn()
        wait_until(self.what, self.ready, seconds)

    def ready(self):
        return ready(self.proc, self.base, what=self.what)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        """SIGTERM, and its exit code (None when it was not running)."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            return self.proc.wait(timeout=30)
        return None


def solve(challenge):
    """The `altcha` field for a challenge: counters from 0 until the derived
    key starts with the published prefix."""
    p = challenge["parameters"]
    nonce, salt = bytes.fromhex(p["nonce"]), bytes.fromhex(p["salt"])
    for counter in range(0, 10_000_000):
        key = hashlib.pbkdf2_hmac("sha256", nonce + counter.to_bytes(4, "big"), salt,
                                  p["cost"], p["keyLength"]).hex()
        if key.startswith(p["keyPrefix"]):
            payload = {"challenge": challenge,
                       "solution": {"counter": counter, "derivedKey": key, "time": 1}}
            return base64.b64encode(json.dumps(payload).encode()).decode()
    raise AssertionError("unsolvable challenge")
