"""End-to-end test of what an operator sees: the admin listener's metrics
through an SMTP outage, and the request log.

Starts aiosmtpd on 127.0.0.1 and the real sidecar binary (its admin
listener on a free loopback port, JSON logs), then:

- metrics: `/metrics` is 404 on the public listener and Prometheus text on
  the admin one, naming the release;
- outage: with the SMTP server down for OUTAGE seconds while enquiries keep
  coming, the admin listener's outbox depth and the age of the oldest
  unsent enquiry rise and failed sends are counted as `connect`; once the
  server is back, every enquiry is mailed once and both gauges fall to 0;
- request log: one `access` line per request with method, path, status,
  bytes, duration, client and request id; a chat question and a contact
  submission sent with a query string leave neither the question nor the
  query in the log; `X-Request-Id` is kept when sane, made otherwise, and
  echoed on every answer.

  ops_e2e.py --sidecar BIN --dist DIR [--database-url URL] [--outage SECONDS]
"""

import argparse
import json
import os
import re
import sys
import tempfile
import time
import urllib.parse

from contact_e2e import FROM, TO, Mailbox, Smtp, message_id, submit
from e2e_support import Sidecar as SidecarProcess
from e2e_support import free_port, request, wait_until


class Sidecar(SidecarProcess):
    def __init__(self, binary, dist, data_dir, url, smtp_port, log):
        super().__init__(binary, log)
        self.admin = f"http://127.0.0.1:{free_port()}"
        self.args += [
            "--dist", dist, "--admin-listen", self.admin.removeprefix("http://"),
            "--log-format", "json",
            "--data-dir", data_dir, "--site-origin", self.base, "--sample", "none",
            "--smtp-url", f"smtp://127.0.0.1:{smtp_port}",
            "--contact-to", TO, "--contact-from", FROM,
            "--challenge-cost", "1", "--challenge-counter-min", "1",
            "--challenge-counter-max", "3", "--contact-min-fill-ms", "0",
            "--contact-rate-limit", "1000000", "--challenge-rate-limit", "1000000",
            "--outbox-lease-ms", "3000", "--smtp-timeout-ms", "2000",
            "--outbox-poll-ms", "100", "--smtp-retry-base-ms", "200",
            "--smtp-retry-max-ms", "2000", "--workers", "2",
        ]
        if url:
            self.args += ["--database", url]


def scrape(sidecar):
    """The admin listener's metrics as {name{labels}: value}."""
    status, h, body = request(sidecar.admin, "GET", "/metrics")
    assert status == 200, status
    assert h["content-type"].startswith("text/plain; version=0.0.4"), h
    out = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def test_metrics_listeners(sidecar):
    status, _, _ = request(sidecar.base, "GET", "/metrics")
    assert status == 404, f"public /metrics answered {status}"
    status, _, body = request(sidecar.base, "GET", "/healthz")
    release = json.loads(body)["release"]
    m = scrape(sidecar)
    assert m.get(f'sidecar_release_info{{release="{release}"}}') == 1, m
    assert m["sidecar_outbox_pending"] == 0 and m["sidecar_outbox_oldest_pending_age_seconds"] == 0, m
    assert m["sidecar_database_errors_total"] == 0, m
    print(f"metrics: public /metrics 404, admin /metrics names release {release}")


