"""The restore drill: a backup taken while enquiries are being submitted,
restored into an empty database, served again, with the commands of
docs/operating.md ("Backups and restore") as written.

With the real sidecar binary and a real SMTP server (aiosmtpd on loopback):

1. a sidecar on the sample data takes enquiries from four concurrent
   clients; its SMTP server answers at first (some enquiries are mailed),
   then holds every message (the rest wait in the outbox);
2. meanwhile the database is backed up by the guide's block: `sidecar
   backup` for SQLite, `pg_dump` under umask 077 for PostgreSQL;
3. the submissions go on for a while, then that sidecar is stopped;
4. the guide's restore block restores the backup into an empty data
   directory (`sidecar restore`) or a new database (`createdb`,
   `pg_restore`), and a second sidecar starts on it with a second SMTP
   server.

The guide's blocks are the fenced `sh` blocks of that section, each found
by the command it runs (exactly one block runs `sidecar backup`, one
`sidecar restore`, one `pg_dump`, one `pg_restore`). Each runs under
`bash -euo pipefail` with only what a user has set: PATH with the sidecar
binary's folder first, the data directory (SIDECAR_DATA_DIR) or the
database (SIDECAR_DATABASE), and BACKUP_DIR. A block using a variable it
does not set fails; a self-check first runs broken copies of the guide
(each without one line that sets a variable, the commands stood in for)
and requires exactly that failure.

The drill runs under umask 022 (set here), the usual default that makes
new files readable by all, and checks that every enquiry acknowledged
(201) before the backup began is in the restored database, that every
observation is there, that the restored sidecar serves them, that its
outbox sends exactly the enquiries the backup held as unsent, each once,
and none the backup held as sent; and the modes: the backup (or dump)
0600, the restored SQLite database and its -wal and -shm 0600, and a data
directory the sidecar or the restore created 0700.

Usage: restore_e2e.py --sidecar BIN --dist DIR [--guide FILE] [--database-url URL]
(without a URL, SQLite files in temporary data directories; with one, the
guide restores into the database service_restored on the same server,
which must not exist yet). Only the standard library and aiosmtpd.
"""

import argparse
import collections
import glob
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
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


SECTION = "## Backups and restore"
# Each block the drill runs, by the command it runs.
BLOCKS = {
    "sqlite-backup": "sidecar backup",
    "sqlite-restore": "sidecar restore",
    "pg-dump": "pg_dump",
    "pg-restore": "pg_restore",
}
# The database the guide's PostgreSQL restore block creates.
RESTORED_DB = "service_restored"


class GuideError(Exception):
    """The guide lacks a block the drill runs."""


def guide_blocks(path):
    """{name: body} of the sh blocks of the guide's backup section."""
    text = open(path, encoding="utf-8").read()
    start = text.find("\n" + SECTION + "\n")
    if start < 0:
        raise GuideError(f"{path} has no section {SECTION!r}")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else len(text)]
    bodies = re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M)
    blocks = {}
    for name, command in BLOCKS.items():
        runs = re.compile(r"\b" + re.escape(command) + r"\b")
        found = [b for b in bodies
                 if any(runs.search(line) for line in b.splitlines()
                        if not line.lstrip().startswith("#"))]
        if len(found) != 1:
            raise GuideError(f"{path}, {SECTION!r}: {len(found)} sh blocks run {command}; "
                             f"the drill needs exactly one")
        blocks[name] = found[0]
    return blocks


def user_env(bin_dir, **variables):
    """What a user's shell has: PATH with the sidecar first, and `variables`."""
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": os.environ.get("HOME", "/"),
            "LANG": "C.UTF-8", **variables}


def run_block(name, body, env):
    """Runs one block of the guide as written; its output."""
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", body], env=env, capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError(f"the guide's {name} block failed ({r.returncode}): "
                             f"{r.stdout}{r.stderr}--- the block:\n{body}")
    return r.stdout.strip()


def mode(path):
    return format(os.stat(path).st_mode & 0o777, "o")


def expect_mode(path, want, what):
    got = mode(path)
    assert got == want, f"{what} {path} is {got}, not {want}"
    return f"{what} {want}"


def the_file(folder, pattern):
    """The one file matching `pattern` in `folder`, nothing else beside it."""
    names = sorted(os.listdir(folder))
    found = glob.glob(os.path.join(folder, pattern))
    assert len(found) == 1 and len(names) == 1, f"{folder} holds {names}, wanted one {pattern}"
    return found[0]


def with_database(url, name):
    p = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(p._replace(path="/" + name))


