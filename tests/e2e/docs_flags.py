"""The flags the programs declare against the flags the guides name.

    python3 tests/e2e/docs_flags.py BIN_DIR [--readme F] [--deploying F] [--operating F]

Reads the --help of `sidecar` and `generate` (in BIN_DIR) and of their
subcommands, and of scripts/release, and checks:

  1. every flag of `sidecar serve` is named in docs/operating.md on one line
     with its environment twin (the table of settings); every flag of
     `sidecar import` and `sidecar healthcheck`, and their twins, somewhere
     in it;
  2. every flag of `generate host-config` and of scripts/release is named in
     docs/deploying.md;
  3. every flag of every `generate` subcommand, and its environment twin,
     is named in README.md (the commands table and the list of twins);
  4. every --flag that the three documents name for `sidecar`, `generate`
     or scripts/release exists in that program's --help: in a command line
     (fenced shell blocks and inline code) for the subcommand it follows,
     elsewhere for any of the three programs (operating.md: the sidecar);
     every SIDECAR_, GENERATE_ and RELEASE_ variable they name is one the
     programs read.

Flags of other programs (podman, docker, nginx, cargo, rsync, …) are told
apart by the command they follow; the few named alone in prose are listed
in FOREIGN with the program they belong to. Prints each disagreement with
the document, line and flag, and exits 1 if there is any.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys

FLAG = re.compile(r"(?<![\w-])--([a-z0-9][a-z0-9-]*)")
ENV = re.compile(r"\b((?:SIDECAR|GENERATE|RELEASE)_[A-Z0-9_]+)\b")

# Flags named alone in the guides that belong to other programs.
FOREIGN = {
    "--read-only": "podman run (the container image's read-only root)",
    "--format": "podman build --format docker",
    "--network": "podman run --network host",
    "--context": "scripts/container --context DIR",
}

# Variables of that shape that no program reads.
FOREIGN_ENV = {
    "SIDECAR_IMAGE": "the image compose and the CI rollout start, not a setting of the sidecar",
    "SIDECAR_BASE": "the sidecar's URL in the usage line of tests/e2e/fronts.sh",
}

# Words that stand before the program in a command line.
WRAPPERS = {"sudo", "exec", "nice", "nohup", "time", "env", "then", "do", "!", "&&", "||"}
SEPARATORS = {";", "&", "&&", "|", "||", "(", ")", ";;", "|&"}


class Program:
    """One program's --help: its subcommands' flags and environment twins."""

    def __init__(self, name):
        self.name = name
        # subcommand ('' for the program itself) -> {flag: env or None}
        self.subs = {}

    def flags(self, sub=None):
        if sub is None:
            return set().union(*self.subs.values())
        return set(self.subs.get(sub, {})) | set(self.subs.get("", {}))

    def envs(self):
        return {e for sub in self.subs.values() for e in sub.values() if e}


def run_help(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except OSError as e:
        sys.exit(f"docs-flags: cannot run {' '.join(argv)}: {e}")
    if out.returncode != 0:
        sys.exit(f"docs-flags: {' '.join(argv)} exited {out.returncode}:\n{out.stderr}")
    return out.stdout


def clap_options(text):
    """{flag: env} from a clap help text (short or long form)."""
    found, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^ {2,6}(?:-\w, )?--([a-z0-9][a-z0-9-]*)", line)
        if m:
            current = "--" + m.group(1)
            found[current] = None
        elif line.strip() and not line.startswith(" "):
            current = None  # a section heading
        if current:
            e = re.search(r"\[env: ([A-Z0-9_]+)", line)
            if e:
                found[current] = e.group(1)
    return found


def clap_commands(text):
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith("Commands:"):
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            m = re.match(r"^ {2}([a-z][a-z0-9-]*)\b", line)
            if m and m.group(1) != "help":
                names.append(m.group(1))
    return names


def clap_program(name, exe):
    prog = Program(name)
    top = run_help([exe, "--help"])
    prog.subs[""] = clap_options(top)
    for sub in clap_commands(top):
        text = run_help([exe, sub, "--help"])
        flags = clap_options(text)
        # A subcommand with actions of its own (`sidecar enquiries list`):
        # the actions' flags count as the subcommand's.
        for action in clap_commands(text):
            flags.update(clap_options(run_help([exe, sub, action, "--help"])))
        prog.subs[sub] = flags
    return prog


def release_program(script):
    """scripts/release --help: the flags of its usage lines and of its
    option list (two-space indent); RELEASE_ variables named anywhere."""
    text = run_help([script, "--help"])
    prog = Program("scripts/release")
    opts = {"--help": None}
    for line in text.splitlines():
        if re.match(r"^\s+scripts/release\s", line):
            for f in FLAG.findall(line):
                opts["--" + f] = None
        m = re.match(r"^ {2}--([a-z0-9][a-z0-9-]*)", line)
        if m:
            opts["--" + m.group(1)] = None
    # An option's environment twin: "env RELEASE_…" in its entry (the
    # option line and the more indented lines below it).
    current = None
    for line in text.splitlines():
        m = re.match(r"^ {2}(--[a-z0-9][a-z0-9-]*)", line)
        if m:
            current = m.group(1)
        elif not line.startswith("   "):
            current = None
        e = re.search(r"\benv (RELEASE_[A-Z0-9_]+)", line)
        if current and e:
            opts[current] = e.group(1)
    prog.subs[""] = opts
    prog.release_env = set(ENV.findall(text))
    for sub in ("publish", "rollback", "status"):
        prog.subs[sub] = {}
    return prog


class Mention:
    def __init__(self, doc, line, flag, program=None, sub=None, context=""):
        self.doc, self.line, self.flag = doc, line, flag
        self.program, self.sub, self.context = program, sub, context


def program_of(word):
    word = word.strip("[](`")
    base = word.rsplit("/", 1)[-1]
    if word.endswith("scripts/release"):
        return "release"
    if base in ("generate", "sidecar"):
        return base
    if word in ("publish", "rollback", "status"):
        return "release"  # `publish --wait`: a subcommand of scripts/release named alone
    return None


def command_mentions(doc, lineno, text, programs, out):
    """The --flags of a command line, each with the program and subcommand
    it follows ("other" for a program that is not ours, None when the line
    starts with a flag)."""
    text = text.replace("\\|", " ")
    text = re.sub(r"(?<=[\w\]])\|(?=[\w\[])", "/", text)
    lex = shlex.shlex(text, posix=True, punctuation_chars=";&|()<>")
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        tokens = list(lex)
    except ValueError:
        for f in FLAG.findall(text):
            out.append(Mention(doc, lineno, "--" + f, context=text))
        return
    program, sub, expect, comment = None, None, True, False
    for tok in tokens:
        if comment or tok.startswith("#"):
            comment = True
            for f in FLAG.findall(tok):
                out.append(Mention(doc, lineno, "--" + f, context=text))
            continue
        if tok in SEPARATORS:
            expect, program, sub = True, None, None
            continue
        if " " in tok.strip() and program_of(tok.split()[0]):
            command_mentions(doc, lineno, tok, programs, out)
            continue
        word = tok.strip("[]`…")
        if expect:
            if word in WRAPPERS or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
                continue
            expect = False
            if not word.startswith("-"):
                program = program_of(word) or "other"
                sub = "" if program != "other" else None
                continue
        m = re.match(r"^--([a-z0-9][a-z0-9-]*)(=.*)?$", word)
        if m:
            out.append(Mention(doc, lineno, "--" + m.group(1), program, sub, text))
        elif program in programs and sub == "" and word in programs[program].subs:
            sub = word


def doc_mentions(doc, programs):
    """Every --flag the document names, with the command it follows."""
    out, envs = [], []
    lines = open(doc, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^\s*```\s*(\w*)", line)
        if fence:
            lang, start, body = fence.group(1), i + 1, []
            i += 1
            while i < len(lines) and not re.match(r"^\s*```", lines[i]):
                body.append((i + 1, lines[i]))
                i += 1
            i += 1
            for n, text in body:
                envs += [(n, e) for e in ENV.findall(text)]
            if lang in ("sh", "bash", "shell", "console", ""):
                joined, first = "", None
                for n, text in body:
                    first = first or n
                    if text.rstrip().endswith("\\"):
                        joined += text.rstrip()[:-1] + " "
                        continue
                    command_mentions(doc, first, joined + text, programs, out)
                    joined, first = "", None
                if joined:
                    command_mentions(doc, first, joined, programs, out)
            else:
                for n, text in body:
                    out += [Mention(doc, n, "--" + f, context=text) for f in FLAG.findall(text)]
            continue
        # A paragraph (or table row, or list item): its inline code spans,
        # which may run over a line break, are command lines; the prose
        # around them is not.
        start, para = i, []
        while i < len(lines) and lines[i].strip() and not re.match(r"^\s*```", lines[i]):
            para.append(lines[i])
            i += 1
        if not para:
            i += 1
            continue
        block = "\n".join(para)
        for n, text in enumerate(para, start + 1):
            envs += [(n, e) for e in ENV.findall(text)]

        def line_of(pos):
            return start + 1 + block.count("\n", 0, pos)

        for m in re.finditer(r"(`+)(.+?)\1", block, re.S):
            command_mentions(doc, line_of(m.start()), m.group(2).replace("\n", " "), programs, out)
        prose = re.sub(r"(`+)(.+?)\1", lambda m: re.sub(r"[^\n]", " ", m.group(0)), block, flags=re.S)
        for m in FLAG.finditer(prose):
            n = line_of(m.start())
            out.append(Mention(doc, n, m.group(0), context=lines[n - 1]))
    return out, envs


def named(doc_text_lines, flag):
    pat = re.compile(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])")
    return [n for n, l in enumerate(doc_text_lines, 1) if pat.search(l)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--deploying", default="docs/deploying.md")
    ap.add_argument("--operating", default="docs/operating.md")
    ap.add_argument("--release", default="scripts/release")
    ap.add_argument("--list", action="store_true", help="print every mention and what it was checked against")
    args = ap.parse_args()

    programs = {
        "sidecar": clap_program("sidecar", os.path.join(args.bin, "sidecar")),
        "generate": clap_program("generate", os.path.join(args.bin, "generate")),
        "release": release_program(args.release),
    }
    help_of = {"sidecar": "sidecar", "generate": "generate", "release": "scripts/release"}
    for key, prog in programs.items():
        if len(prog.flags()) < 3:
            sys.exit(f"docs-flags: found only {sorted(prog.flags())} in {help_of[key]}'s --help; the help format changed?")
    for key, sub in (("sidecar", "serve"), ("generate", "host-config"), ("generate", "build")):
        if sub not in programs[key].subs or len(programs[key].subs[sub]) < 3:
            sys.exit(f"docs-flags: `{key} {sub} --help` declares no flags; the help format changed?")

    errors = []
    docs = {"readme": args.readme, "deploying": args.deploying, "operating": args.operating}
    text = {k: open(p, encoding="utf-8").read().splitlines() for k, p in docs.items()}

    def own(prog, sub):
        return sorted(f for f in programs[prog].subs[sub] if f not in ("--help", "--version"))

    # 1. operating.md: sidecar serve, one line per flag with its twin.
    for flag in own("sidecar", "serve"):
        env = programs["sidecar"].subs["serve"][flag]
        lines = named(text["operating"], flag)
        if not lines:
            errors.append(f"{docs['operating']}: does not name `sidecar serve {flag}`")
        elif env and not [n for n in lines if re.search(rf"\b{env}\b", text["operating"][n - 1])]:
            errors.append(f"{docs['operating']}: names `sidecar serve {flag}` but never on one line with its environment twin {env}")
        elif not env:
            errors.append(f"`sidecar serve --help`: {flag} shows no environment twin")
    for sub in ("import", "healthcheck"):
        for flag in own("sidecar", sub):
            env = programs["sidecar"].subs[sub][flag]
            if not named(text["operating"], flag):
                errors.append(f"{docs['operating']}: does not name `sidecar {sub} {flag}`")
            if env and not named(text["operating"], env):
                errors.append(f"{docs['operating']}: does not name {env}, the environment twin of `sidecar {sub} {flag}`")

    # 2. deploying.md: generate host-config and scripts/release.
    for flag in own("generate", "host-config"):
        if not named(text["deploying"], flag):
            errors.append(f"{docs['deploying']}: does not name `generate host-config {flag}`")
    for flag in own("release", ""):
        if not named(text["deploying"], flag):
            errors.append(f"{docs['deploying']}: does not name `scripts/release {flag}`")

    # 3. README.md: every generate flag and its twin.
    for sub in programs["generate"].subs:
        for flag in own("generate", sub):
            env = programs["generate"].subs[sub][flag]
            if not named(text["readme"], flag):
                errors.append(f"{docs['readme']}: does not name `generate {sub} {flag}`")
            if env and not named(text["readme"], env):
                errors.append(f"{docs['readme']}: does not name {env}, the environment twin of `generate {sub} {flag}`")

    # 4. No flag or variable in the documents that the programs lack.
    known_env = programs["sidecar"].envs() | programs["generate"].envs() | programs["release"].release_env
    union = programs["sidecar"].flags() | programs["generate"].flags() | programs["release"].flags()
    checked = 0
    for key, path in docs.items():
        mentions, envs = doc_mentions(path, programs)
        for m in mentions:
            if args.list:
                print(f"{path}:{m.line}: {m.flag} [{m.program or '-'} {m.sub or ''}]")
            if m.program == "other":
                continue
            checked += 1
            if m.program is None:
                if key == "operating":
                    have, what = programs["sidecar"].flags(), "any `sidecar` subcommand"
                else:
                    have, what = union, "`sidecar`, `generate` or scripts/release"
                if m.flag not in have and m.flag not in FOREIGN:
                    errors.append(f"{path}:{m.line}: {m.flag} is not a flag of {what} (--help); in: {' '.join(m.context.split())}")
                continue
            prog = programs[m.program]
            sub = m.sub or None
            name = help_of[m.program] + (f" {m.sub}" if m.sub and m.program != "release" else "")
            if m.flag not in prog.flags(sub if m.program != "release" else None):
                errors.append(f"{path}:{m.line}: {m.flag} is not a flag of `{name} --help`; in: {' '.join(m.context.split())}")
        for n, env in envs:
            if env not in known_env and env not in FOREIGN_ENV:
                errors.append(f"{path}:{n}: {env} is no environment variable that `sidecar`, `generate` or scripts/release reads (--help)")

    if errors:
        for e in errors:
            print(f"docs-flags: FAIL: {e}", file=sys.stderr)
        print(f"docs-flags: {len(errors)} disagreement(s) between --help and the guides", file=sys.stderr)
        sys.exit(1)
    counts = ", ".join(
        f"{help_of[k]} {len(p.flags())}" for k, p in programs.items()
    )
    print(f"docs-flags: flags declared ({counts}) all documented; {checked} flag mentions in {len(docs)} documents all declared")


if __name__ == "__main__":
    main()
