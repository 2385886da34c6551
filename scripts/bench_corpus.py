#!/usr/bin/env python3
"""Deterministic synthetic corpus for scripts/bench-build.

Usage: scripts/bench_corpus.py OUT_DIR N [--bilingual]

Writes
  OUT_DIR/content/  a content folder for `generate build`: site.toml and
                    service/ copied from the repository's content/, a docs
                    home, SECTIONS section indexes and N pages of ~4 KB of
                    Markdown (headings, paragraphs, a bullet list, a numbered
                    list, a table, a fenced code block, 3-5 internal links,
                    some with anchors to headings that exist);
  OUT_DIR/hugo/     a minimal Hugo site over the SAME Markdown files, with
                    layouts comparable to ours (title, summary, content, TOC,
                    nav, breadcrumbs, prev/next, section listing, JSON-LD), a
                    Markdown twin per page (as we publish one) and the same
                    CSS/JS/SVG assets fingerprinted through Hugo Pipes.

With --bilingual, every page and index also has a Dutch translation
beside it (`page-00001.nl.md`: the same Markdown under a marked title,
so both languages weigh the same), for both tools: ours publishes it under
/nl/ (site.toml declares English and Dutch), Hugo as a second language
(translation by file name, its default `/nl/` prefix), each page naming its
versions as hreflang alternates and linking them from a switcher.

Same N, same bytes: a seeded PRNG, no clock, no absolute paths. Standard
library only.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import sys
import tomllib
from pathlib import Path

SEED = 20261101
SECTIONS = 20
TARGET_BODY_BYTES = 4000  # body only; front matter adds ~150 bytes

REPO = Path(__file__).resolve().parent.parent

WORDS = """
water river stream lake reach basin catchment estuary wetland spring
sample samples sampling survey volunteer volunteers citizen observer
nitrate phosphate turbidity oxygen temperature acidity conductivity
sensor probe strip kit reading readings gauge meter bottle filter
protocol method calibration quality flag flags record records archive
dataset export import format column row table value values unit units
site sites station location coordinate region county parish valley
season month week weekly monthly annual trend trends baseline change
project partner partners consortium network community school schools
report reports summary analysis review check checks audit licence
upstream downstream bank channel flow level rainfall runoff drainage
algae bloom invertebrate habitat species biology chemistry physics
clear cloudy muddy green brown fresh brackish shallow deep fast slow
first second third careful simple robust open public shared local
measure compare collect upload verify publish describe explain label
""".split()

SENTENCE_TAILS = ["." for _ in range(8)] + ["!", "?"]
LANGS = ["toml", "json", "python", "sh", "text", "csv"]


def title_case(words: list[str]) -> str:
    return " ".join(w.capitalize() if i == 0 else w for i, w in enumerate(words))


def slugify(text: str) -> str:
    """The generator's heading id: lower-case a-z0-9, other runs become '-'."""
    out: list[str] = []
    dash = False
    for c in text:
        if c.isascii() and c.isalnum():
            if dash and out:
                out.append("-")
            dash = False
            out.append(c.lower())
        else:
            dash = True
    return "".join(out) or "section"


class Page:
    __slots__ = ("number", "section", "url", "title", "summary", "weight", "headings")

    def __init__(self, number: int, section: str) -> None:
        self.number = number
        self.section = section
        self.url = f"/docs/{section}/page-{number:05d}/"
        self.title = ""
        self.summary = ""
        self.weight = 0
        # (level, text) in document order; texts are unique within a page.
        self.headings: list[tuple[int, str]] = []


def section_name(i: int) -> str:
    return f"section-{i + 1:02d}"


def words(rng: random.Random, lo: int, hi: int) -> list[str]:
    return [rng.choice(WORDS) for _ in range(rng.randint(lo, hi))]


def sentence(rng: random.Random) -> str:
    return title_case(words(rng, 6, 16)) + rng.choice(SENTENCE_TAILS)


def paragraph(rng: random.Random, lo: int = 2, hi: int = 5) -> str:
    parts = [sentence(rng) for _ in range(rng.randint(lo, hi))]
    # A little inline markup, as real prose has.
    i = rng.randrange(len(parts))
    w = rng.choice(WORDS)
    parts[i] = parts[i].rstrip(".!?") + f" with **{w}** and `{rng.choice(WORDS)}_{rng.randint(1, 99)}`."
    return " ".join(parts)


