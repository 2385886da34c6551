"""A stand-in for the sidecar's release protocol, for tests/e2e/release.sh:
it loads DIST (a symlink to the current release) at start and on SIGHUP,
keeps the old release when the new manifest's format is not 1 (as the
sidecar refuses a release it cannot read), and answers /healthz with
{"status":"ok","release":"<first 16 hex of sha256(manifest.json)>"}.
With POLL_MS it also reloads when the symlink's target changes, looked at
every POLL_MS (as the sidecar's --dist-poll-ms); without, only the reload
the script sends moves it.

    python3 release_sidecar_stub.py PORT DIST [POLL_MS]
"""

import hashlib
import http.server
import json
import os
import signal
import sys
import threading
import time

port, dist = int(sys.argv[1]), sys.argv[2]
release = None


def load(*_):
    global release
    try:
        with open(os.path.join(dist, "manifest.json"), "rb") as f:
            manifest = f.read()
        format = json.loads(manifest)["format"]
        if format != 1:
            raise ValueError(f"manifest format {format} is not the supported format 1")
    except (OSError, ValueError, KeyError) as e:
        print(f"stub: refused the release, keeping {release}: {e}", file=sys.stderr, flush=True)
        return
    release = hashlib.sha256(manifest).hexdigest()[:16]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/healthz":
            self.send_error(404)
            return
        body = json.dumps({"status": "ok", "release": release}, separators=(",", ":")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


def poll(every):
    seen = os.path.realpath(dist)
    while True:
        time.sleep(every)
        now = os.path.realpath(dist)
        if now != seen:
            seen = now
            load()


load()
signal.signal(signal.SIGHUP, load)
if len(sys.argv) > 3:
    threading.Thread(target=poll, args=(int(sys.argv[3]) / 1000,), daemon=True).start()
server = http.server.HTTPServer(("127.0.0.1", port), Handler)
server.serve_forever()
