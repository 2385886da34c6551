"""The restore drill: a backup taken while enquiries are being submitted,
restored into an empty database, served again.

With the real sidecar binary and a real SMTP server (aiosmtpd on loopback):

1. a sidecar on the sample data takes enquiries from four concurrent
   clients; its SMTP server answers at first (some enquiries are mailed),
   then holds every message (the rest wait in the outbox);
2. meanwhile the database is backed up: `sidecar backup` for SQLite,
   `pg_dump --format=custom` for PostgreSQL (the commands of
   docs/operating.md);
3. the submissions go on for a while, then that sidecar is stopped;
4. the backup is restored into an empty data directory (`sidecar
   restore`) or a new database (`pg_restore`), and a second sidecar starts
   on it with a second SMTP server.

It checks that every enquiry acknowledged (201) before the backup began
is in the restored database, that every observation is there, that the
restored sidecar serves them, and that its outbox sends exactly the
enquiries the backup held as unsent, each once, and none the backup held
as sent.

Usage: restore_e2e.py --sidecar BIN --dist DIR
         [--database-url URL --restore-url URL]
(without URLs, SQLite files in temporary data directories). Only the
standard library and aiosmtpd.
"""

import argparse
import collections
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from contact_e2e import FROM, TO, Mailbox, Smtp, Sidecar, message_id, submit
from e2e_support import free_port, wait_until


