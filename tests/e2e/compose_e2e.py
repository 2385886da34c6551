"""Checks of tests/e2e/compose.sh through the compose file's front, with the
standard library and aiosmtpd only.

  compose_e2e.py smtp HOST PORT MAILDIR     an SMTP server writing each mail
                                            to MAILDIR/<n>.eml (until SIGTERM)
  compose_e2e.py site BASE                  a page, /api/platform-stats.php,
                                            MCP initialize and tools/list
  compose_e2e.py enquiry BASE MAILDIR       an enquiry as the widget sends it
                                            (proof of work solved), mailed
                                            within 60 s; prints its reference
  compose_e2e.py release BASE ID PATH TEXT  within 60 s every answer of
                                            /healthz reports release ID and
                                            PATH is served with TEXT in it
"""

import email
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from email import policy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_support import solve  # noqa: E402

PROTOCOL = "2025-06-18"


def fail(message):
    print(f"compose e2e: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def get(url, headers=None, data=None, method=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def smtp(host, port, maildir):
    from aiosmtpd.controller import Controller

    lock, count = threading.Lock(), [0]

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            with lock:
                count[0] += 1
                n = count[0]
            path = os.path.join(maildir, f"{n}.eml")
            with open(path + ".part", "wb") as f:
                f.write(envelope.content)
            os.rename(path + ".part", path)
            return "250 OK"

    controller = Controller(Handler(), hostname=host, port=int(port))
    controller.start()
    print(f"smtp: listening on {host}:{port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


def site(base):
    status, h, body = get(base + "/")
    if status != 200 or "text/html" not in h.get("Content-Type", "") or b"<html" not in body.lower():
        fail(f"GET / through the front: {status} {h.get('Content-Type')}")
    print(f"  GET / -> {status} {h.get('Content-Type')}, {len(body)} bytes")
    status, h, body = get(base + "/api/platform-stats.php")
    if status != 200:
        fail(f"GET /api/platform-stats.php through the front: {status} {body[:200]!r}")
    stats = json.loads(body)
    print(f"  GET /api/platform-stats.php -> {status}, keys {sorted(stats)[:6]}")
    session = None
    for n, (method, params) in enumerate([
            ("initialize", {"protocolVersion": PROTOCOL, "capabilities": {},
                            "clientInfo": {"name": "compose-e2e", "version": "1"}}),
            ("tools/list", None)], 1):
        msg = {"jsonrpc": "2.0", "id": n, "method": method}
        if params is not None:
            msg["params"] = params
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": PROTOCOL}
        if session:
            headers["Mcp-Session-Id"] = session
        status, h, body = get(base + "/mcp/", headers, json.dumps(msg).encode(), "POST")
        if status != 200:
            fail(f"POST /mcp/ {method} through the front: {status} {body[:200]!r}")
        session = h.get("Mcp-Session-Id") or session
        answer = json.loads(body)
        if "result" not in answer:
            fail(f"POST /mcp/ {method}: {answer}")
    tools = [t["name"] for t in answer["result"]["tools"]]
    if not tools:
        fail("MCP tools/list through the front: no tools")
    print(f"  POST /mcp/ tools/list -> {len(tools)} tools ({', '.join(tools[:4])}, ...)")


def enquiry(base, maildir):
    status, _, body = get(base + "/api/contact-challenge")
    if status != 200:
        fail(f"GET /api/contact-challenge through the front: {status} {body[:200]!r}")
    issued = time.monotonic()
    altcha = solve(json.loads(body))
    # The sidecar refuses a form filled faster than its minimum (3 s).
    time.sleep(max(0.0, 3.5 - (time.monotonic() - issued)))
    fields = {"name": "Compose Visitor", "email": "visitor@visitor.example", "organisation": "",
              "topic": "other", "message": "An enquiry through the compose front.", "consent": True,
              "website": "", "altcha": altcha}
    status, _, body = get(base + "/api/contact.php",
                          {"Content-Type": "application/json", "Origin": base},
                          json.dumps(fields).encode(), "POST")
    if status != 201:
        fail(f"POST /api/contact.php through the front: {status} {body[:300]!r}")
    reference = json.loads(body)["reference"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for name in sorted(os.listdir(maildir)):
            if not name.endswith(".eml"):
                continue
            with open(os.path.join(maildir, name), "rb") as f:
                msg = email.message_from_bytes(f.read(), policy=policy.default)
            if reference in (msg["Subject"] or ""):
                if "visitor@visitor.example" not in (msg["Reply-To"] or ""):
                    fail(f"the mail of {reference} has Reply-To {msg['Reply-To']}")
                print(f"  enquiry {reference}: 201 through the front, mailed to {msg['To']} "
                      f"from {msg['From']}", file=sys.stderr)
                print(reference)
                return
        time.sleep(0.5)
    fail(f"enquiry {reference} accepted but no mail reached the SMTP server within 60 s "
         f"({len(os.listdir(maildir))} mails there)")


def release(base, release_id, path, text):
    deadline = time.monotonic() + 60
    seen = []
    while time.monotonic() < deadline:
        seen = []
        for _ in range(8):  # round robin: both replicas several times
            status, _, body = get(base + "/healthz")
            seen.append(json.loads(body).get("release") if status == 200 else f"HTTP {status}")
        status, h, body = get(base + path)
        page = status == 200 and text.encode() in body
        if page and all(r == release_id for r in seen):
            print(f"  /healthz through the front: release {release_id} from every answer (8); "
                  f"{path} -> 200 with the new text")
            return
        time.sleep(1)
    fail(f"release {release_id} not served within 60 s: /healthz answered {seen}, "
         f"{path} -> {status} (text {'found' if page else 'missing'})")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"smtp": smtp, "site": site, "enquiry": enquiry, "release": release}[command](*args)
