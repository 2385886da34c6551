"""Where a build's time goes: `generate build` under `perf record`, its
samples (self time) summed by the part of the build their function
belongs to.

    python3 bench/build_profile.py GENERATE CONTENT OUT

GENERATE is a release `generate` binary (symbols kept, as the release
profile keeps them), CONTENT a content folder (such as the one
scripts/bench_corpus.py writes), OUT a folder to build into (replaced).
Run from the repository's root (the build reads templates/ from there).
Needs `perf` (Debian's linux-perf). Prints a Markdown table: part, share
of the samples; then the largest functions that fit no part.
"""

import re
import shutil
import subprocess
import sys
import tempfile

# A function belongs to the first part one of whose names it contains.
PARTS = [
    ("highlighting code", ["syntaxmate", "highlight"]),
    ("parsing Markdown and front matter", ["pulldown_cmark", "generator::markdown", "shortcodes", "toml", "generator::content"]),
    ("rendering templates", ["minijinja", "generator::render", "html_formatter"]),
    ("search index", ["generator::search"]),
    ("hashing (SHA-256)", ["sha2"]),
    ("JSON", ["serde_json"]),
    ("images", ["image::", "png::", "jpeg", "webp", "fdeflate", "zune"]),
    ("allocating and freeing", ["mi_", "malloc", "free"]),
    ("copying and comparing bytes (libc)", ["memmove", "memcpy", "memcmp", "memset", "strlen", "memchr"]),
]
KERNEL = "kernel: writing files, page faults"


def main():
    generate, content, out = sys.argv[1:4]
    shutil.rmtree(out, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = f"{tmp}/perf.data"
        subprocess.run(
            ["perf", "record", "-q", "-F", "1999", "-o", data, "--", generate, "build",
             "--content", content, "--out", out, "--quiet"],
            check=True, stdout=subprocess.DEVNULL)
        report = subprocess.run(
            ["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym", "--stdio"],
            check=True, capture_output=True, text=True).stdout
    totals, other = {}, {}
    for line in report.splitlines():
        m = re.match(r"\s+([0-9.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)", line)
        if not m:
            continue
        share, kind, name = float(m.group(1)), m.group(3), m.group(4).strip()
        part = KERNEL if kind == "k" else next(
            (p for p, keys in PARTS if any(k in name for k in keys)), None)
        if part is None:
            part = "other: closures inlined across parts, the long tail"
            other[name] = other.get(name, 0) + share
        totals[part] = totals.get(part, 0) + share
    print("| part of the build | share of the samples |")
    print("|---|---|")
    for part, share in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"| {part} | {share:.1f} % |")
    print()
    print("largest functions in no part:")
    for name, share in sorted(other.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {share:5.2f} %  {name[:100]}")


if __name__ == "__main__":
    main()