def plan(rng: random.Random, n: int) -> list[Page]:
    """Titles, weights and headings of every page, before any body is
    written, so links can point at anchors that exist."""
    pages = []
    for k in range(n):
        p = Page(k + 1, section_name(k % SECTIONS))
        p.title = f"{title_case(words(rng, 2, 5))} {p.number}"
        p.summary = title_case(words(rng, 8, 16)) + "."
        p.weight = rng.randint(1, 100)
        seen: set[str] = set()
        n2 = rng.randint(4, 6)
        for _ in range(n2):
            for level in [2] + [3] * rng.randint(0, 2):
                while True:
                    text = title_case(words(rng, 2, 4))
                    if level == 3 and rng.random() < 0.3:
                        text += f" {rng.randint(2, 9)}"
                    slug = slugify(text)
                    if slug not in seen:
                        seen.add(slug)
                        break
                p.headings.append((level, text))
        pages.append(p)
    return pages


def link(rng: random.Random, pages: list[Page], me: Page) -> str:
    while True:
        target = rng.choice(pages)
        if target is not me:
            break
    text = title_case(words(rng, 2, 4))
    href = target.url
    if rng.random() < 0.5:
        _, heading = rng.choice(target.headings)
        href += "#" + slugify(heading)
    return f"[{text}]({href})"


def bullet_list(rng: random.Random) -> str:
    return "\n".join(f"- {title_case(words(rng, 3, 9))}" for _ in range(rng.randint(3, 6)))


def numbered_list(rng: random.Random) -> str:
    return "\n".join(
        f"{i}. {title_case(words(rng, 4, 10))}." for i in range(1, rng.randint(3, 6) + 1)
    )


def table(rng: random.Random) -> str:
    cols = rng.randint(3, 5)
    head = [title_case(words(rng, 1, 2)) for _ in range(cols)]
    rows = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for _ in range(rng.randint(3, 6)):
        cells = []
        for c in range(cols):
            if c == 0:
                cells.append(rng.choice(WORDS))
            elif rng.random() < 0.5:
                cells.append(f"{rng.uniform(0, 100):.2f}")
            else:
                cells.append(" ".join(words(rng, 1, 3)))
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def code_block(rng: random.Random) -> str:
    lang = rng.choice(LANGS)
    lines = []
    for _ in range(rng.randint(4, 9)):
        key = "_".join(words(rng, 1, 2))
        if lang == "json":
            lines.append(f'  "{key}": {rng.randint(0, 9999)},')
        elif lang == "python":
            lines.append(f"{key} = measure({rng.choice(WORDS)!r}, {rng.randint(1, 50)})")
        elif lang == "sh":
            lines.append(f"upload --{rng.choice(WORDS)} {key}.csv")
        elif lang == "csv":
            lines.append(f"{key},{rng.uniform(0, 10):.3f},{rng.choice(WORDS)}")
        else:
            lines.append(f'{key} = "{" ".join(words(rng, 1, 3))}"')
    if lang == "json":
        lines = ["{"] + lines + ['  "end": 0', "}"]
    return f"```{lang}\n" + "\n".join(lines) + "\n```"


def body(rng: random.Random, pages: list[Page], p: Page) -> str:
    n_links = rng.randint(3, 5)
    blocks: list[str] = [paragraph(rng)]
    # Where the special blocks go: after the heading with this index.
    h = len(p.headings)
    slots = {
        "bullets": rng.randrange(h),
        "numbered": rng.randrange(h),
        "table": rng.randrange(h),
        "code": rng.randrange(h),
    }
    # Paragraphs that carry a link.
    para_links: list[list[str]] = [[] for _ in range(h)]
    for _ in range(n_links):
        para_links[rng.randrange(h)].append(link(rng, pages, p))
    for i, (level, text) in enumerate(p.headings):
        blocks.append(f"{'#' * level} {text}")
        para = paragraph(rng, 1, 3)
        if para_links[i]:
            para += " See " + " and ".join(para_links[i]) + "."
        blocks.append(para)
        if slots["bullets"] == i:
            blocks.append(bullet_list(rng))
        if slots["numbered"] == i:
            blocks.append(numbered_list(rng))
        if slots["table"] == i:
            blocks.append(table(rng))
        if slots["code"] == i:
            blocks.append(code_block(rng))
    text = "\n\n".join(blocks) + "\n"
    # Pad with closing paragraphs to land near the target size.
    while len(text.encode()) < TARGET_BODY_BYTES - 60:
        text += "\n" + paragraph(rng, 1, 2) + "\n"
    return text


def toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def front_matter(title: str, summary: str, weight: int | None = None) -> str:
    lines = ["+++", f"title = {toml_str(title)}", f"summary = {toml_str(summary)}"]
    if weight is not None:
        lines.append(f"weight = {weight}")
    lines.append("+++")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- Hugo -------------------------------------------------------------------

HUGO_BASEOF = """<!doctype html>
<html lang="{{ site.Language.LanguageCode }}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} · {{ site.Title }}</title>
<meta name="description" content="{{ .Params.summary }}">
<link rel="canonical" href="{{ .Permalink }}">
{{- with .OutputFormats.Get "markdown" }}
<link rel="alternate" type="text/markdown" href="{{ .RelPermalink }}" title="Markdown version">
{{- end }}
{{- $css := resources.Get "site.css" | fingerprint }}
{{- $js := resources.Get "site.js" | fingerprint }}
{{- $logo := resources.Get "img/logo.svg" | fingerprint }}
<link rel="stylesheet" href="{{ $css.RelPermalink }}" integrity="{{ $css.Data.Integrity }}">
<link rel="icon" href="{{ $logo.RelPermalink }}" type="image/svg+xml">
<script src="{{ $js.RelPermalink }}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/"><img src="{{ $logo.RelPermalink }}" alt="" width="28" height="28"> {{ site.Title }}</a>
  <nav aria-label="Main">
    <ul>
    {{- $here := .RelPermalink }}
    {{- range site.Menus.main }}
      <li><a href="{{ .URL }}"{{ if and (hasPrefix $here .URL) (ne .URL "/") }} aria-current="page"{{ end }}>{{ .Name }}</a></li>
    {{- end }}
    </ul>
  </nav>
</header>
<main id="main">
{{ block "main" . }}{{ end }}
</main>
<footer class="bottom">
  <p>{{ site.Title }} · <a href="/sitemap.xml">Sitemap</a>{{ with .OutputFormats.Get "markdown" }} · <a href="{{ .RelPermalink }}">This page as Markdown</a>{{ end }}</p>
</footer>
</body>
</html>
"""

HUGO_CRUMBS = """{{- with .Ancestors.Reverse }}
<nav aria-label="Breadcrumb" class="crumbs"><ol>
{{- range . }}{{ if not .IsHome }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}{{ end }}
<li aria-current="page">{{ $.Title }}</li></ol></nav>
{{- end }}"""

HUGO_LICENCE = """<aside class="licence">
<p>{{ site.Params.attribution }}. Licence: <a rel="license" href="{{ site.Params.licenceurl }}">{{ site.Params.licence }}</a> · Updated {{ site.Params.updated }}.</p>
</aside>
{{- $ld := dict "@context" "https://schema.org" "@type" "TechArticle" "headline" .Title "description" .Params.summary "url" .Permalink "inLanguage" site.Language.LanguageCode "dateModified" site.Params.updated "license" site.Params.licenceurl "creditText" site.Params.attribution }}
<script type="application/ld+json">{{ $ld | jsonify | safeJS }}</script>"""

HUGO_SINGLE = (
    """{{ define "main" }}
"""
    + HUGO_CRUMBS
    + """
<article>
<h1>{{ .Title }}</h1>
<p class="lead">{{ .Params.summary }}</p>
{{- if gt (len .Fragments.Identifiers) 1 }}
<nav aria-label="On this page" class="toc"><h2>On this page</h2>
{{ .TableOfContents }}
</nav>
{{- end }}
{{ .Content }}
</article>
{{- if or .PrevInSection .NextInSection }}
<nav aria-label="Previous and next" class="pager">
{{- with .NextInSection }}<a rel="prev" href="{{ .RelPermalink }}">← {{ .Title }}</a>{{ end }}
{{- with .PrevInSection }}<a rel="next" href="{{ .RelPermalink }}">{{ .Title }} →</a>{{ end }}
</nav>
{{- end }}
"""
    + HUGO_LICENCE
    + """
{{ end }}
"""
)

