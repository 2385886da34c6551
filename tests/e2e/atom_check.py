#!/usr/bin/env python3
"""Checks an Atom feed against the rules of RFC 4287, element by element.

    atom_check.py FEED.xml [BASE_URL]

The RFC's schema (Appendix B) is RELAX NG with Schematron rules;
tests/e2e/outside-linters.sh also runs its RELAX NG part with jing (Java),
which skips the Schematron rules as annotations. This script states the
schema's constraints, Schematron rules included, in Python (standard library
only) and adds the RFC's prose rules the schema cannot express (the self
link, unique ids, date order). With BASE_URL it also
checks that every link stays on that origin. Exits 1 naming every
violation; `--self-test` first proves each rule fires on a broken copy.
"""

import re
import sys
import xml.etree.ElementTree as ET

ATOM = "{http://www.w3.org/2005/Atom}"
# RFC 3339 date-time, as RFC 4287 section 3.3 requires (upper-case T and Z).
DATE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\Z")
IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+\Z")
FEED_ONCE = ["id", "title", "updated"]
FEED_AT_MOST_ONCE = ["generator", "icon", "logo", "rights", "subtitle"]
ENTRY_ONCE = ["id", "title", "updated"]
ENTRY_AT_MOST_ONCE = ["content", "published", "rights", "source", "summary"]
TEXT_TYPES = {"text", "html", "xhtml"}


def children(el, name):
    return el.findall(ATOM + name)


def check(root, base=None):
    errors = []

    def err(msg):
        errors.append(msg)

    if root.tag != ATOM + "feed":
        return [f"the root element is {root.tag}, expected atom:feed"]

    def person(p, where):
        if len(children(p, "name")) != 1:
            err(f"{where}: a person construct has exactly one atom:name (4.2.1)")
        for uri in children(p, "uri"):
            if not IRI.match((uri.text or "").strip()):
                err(f"{where}: atom:uri {uri.text!r} is not an IRI (3.2.2)")

    def text_construct(el, where):
        kind = el.get("type", "text")
        if kind not in TEXT_TYPES:
            err(f"{where}: type {kind!r} of a text construct is not text, html or xhtml (3.1.1)")
        if kind != "xhtml" and len(el):
            err(f"{where}: a {kind} text construct holds child elements (3.1.1)")
        if not (el.text or "").strip() and not len(el):
            err(f"{where}: empty text construct")

    def date(el, where):
        if not DATE.match((el.text or "").strip()):
            err(f"{where}: {el.text!r} is not an RFC 3339 date-time (3.3)")

    def links(el, where):
        seen = set()
        for link in children(el, "link"):
            href = link.get("href")
            if not href or not IRI.match(href):
                err(f"{where}: atom:link without an absolute href (4.2.7.1)")
                continue
            if base and not href.startswith(base + "/"):
                err(f"{where}: atom:link {href} leaves {base}")
            rel = link.get("rel", "alternate")
            if rel == "alternate":
                key = (link.get("type"), link.get("hreflang"))
                if key in seen:
                    err(f"{where}: two alternate links with type and hreflang {key} (4.1.1)")
                seen.add(key)
        return seen

    def common(el, where, once, at_most_once):
        for name in once:
            n = len(children(el, name))
            if n != 1:
                err(f"{where}: {n} atom:{name}, expected exactly one (4.1)")
        for name in at_most_once:
            if len(children(el, name)) > 1:
                err(f"{where}: atom:{name} more than once (4.1)")
        for ident in children(el, "id"):
            if not IRI.match((ident.text or "").strip()):
                err(f"{where}: atom:id {ident.text!r} is not an absolute IRI (4.2.6)")
        for name in ["title", "subtitle", "summary", "rights"]:
            for t in children(el, name):
                text_construct(t, f"{where} atom:{name}")
        for name in ["updated", "published"]:
            for d in children(el, name):
                date(d, f"{where} atom:{name}")
        for name in ["author", "contributor"]:
            for p in children(el, name):
                person(p, f"{where} atom:{name}")

    common(root, "feed", FEED_ONCE, FEED_AT_MOST_ONCE)
    links(root, "feed")
    selfs = [l for l in children(root, "link") if l.get("rel") == "self"]
    if len(selfs) != 1:
        err(f"feed: {len(selfs)} self links, expected one (4.2.7.2 SHOULD, required here)")
    elif selfs[0].get("type") != "application/atom+xml":
        err("feed: the self link does not name application/atom+xml")
    feed_authors = children(root, "author")
    ids = set()
    entries = children(root, "entry")
    if not entries:
        err("feed: no atom:entry")
    last = None
    for i, entry in enumerate(entries):
        where = f"entry {i + 1}"
        common(entry, where, ENTRY_ONCE, ENTRY_AT_MOST_ONCE)
        alternates = links(entry, where)
        if not feed_authors and not children(entry, "author"):
            err(f"{where}: no atom:author here or on the feed (4.1.2)")
        content = children(entry, "content")
        if not content and not alternates:
            err(f"{where}: no atom:content and no alternate link (4.1.2)")
        if (not content or content[0].get("src")) and not children(entry, "summary"):
            err(f"{where}: no atom:summary where there is no inline content (4.1.2)")
        ident = (entry.findtext(ATOM + "id") or "").strip()
        if ident in ids:
            err(f"{where}: atom:id {ident} used twice (4.2.6)")
        ids.add(ident)
        updated = (entry.findtext(ATOM + "updated") or "").strip()
        if last is not None and updated > last:
            err(f"{where}: newer than the entry before it (the feed lists newest first)")
        last = updated
    feed_updated = (root.findtext(ATOM + "updated") or "").strip()
    newest = max((e.findtext(ATOM + "updated") or "" for e in entries), default="")
    if newest and feed_updated < newest:
        err(f"feed: atom:updated {feed_updated} is older than its newest entry {newest} (4.2.15)")
    return errors