def self_check(guide, work):
    """Broken copies of the guide must fail the drill. For every variable a
    block sets and uses (not one of the user's), a copy without the line
    that sets it must fail under `set -u`, naming it; the commands run
    meanwhile are stand-ins that succeed, so nothing else can fail it. A
    copy without one of the blocks is refused."""
    text, blocks = open(guide, encoding="utf-8").read(), guide_blocks(guide)
    stand_ins = os.path.join(work, "check-bin")
    os.makedirs(stand_ins)
    for command in ("sidecar", "pg_dump", "createdb", "pg_restore"):
        path = os.path.join(stand_ins, command)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(path, 0o755)
    backups = os.path.join(work, "check-backups")
    os.makedirs(backups)
    for ext in ("sqlite3", "dump"):
        open(os.path.join(backups, f"service-20261126T0300Z.{ext}"), "w").close()
    env = user_env(stand_ins, SIDECAR_DATA_DIR=os.path.join(work, "check-data"),
                   BACKUP_DIR=backups, SIDECAR_DATABASE="postgres://nobody@127.0.0.1:9/none")
    for name, body in blocks.items():
        run_block(name, body, env)  # whole, it passes with the stand-ins
    refused = []
    for name, body in blocks.items():
        lines = body.splitlines(True)
        for i, line in enumerate(lines):
            m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=", line)
            if not m or m.group(1) in env:
                continue
            variable = m.group(1)
            if not re.search(r"\$\{?" + variable + r"\b", "".join(lines[i + 1:])):
                continue
            copy = os.path.join(work, f"broken-{name}-{variable}.md")
            with open(copy, "w", encoding="utf-8") as f:
                f.write(text.replace(body, "".join(lines[:i] + lines[i + 1:])))
            try:
                run_block(name, guide_blocks(copy)[name], env)
            except AssertionError as e:
                assert f"{variable}: unbound variable" in str(e), \
                    f"self-check: {name} without {variable} failed otherwise: {e}"
            else:
                raise AssertionError(f"self-check: the {name} block without setting "
                                     f"{variable} passed")
            refused.append(f"{name} without {variable}")
    assert refused, "self-check: no block sets a variable of its own; nothing was checked"
    copy = os.path.join(work, "broken-no-dump.md")
    with open(copy, "w", encoding="utf-8") as f:
        f.write(text.replace(blocks["pg-dump"], "pg_dumpall --help\n"))
    try:
        guide_blocks(copy)
    except GuideError as e:
        refused.append(str(e).split(": ", 1)[1])
    else:
        raise AssertionError("self-check: a guide without the pg_dump block was accepted")
    print(f"restore drill self-check: broken copies of the guide refused: {'; '.join(refused)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sidecar", required=True)
    ap.add_argument("--dist", required=True)
    ap.add_argument("--guide", default="docs/operating.md")
    ap.add_argument("--database-url")
    a = ap.parse_args()
    # The usual default, under which a file made without care is 0644.
    os.umask(0o022)
    backend = "PostgreSQL" if a.database_url else "SQLite"
    work = tempfile.mkdtemp(prefix="restore-e2e-")
    bin_dir = os.path.dirname(os.path.abspath(a.sidecar))
    self_check(a.guide, work)
    blocks = guide_blocks(a.guide)
    # Neither folder exists yet: the sidecar, the restore and the guide's
    # backup block create them.
    source_dir, restored_dir = os.path.join(work, "data"), os.path.join(work, "restored")
    backups = os.path.join(work, "backups")
    restore_url = a.database_url and with_database(a.database_url, RESTORED_DB)
    if a.database_url:
        env = user_env(bin_dir, SIDECAR_DATABASE=a.database_url, BACKUP_DIR=backups)
        backup_block, restore_block, pattern = "pg-dump", "pg-restore", "service-*.dump"
    else:
        env = user_env(bin_dir, SIDECAR_DATA_DIR=source_dir, BACKUP_DIR=backups)
        backup_block, restore_block = "sqlite-backup", "sqlite-restore"
        pattern = "service-*.sqlite3"
    log = open(os.path.join(work, "sidecar.log"), "w+")
    first_box, second_box = Mailbox(), Mailbox()
    first_smtp, second_smtp = Smtp(first_box, free_port()), Smtp(second_box, free_port())
    source = Database(source_dir, a.database_url)
    restored = Database(restored_dir, restore_url)
    modes = []

    def sidecar(data_dir, url, smtp_port):
        s = Sidecar(a.sidecar, a.dist, data_dir, url, smtp_port, log)
        # The sample data, so that there are observations to find again.
        s.args[s.args.index("--sample") + 1] = "default"
        return s

    try:
        first_smtp.start()
        first = sidecar(source_dir, a.database_url, first_smtp.port)
        first.start(seconds=120)
        if not a.database_url:
            modes.append(expect_mode(source_dir, "700", "the data directory the sidecar created"))
            modes.append(expect_mode(os.path.join(source_dir, "service.sqlite3"), "600",
                                     "the database"))

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
        made = run_block(backup_block, blocks[backup_block], env)
        print(f"backup while submitting, the guide's {backup_block} block: {made or 'done'}")
        backup_file = the_file(backups, pattern)
        modes.append(expect_mode(backups, "700", "the backup folder"))
        modes.append(expect_mode(backup_file, "600", "the dump" if a.database_url else "the backup"))
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

        if not a.database_url:
            env["SIDECAR_DATA_DIR"] = restored_dir
        made = run_block(restore_block, blocks[restore_block], env)
        print(f"the guide's {restore_block} block: {made or 'done'}")
        if not a.database_url:
            modes.append(expect_mode(restored_dir, "700", "the data directory the restore created"))
            modes.append(expect_mode(os.path.join(restored_dir, "service.sqlite3"), "600",
                                     "the restored database"))
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
        second = sidecar(restored_dir, restore_url, second_smtp.port)
        second.start(seconds=120)
        if not a.database_url:
            for suffix in ("-wal", "-shm"):
                modes.append(expect_mode(os.path.join(restored_dir, "service.sqlite3" + suffix),
                                         "600", suffix + " of the served database"))
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
              f"({in_flight} of them had reached the first SMTP server after the backup); "
              f"under umask 022: {', '.join(modes)}")
    except BaseException:
        log.flush()
        log.seek(0)
        sys.stderr.write(log.read()[-4000:])
        raise


if __name__ == "__main__":
    main()
