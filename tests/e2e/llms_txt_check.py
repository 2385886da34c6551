"""`llms.txt` as llmstxt.org's reference parser (PyPI `llms-txt`) reads it.

  llms_txt_check.py DIST

The file must parse, and the parse must keep everything the file holds:
its H1 and quote, every H2 section (none merged or lost) and every link of
each section with its title and URL. Every non-empty line under an H2 must
be a link item (the format has nothing else there). A copy with a
sub-heading inside a section, and one with a bracket in a link title, must
fail (the test of the test).

Exits non-zero with every failure listed.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from llms_txt import parse_llms_file

ITEM = re.compile(r"^- \[(?P<title>[^\]]+)\]\((?P<url>[^)\s]+)\)(?::\s*(?P<desc>.*))?$")


def expected(text: str) -> tuple[str, str, list[tuple[str, list[tuple[str, str, str]]]], list[str]]:
    """H1, quote, sections with their links as the file holds them, and
    the lines under an H2 that are not link items."""
    lines = text.splitlines()
    title = lines[0][2:].strip() if lines and lines[0].startswith("# ") else ""
    quote = next((l[2:].strip() for l in lines if l.startswith("> ")), "")
    sections: list[tuple[str, list[tuple[str, str, str]]]] = []
    stray = []
    for line in lines:
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif sections and line.strip():
            m = ITEM.match(line)
            if m:
                sections[-1][1].append((m["title"], m["url"], (m["desc"] or "").strip()))
            else:
                stray.append(f"under `## {sections[-1][0]}`: {line!r} is not a link item")
    return title, quote, sections, stray


def problems(text: str) -> list[str]:
    title, quote, sections, stray = expected(text)
    out = list(stray)
    try:
        parsed = parse_llms_file(text)
    except Exception as e:  # the parser raises on what it cannot read
        return out + [f"llms-txt parser raised {type(e).__name__}: {e}"]
    if parsed.title != title:
        out.append(f"parsed title {parsed.title!r}, the file's H1 is {title!r}")
    if (parsed.summary or "") != quote:
        out.append(f"parsed summary {parsed.summary!r}, the file's quote is {quote!r}")
    names = [n for n, _ in sections]
    if len(set(names)) != len(names):
        out.append(f"repeated H2 headings (the parser keeps one of each): {names}")
    if list(parsed.sections.keys()) != list(dict.fromkeys(names)):
        out.append(f"parsed sections {list(parsed.sections.keys())}, the file has {names}")
    for name, links in sections:
        got = [(l["title"], l["url"], (l["desc"] or "").strip()) for l in parsed.sections.get(name, [])]
        if got != links:
            out.append(f"`## {name}`: parsed {len(got)} links, the file has {len(links)}; first difference: "
                       f"{next(((g, w) for g, w in zip(got, links) if g != w), None)}")
        for t, u, _ in got:
            if not t.strip() or not re.match(r"^https?://", u):
                out.append(f"`## {name}`: link without a title or an absolute URL: [{t}]({u})")
    if "Optional" in names and names[-1] != "Optional":
        out.append(f"`## Optional` is not the last section: {names}")
    if not sections:
        out.append("no H2 section")
    return out


def main() -> int:
    dist = Path(sys.argv[1])
    text = (dist / "llms.txt").read_text()
    found = problems(text)
    _, _, sections, _ = expected(text)
    print(f"llms.txt: {len(sections)} sections, {sum(len(l) for _, l in sections)} links")
    # The test of the test.
    first = text.index("\n- [", text.index("\n## "))
    broken = {
        "a sub-heading inside a section": text[:first] + "\n\nGuides:\n" + text[first:],
        "a bracket in a link title": text[:first] + "\n- [MCP [beta]](https://example.org/x.md)" + text[first:],
    }
    for what, copy in broken.items():
        if not problems(copy):
            found.append(f"test of the test: a copy with {what} passed")
    for p in found:
        print("FAIL llms.txt:", p)
    if not found:
        print("llms.txt: ok (every section and link parsed by llms-txt, broken copies caught)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
