"""A stand-in for the sidecar's release protocol, for tests/e2e/release.sh:
it loads DIST (a symlink to the current release) at start and on SIGHUP,
keeps the old release when the new one's api/service.json does not parse
(as the sidecar refuses a bad release), and answers /healthz with
{"status":"ok","release":"<first 16 hex of sha256(manifest.json)>"}.
It does not poll the symlink: only the reload the script sends moves it.

    python3 release_sidecar_stub.py PORT DIST
"""

import hashlib
import http.server
import json
import os
import signal
import sys

port, dist = int(sys.argv[1]), sys.argv[2]
release = None


def load(*_):
    global release
    try:
        with open(os.path.join(dist, "manifest.json"), "rb") as f:
            manifest = f.read()
        json.loads(manifest)
        with open(os.path.join(dist, "api", "service.json"), "rb") as f:
            json.load(f)
    except (OSError, ValueError) as e:
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


load()
signal.signal(signal.SIGHUP, load)
server = http.server.HTTPServer(("127.0.0.1", port), Handler)
server.serve_forever()