HUGO_LIST = (
    """{{ define "main" }}
"""
    + HUGO_CRUMBS
    + """
<article>
<h1>{{ .Title }}</h1>
<p class="lead">{{ .Params.summary }}</p>
{{ .Content }}
{{- with .Pages.ByWeight }}
<section aria-labelledby="in-this-section"><h2 id="in-this-section">In this section</h2>
<ul class="cards">
{{- range . }}
<li><a href="{{ .RelPermalink }}">{{ .Title }}</a><p>{{ .Params.summary }}</p></li>
{{- end }}
</ul></section>
{{- end }}
</article>
"""
    + HUGO_LICENCE
    + """
{{ end }}
"""
)

HUGO_INDEX = """{{ define "main" }}
<section class="hero">
<h1>{{ site.Title }}</h1>
<p class="lead">{{ site.Params.description }}</p>
</section>
<section aria-labelledby="sections"><h2 id="sections">Sections</h2>
<ul class="cards">
{{- range (site.GetPage "/docs").Sections.ByWeight }}
<li><a href="{{ .RelPermalink }}">{{ .Title }}</a><p>{{ .Params.summary }}</p></li>
{{- end }}
</ul></section>
{{ end }}
"""

# The Markdown twin, as our generator publishes one next to every page.
HUGO_SINGLE_MD = """# {{ .Title }}

> {{ .Params.summary }}
>
> Source: {{ .Permalink }}
> Licence: {{ site.Params.licence }} — {{ site.Params.licenceurl }}
> Attribution: {{ site.Params.attribution }}
> Updated: {{ site.Params.updated }}

{{ .RawContent }}
"""


# Bilingual: each page names its versions and links them (as ours does).
HUGO_ALTERNATES = """{{- if .IsTranslated }}
{{- range .AllTranslations }}
<link rel="alternate" hreflang="{{ .Language.LanguageCode }}" href="{{ .Permalink }}">
{{- end }}
{{- end }}"""
HUGO_SWITCHER = """  {{- with .Translations }}
  <nav class="languages" aria-label="Language"><ul>
  {{- range . }}<li><a href="{{ .RelPermalink }}" hreflang="{{ .Language.LanguageCode }}">{{ .Language.LanguageName }}</a></li>{{ end }}
  </ul></nav>
  {{- end }}"""


def bilingual_baseof() -> str:
    out = HUGO_BASEOF.replace(
        '<link rel="canonical" href="{{ .Permalink }}">',
        '<link rel="canonical" href="{{ .Permalink }}">\n' + HUGO_ALTERNATES,
    )
    return out.replace("</header>", HUGO_SWITCHER + "\n</header>")


def hugo_config(site: dict, bilingual: bool = False) -> str:
    licences = {l["id"]: l for l in site.get("licences", [])}
    lic = licences.get(site.get("default_licence", ""), {"title": "", "url": ""})
    lines = [
        f"baseURL = {toml_str(site['base_url'].rstrip('/') + '/')}",
        f"languageCode = {toml_str(site.get('language', 'en'))}",
        f"title = {toml_str(site.get('title', 'Benchmark'))}",
        # We publish no feeds and no taxonomies; we do publish a sitemap and robots.txt.
        'disableKinds = ["taxonomy", "term", "rss"]',
        "enableRobotsTXT = true",
        "",
        "[params]",
        f"description = {toml_str(site.get('title', ''))}",
        f"licence = {toml_str(lic.get('title', ''))}",
        f"licenceurl = {toml_str(str(lic.get('url', '')))}",
        f"attribution = {toml_str(site.get('default_attribution', ''))}",
        f"updated = {toml_str(str(site.get('updated', '')))}",
        "",
        # Both tools colour fenced code at build time with CSS classes, no
        # inline style (ours: syntaxmate's TextMate grammars; Hugo: Chroma).
        "[markup.highlight]",
        "codeFences = true",
        "noClasses = false",
        "[markup.tableOfContents]",
        "startLevel = 2",
        "endLevel = 3",
        "ordered = false",
        "",
        "[outputFormats.markdown]",
        'mediaType = "text/markdown"',
        'baseName = "index"',
        "isPlainText = true",
        'rel = "alternate"',
        "",
        "[outputs]",
        'home = ["html"]',
        'section = ["html"]',
        'page = ["html", "markdown"]',
        "",
    ]
    if bilingual:
        lines += [
            f"defaultContentLanguage = {toml_str(site.get('language', 'en'))}",
            "[languages.en]",
            'languageCode = "en"',
            'languageName = "English"',
            "weight = 1",
            "[languages.nl]",
            'languageCode = "nl"',
            'languageName = "Nederlands"',
            "weight = 2",
            "",
        ]
    for i, item in enumerate(site.get("nav", [])):
        lines += [
            "[[menus.main]]",
            f"name = {toml_str(item['title'])}",
            f"url = {toml_str(item['url'])}",
            f"weight = {i + 1}",
        ]
    return "\n".join(lines) + "\n"