def self_test():
    good = (
        '<feed xmlns="http://www.w3.org/2005/Atom"><id>https://e.example/feed.xml</id>'
        "<title>T</title><updated>2026-01-02T00:00:00Z</updated><author><name>A</name></author>"
        '<link rel="self" type="application/atom+xml" href="https://e.example/feed.xml"/>'
        "<entry><id>https://e.example/a/</id><title>a</title><updated>2026-01-02T00:00:00Z</updated>"
        '<link rel="alternate" type="text/html" href="https://e.example/a/"/><summary>s</summary></entry>'
        "</feed>"
    )
    assert check(ET.fromstring(good), "https://e.example") == [], check(ET.fromstring(good))
    broken = {
        "no feed id": good.replace("<id>https://e.example/feed.xml</id>", ""),
        "relative id": good.replace("<id>https://e.example/a/</id>", "<id>/a/</id>"),
        "bad date": good.replace("<updated>2026-01-02T00:00:00Z</updated><author>", "<updated>2026-01-02</updated><author>"),
        "no author": good.replace("<author><name>A</name></author>", ""),
        "no summary": good.replace("<summary>s</summary>", ""),
        "two titles": good.replace("<title>a</title>", "<title>a</title><title>b</title>"),
        "no self link": good.replace('rel="self"', 'rel="related"'),
        "foreign link": good.replace('href="https://e.example/a/"', 'href="https://other.example/a/"'),
        "older feed date": good.replace("<updated>2026-01-02T00:00:00Z</updated><author>", "<updated>2025-01-02T00:00:00Z</updated><author>"),
    }
    for name, text in broken.items():
        if not check(ET.fromstring(text), "https://e.example"):
            sys.exit(f"atom-check: self-test: the broken copy '{name}' passed")


def main():
    args = [a for a in sys.argv[1:] if a != "--self-test"]
    if "--self-test" in sys.argv:
        self_test()
    if not args:
        sys.exit(__doc__)
    try:
        root = ET.parse(args[0]).getroot()
    except ET.ParseError as e:
        sys.exit(f"atom-check: {args[0]} is not well-formed XML: {e}")
    errors = check(root, args[1].rstrip("/") if len(args) > 1 else None)
    for e in errors:
        print(f"atom-check: {e}")
    if errors:
        sys.exit(1)
    print(f"atom-check: {args[0]}: {len(children(root, 'entry'))} entries follow RFC 4287")


if __name__ == "__main__":
    main()