def test_outage(sidecar, smtp, mailbox, seconds):
    before = scrape(sidecar)
    smtp.stop()
    started = time.monotonic()
    refs, samples = [], []
    n = 0
    while time.monotonic() - started < seconds:
        status, ref = submit(sidecar.base, 9000 + n)
        assert status == 201, status
        refs.append(ref)
        n += 1
        m = scrape(sidecar)
        samples.append((round(time.monotonic() - started), m["sidecar_outbox_pending"],
                        m["sidecar_outbox_oldest_pending_age_seconds"],
                        m['sidecar_outbox_send_failures_total{kind="connect"}']))
        time.sleep(3)
    down = scrape(sidecar)
    print("outage: t pending oldest_age connect_failures")
    for s in samples[:: max(1, len(samples) // 8)] + samples[-1:]:
        print(f"  {s[0]:>4}s {s[1]:>4.0f} {s[2]:>8.1f} {s[3]:>5.0f}")
    assert down["sidecar_outbox_pending"] == len(refs), (down["sidecar_outbox_pending"], len(refs))
    assert down["sidecar_outbox_oldest_pending_age_seconds"] >= seconds - 5, down
    failed = down['sidecar_outbox_send_failures_total{kind="connect"}'] - \
        before['sidecar_outbox_send_failures_total{kind="connect"}']
    assert failed >= len(refs), f"{failed} connect failures counted for {len(refs)} enquiries"
    # The depth rose while SMTP was down.
    assert [s[1] for s in samples] == sorted(s[1] for s in samples), samples
    assert not any(mailbox.by_id(message_id(r)) for r in refs)
    smtp.start()
    recovered = time.monotonic()
    wait_until("the outbox to drain after the outage",
               lambda: scrape(sidecar)["sidecar_outbox_pending"] == 0, 90)
    after = scrape(sidecar)
    assert after["sidecar_outbox_oldest_pending_age_seconds"] == 0, after
    assert after["sidecar_outbox_parked"] == 0, after
    for r in refs:
        assert len(mailbox.by_id(message_id(r))) == 1, r
    print(f"outage: {len(refs)} enquiries over {seconds}s without SMTP; depth peaked at "
          f"{down['sidecar_outbox_pending']:.0f}, oldest {down['sidecar_outbox_oldest_pending_age_seconds']:.0f}s, "
          f"{failed:.0f} connect failures; drained to 0 in {time.monotonic() - recovered:.1f}s after recovery")


QUESTION = "How do I measure nitrate, zebrafinch4471?"


def test_request_log(sidecar, log_path):
    # A chat question and a contact submission, each with a query string.
    body = json.dumps({"message": QUESTION}).encode()
    status, h, _ = request(sidecar.base, "POST", "/api/chat.php?q=querysecret1", body=body,
                           headers={"Content-Type": "application/json", "Origin": sidecar.base,
                                    "X-Request-Id": "front-chat-0001"})
    assert status == 200, status
    assert h["x-request-id"] == "front-chat-0001", h
    # Without Origin (a script), the chat refuses as for a foreign origin.
    status, _, refused = request(sidecar.base, "POST", "/api/chat.php", body=body,
                                 headers={"Content-Type": "application/json"})
    assert status == 403 and json.loads(refused)["code"] == "forbidden_origin", (status, refused)
    status, h, _ = request(sidecar.base, "POST", "/api/contact.php?ref=querysecret2", body=b"{}",
                           headers={"Content-Type": "application/json", "Origin": sidecar.base,
                                    "X-Request-Id": "bad id with spaces"})
    assert status == 422, status
    made = h["x-request-id"]
    assert made and " " not in made, h
    # The chat's hand-off: the contact page, prefilled with the question.
    handoff = "/contact/?topic=other&message=" + urllib.parse.quote(QUESTION)
    status, h, _ = request(sidecar.base, "GET", handoff, headers={"X-Request-Id": "handoff-1"})
    assert status == 200, status
    status, h, _ = request(sidecar.base, "GET", "/robots.txt?v=keepme")
    assert status == 200 and h.get("x-request-id"), h
    status, h, _ = request(sidecar.base, "GET", "/no/such/page")
    assert status == 404 and h.get("x-request-id"), h
    time.sleep(0.5)
    lines = [json.loads(l) for l in open(log_path, encoding="utf-8") if l.startswith("{")]
    access = [l for l in lines if l.get("target") == "access"]

    def line_of(request_id=None, path_start=None):
        for l in access:
            if (request_id and l.get("request_id") == request_id) or \
                    (path_start and l.get("path", "").startswith(path_start)):
                return l
        raise AssertionError(f"no access line for {request_id or path_start}")

    chat = line_of("front-chat-0001")
    contact = line_of(made)
    for l, path, status in [(chat, "/api/chat.php", 200), (contact, "/api/contact.php", 422)]:
        assert l["level"] == "INFO" and l["method"] == "POST", l
        assert l["path"] == path and l["status"] == status, l
        for field in ("timestamp", "bytes", "duration_ms", "client", "request_id"):
            assert field in l, (field, l)
        assert l["client"] == "127.0.0.1", l
    assert line_of("handoff-1")["path"] == "/contact/", line_of("handoff-1")
    static = line_of(path_start="/robots.txt")
    assert static["path"] == "/robots.txt?v=keepme", static
    text = open(log_path, encoding="utf-8").read()
    for secret in ("zebrafinch4471", "querysecret1", "querysecret2", "measure nitrate"):
        assert secret not in text, f"{secret!r} reached the log"
    assert not any("?" in l["path"] for l in access if l["path"].startswith(("/api/chat", "/api/contact"))), access
    print(f"request log: {len(access)} access lines; chat, contact and the hand-off page logged without query or question; "
          f"X-Request-Id kept ({chat['request_id']}) and made ({made})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sidecar", required=True)
    ap.add_argument("--dist", required=True)
    ap.add_argument("--database-url")
    ap.add_argument("--outage", type=int, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mailbox = Mailbox()
        smtp = Smtp(mailbox, free_port())
        smtp.start()
        log_path = os.path.join(tmp, "sidecar.log")
        log = open(log_path, "ab")
        sidecar = Sidecar(args.sidecar, args.dist, os.path.join(tmp, "data"),
                          args.database_url, smtp.port, log)
        try:
            sidecar.start()
            wait_until("the admin listener", lambda: "admin listener on" in open(log_path).read(), 10)
            test_metrics_listeners(sidecar)
            test_request_log(sidecar, log_path)
            test_outage(sidecar, smtp, mailbox, args.outage)
        except BaseException:
            log.flush()
            sys.stderr.write(open(log_path, encoding="utf-8").read()[-4000:])
            raise
        finally:
            sidecar.stop()
            if smtp.controller:
                smtp.stop()
    print("ops e2e passed")


if __name__ == "__main__":
    main()