# --- main -------------------------------------------------------------------


def main(argv: list[str]) -> int:
    bilingual = argv[3:] == ["--bilingual"]
    if len(argv) not in (3, 4) or (len(argv) == 4 and not bilingual) \
            or not argv[2].isdigit() or int(argv[2]) < 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    out = Path(argv[1])
    n = int(argv[2])
    src = REPO / "content"
    templates = REPO / "templates"
    if not (src / "site.toml").is_file() or not (src / "service").is_dir():
        print(f"bench_corpus: {src}/site.toml and {src}/service/ are needed", file=sys.stderr)
        return 1

    for sub in ("content", "hugo"):
        if (out / sub).exists():
            shutil.rmtree(out / sub)
    content = out / "content"
    hugo = out / "hugo"

    # Service data: copied as is.
    content.mkdir(parents=True)
    shutil.copy2(src / "site.toml", content / "site.toml")
    shutil.copytree(src / "service", content / "service")
    site = tomllib.loads((src / "site.toml").read_text(encoding="utf-8"))
    # The file site.toml names as the pages' default card image.
    card = site.get("social_image", "")
    if card.startswith("/files/"):
        (content / card.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / card.lstrip("/"), content / card.lstrip("/"))

    rng = random.Random(f"{SEED}:{n}")
    pages = plan(rng, n)

    docs: dict[str, str] = {}  # path relative to docs/ → file text
    docs["_index.md"] = front_matter(
        "Documentation", "Synthetic benchmark documents in twenty sections."
    ) + "\n" + paragraph(rng) + "\n"
    for s in range(SECTIONS):
        name = section_name(s)
        docs[f"{name}/_index.md"] = (
            front_matter(
                f"Section {s + 1:02d}: {title_case(words(rng, 1, 3))}",
                title_case(words(rng, 6, 12)) + ".",
                s + 1,
            )
            + "\n"
            + paragraph(rng)
            + "\n"
        )
    for p in pages:
        docs[f"{p.section}/page-{p.number:05d}.md"] = (
            front_matter(p.title, p.summary, p.weight) + "\n" + body(rng, pages, p)
        )

    if bilingual:
        # A translation beside every file: the same body under a marked
        # title (the title line is the front matter's first).
        for rel, text in list(docs.items()):
            translated = text.replace('title = "', 'title = "NL ', 1)
            docs[rel[: -len(".md")] + ".nl.md"] = translated
    for rel, text in docs.items():
        write(content / "docs" / rel, text)
        # Hugo serves content/docs/a/b.md at /docs/a/b/, as we do.
        write(hugo / "content" / "docs" / rel, text)

    # Hugo: configuration, layouts, assets (the same sources as ours).
    write(hugo / "hugo.toml", hugo_config(site, bilingual))
    layouts = hugo / "layouts" / "_default"
    write(layouts / "baseof.html", bilingual_baseof() if bilingual else HUGO_BASEOF)
    write(layouts / "single.html", HUGO_SINGLE)
    write(layouts / "list.html", HUGO_LIST)
    write(hugo / "layouts" / "index.html", HUGO_INDEX)
    write(layouts / "single.markdown.md", HUGO_SINGLE_MD)
    if (templates / "assets").is_dir():
        shutil.copytree(templates / "assets", hugo / "assets")
    for name in ("site.css", "site.js", "img/logo.svg"):
        if not (hugo / "assets" / name).exists():
            write(hugo / "assets" / name, f"/* {name} */\n")

    total = sum(len(t.encode()) for t in docs.values())
    digest = hashlib.sha256()
    for rel in sorted(docs):
        digest.update(rel.encode() + b"\0" + docs[rel].encode() + b"\0")
    print(
        f"corpus: {n} pages + {SECTIONS + 1} indexes in {SECTIONS} sections"
        f"{', each also in Dutch' if bilingual else ''}, "
        f"{total / 1048576:.1f} MiB of Markdown (avg {total / len(docs) / 1024:.1f} KiB), "
        f"sha256 {digest.hexdigest()[:16]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