class Database:
    """One database of the drill, read with sqlite3 or psql."""

    def __init__(self, data_dir, url):
        self.data_dir, self.url = data_dir, url

    def rows(self, sql):
        if self.url:
            out = subprocess.run(["psql", self.url, "-tAF", "\t", "-c", sql], check=True,
                                 capture_output=True, text=True, timeout=60).stdout
            return [tuple(line.split("\t")) for line in out.splitlines() if line]
        con = sqlite3.connect(os.path.join(self.data_dir, "service.sqlite3"), timeout=10)
        try:
            return [tuple(str(v) for v in r) for r in con.execute(sql)]
        finally:
            con.close()

    def outbox(self):
        """reference -> outbox status."""
        return dict(self.rows("SELECT e.reference, o.status FROM enquiries e "
                              "JOIN outbox o ON o.reference = e.reference"))

    def observations(self):
        [(n, total)] = self.rows("SELECT count(*), coalesce(sum(id), 0) FROM observations")
        return int(n), int(total)


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"{what} failed ({r.returncode}): {r.stdout}{r.stderr}")
    return r.stdout.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sidecar", required=True)
    ap.add_argument("--dist", required=True)
    ap.add_argument("--database-url")
    ap.add_argument("--restore-url")
    a = ap.parse_args()
    backend = "PostgreSQL" if a.database_url else "SQLite"
    work = tempfile.mkdtemp(prefix="restore-e2e-")
    source_dir, restored_dir = os.path.join(work, "data"), os.path.join(work, "restored")
    backup_file = os.path.join(work, "backup.sqlite3" if not a.database_url else "backup.dump")
    log = open(os.path.join(work, "sidecar.log"), "w+")
    first_box, second_box = Mailbox(), Mailbox()
    first_smtp, second_smtp = Smtp(first_box, free_port()), Smtp(second_box, free_port())
    source = Database(source_dir, a.database_url)
    restored = Database(restored_dir, a.restore_url)

    def sidecar(data_dir, url, smtp_port):
        s = Sidecar(a.sidecar, a.dist, data_dir, url, smtp_port, log)
        # The sample data, so that there are observations to find again.
        s.args[s.args.index("--sample") + 1] = "default"
        return s

    try:
        first_smtp.start()
        first = sidecar(source_dir, a.database_url, first_smtp.port)
        first.start(seconds=120)

        acknowledged, lock, stop = [], threading.Lock(), threading.Event()

        def client(k):
            n = 0
            while not stop.is_set():
                n += 1
                try:
                    status, ref = submit(first.base, 100_000 * (k + 1) + n)
                except (OSError, ValueError):
                    continue
                if status == 201:
                    with lock:
                        acknowledged.append((time.monotonic(), ref))

        clients = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(4)]
        for c in clients:
            c.start()
        count = lambda: len(acknowledged)  # noqa: E731
        wait_until("60 acknowledged enquiries", lambda: count() >= 60, 120)
        wait_until("some mails", lambda: len(first_box.ids()) >= 20, 60)
        # From here the SMTP server holds every message: the outbox fills.
        first_box.gate.clear()
        target = count() + 60
        wait_until("60 more acknowledged enquiries", lambda: count() >= target, 120)

        began = time.monotonic()
        if a.database_url:
            made = run(["pg_dump", "--format=custom", "--file", backup_file, a.database_url],
                       "pg_dump")
        else:
            made = run([a.sidecar, "backup", "--to", backup_file, "--data-dir", source_dir],
                       "sidecar backup")
        print(f"backup while submitting: {made or 'pg_dump done'}")
        target = count() + 40
        wait_until("40 acknowledged after the backup", lambda: count() >= target, 120)
        stop.set()
        for c in clients:
            c.join(timeout=30)
        first.stop()
        first_box.gate.set()
        first_smtp.stop()

        before = {ref for t, ref in acknowledged if t < began}
        observations = source.observations()

        if a.restore_url:
            run(["pg_restore", "--no-owner", "--exit-on-error", "--single-transaction",
                 "--dbname", a.restore_url, backup_file], "pg_restore")
        else:
            print(run([a.sidecar, "restore", "--from", backup_file, "--data-dir", restored_dir],
                      "sidecar restore"))
        outbox = restored.outbox()
        missing = before - outbox.keys()
        assert not missing, f"{len(missing)} acknowledged enquiries missing, e.g. {sorted(missing)[:3]}"
        invented = outbox.keys() - {ref for _, ref in acknowledged}
        # A submission acknowledged after the clients stopped counting (or
        # whose answer was lost) may be in the backup; none may be unknown to
        # the first database.
        unknown = invented - set(source.outbox())
        assert not unknown, f"restored enquiries the source never held: {sorted(unknown)[:3]}"
        assert restored.observations() == observations, (restored.observations(), observations)
        unsent = {ref for ref, status in outbox.items() if status == "pending"}
        sent = {ref for ref, status in outbox.items() if status == "sent"}
        assert unsent and sent, f"the drill needs both: {len(unsent)} unsent, {len(sent)} sent"

        second_smtp.start()
        second = sidecar(restored_dir, a.restore_url, second_smtp.port)
        second.start(seconds=120)
        with urllib.request.urlopen(second.base + "/api/platform-stats.php", timeout=10) as r:
            stats = json.load(r)
        print(f"restored sidecar serves its statistics: {json.dumps(stats)[:160]}…")
        with urllib.request.urlopen(second.base + "/api/observations-data.php?limit=5",
                                    timeout=10) as r:
            assert r.status == 200
        wait_until("the restored outbox to empty",
                   lambda: not any(s == "pending" for s in restored.outbox().values()), 120)
        time.sleep(1.5)  # a duplicate send would arrive within the poll interval
        second.stop()
        second_smtp.stop()

        mailed = collections.Counter(second_box.ids())
        twice = [m for m, n in mailed.items() if n > 1]
        assert not twice, f"mailed more than once: {twice[:3]}"
        expected = {message_id(ref) for ref in unsent}
        assert set(mailed) == expected, (
            f"{len(set(mailed) - expected)} unexpected, {len(expected - set(mailed))} not sent")
        resent = {message_id(ref) for ref in sent} & set(mailed)
        assert not resent, f"enquiries sent before the backup were sent again: {sorted(resent)[:3]}"
        in_flight = len(set(first_box.ids()) & set(mailed))
        print(f"restore drill ({backend}): {len(acknowledged)} acknowledged, {len(before)} before "
              f"the backup all restored; {len(outbox)} enquiries in the backup ({len(sent)} sent, "
              f"{len(unsent)} unsent); {observations[0]} observations restored; the restored "
              f"outbox mailed the {len(unsent)} unsent once each and none of the sent "
              f"({in_flight} of them had reached the first SMTP server after the backup)")
    except BaseException:
        log.flush()
        log.seek(0)
        sys.stderr.write(log.read()[-4000:])
        raise


if __name__ == "__main__":
    main()
