#!/usr/bin/env python3
"""Does a sentence model choose the answering sentence within the right
page more often than the chat's lexical choice?

An experiment, not a test, beside chat_model_fusion.py (which asks the same
of the page): scripts/bench-chat-model runs both. Most of the chat's
sentence misses on its tuning half cite the right page and quote another of
its sentences, so this experiment leaves the page to the chat and changes
only the sentence. For every answerable question whose first cited page is
the expected one, the page's sentences (cut as the sidecar cuts them: at
`.`, `?` or `!` before a space, at a line's end, long ones in pieces) are
embedded with all-MiniLM-L6-v2, and the first quote is chosen

- lexical: as the chat chose it (the quote in the dump);
- model: the sentence closest to the question, with the next one when it
  is short (as the chat quotes);
- gated: the chat's quote, unless the model's closest sentence is closer
  than the chat's by at least d (d chosen on the tuning half only);
- blend: cosine plus w times the share of the question's words the
  sentence holds (w chosen on the tuning half only).

A quote answers when it holds the expected excerpt (ignoring case,
whitespace, `*` and backticks), as the quality test counts it. Questions
whose first page is not the expected one count as misses for every
variant, so the figures compare with the test's "answering sentence
quoted first".

Usage:
    chat_model_sentences.py DUMP DIST
"""

import os
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chat_model_fusion import (  # noqa: E402
    MiniLM,
    ModelFiles,
    find_model,
    page_of,
    read_dump,
    read_passages,
)

SETS = ("tuning", "held-out", "new-40")
# As the sidecar cuts and joins sentences (search/read.rs, sentences.rs).
LONG, PIECE, QUOTE_MAX, SHORT = 320, 240, 420, 60


def norm(s: str) -> str:
    return " ".join(s.lower().replace("*", "").replace("`", "").split())


def split_sentences(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    b = text.encode("utf-8")
    for i, c in enumerate(b):
        if c == 0x0A:
            if i > start:
                out.append((start, i))
            start = i + 1
        elif c in b".?!" and i + 1 < len(b) and b[i + 1] in b" \n" and i >= start:
            out.append((start, i + 1))
            start = i + 2
    if start < len(b):
        out.append((start, len(b)))
    return out


def pieces(text: str) -> list[str]:
    """The sentences of `text`, long ones cut at word boundaries."""
    b = text.encode("utf-8")
    out = []
    for a, e in split_sentences(text):
        if e - a <= LONG:
            out.append(b[a:e].decode("utf-8", "replace").strip())
            continue
        start = a
        while start < e:
            end = min(start + PIECE, e)
            if end < e:
                cut = b[start:end].rfind(b" ")
                if cut > 0:
                    end = start + cut
            out.append(b[start:end].decode("utf-8", "ignore").strip())
            start = end
            while start < e and b[start] == 0x20:
                start += 1
    return [p for p in out if p]


STOP = set(
    "a an the of to in on for and or is are was were be been do does did i you we it "
    "what when where who why how which can could should would my your our their there "
    "this that these those with from by at as about any all if not no".split()
)


def words(s: str) -> list[str]:
    return [w[:5] for w in re.findall(r"[a-z0-9]+", s.lower()) if w not in STOP and len(w) > 1]


def lexical_share(question: str, sentence: str) -> float:
    q = set(words(question))
    if not q:
        return 0.0
    s = set(words(sentence))
    return len(q & s) / len(q)


def quote_of(sentences: list[str], i: int) -> str:
    """Sentence i, with the next one when it is short, as the chat quotes."""
    s = sentences[i]
    if i + 1 < len(sentences) and len(s.encode()) < SHORT and len((s + " " + sentences[i + 1]).encode()) <= QUOTE_MAX:
        return s + " " + sentences[i + 1]
    return s


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    rows = read_dump(Path(sys.argv[1]))
    passages = read_passages(Path(sys.argv[2]))
    by_page: dict[str, list[str]] = {}
    # What the model reads of each sentence: with its heading before it
    # (CHAT_MODEL_CONTEXT=1) or alone.
    context: dict[str, list[str]] = {}
    with_heading = os.environ.get("CHAT_MODEL_CONTEXT") == "1"
    for p in passages:
        cut = pieces(p.get("text", ""))
        by_page.setdefault(page_of(p["url"]), []).extend(cut)
        head = (p.get("heading") or p.get("title") or "").strip().rstrip(".")
        context.setdefault(page_of(p["url"]), []).extend(
            f"{head}. {s}" if with_heading and head else s for s in cut
        )
    model = MiniLM(ModelFiles(find_model()))

    answerable = [r for r in rows if r.get("page")]
    pages = sorted({r["page"] for r in answerable})
    t0 = time.perf_counter()
    texts = [s for page in pages for s in context.get(page, [])]
    emb, _ = model.encode(texts)
    embed_s = time.perf_counter() - t0
    at, sentence_emb = 0, {}
    for page in pages:
        n = len(by_page.get(page, []))
        sentence_emb[page] = emb[at : at + n]
        at += n
    t0 = time.perf_counter()
    q_emb, _ = model.encode([r["question"] for r in answerable])
    per_question_ms = (time.perf_counter() - t0) * 1000 / max(1, len(answerable))
    quote_emb, _ = model.encode([r.get("quote") or "" for r in answerable])

    # Per question: None when the page is not first (a miss for all),
    # else the candidates with cosine, lexical share, and which hold the
    # answer, and whether the chat's quote holds it.
    cases = []
    for r, qe, ce in zip(answerable, q_emb, quote_emb):
        first = page_of(r["cited"][0]) if r["kind"] in ("answer", "figures") and r.get("cited") else None
        if first != r["page"] or not by_page.get(first):
            cases.append((r["set"], None))
            continue
        sents = by_page[first]
        cos = sentence_emb[first] @ qe
        quotes = [quote_of(sents, i) for i in range(len(sents))]
        holds = [norm(r["answer"]) in norm(q) for q in quotes]
        lex = [lexical_share(r["question"], s) for s in sents]
        chat_quote = r.get("quote") or ""
        chat_holds = norm(r["answer"]) in norm(chat_quote)
        chat_cos = float(ce @ qe)
        cases.append((r["set"], dict(cos=cos, holds=holds, lex=np.array(lex), chat=chat_holds, chat_cos=chat_cos)))

    def model_pick(c, w=0.0):
        return c["holds"][int(np.argmax(c["cos"] + w * c["lex"]))]

    def gated_pick(c, d):
        i = int(np.argmax(c["cos"]))
        if c["chat_cos"] is None or c["cos"][i] - c["chat_cos"] >= d:
            return c["holds"][i]
        return c["chat"]

    variants = {
        "lexical (the chat)": lambda c: c["chat"],
        "model alone": lambda c: model_pick(c),
    }

    def count(fn, set_name):
        n = sum(1 for s, _ in cases if s == set_name)
        right = sum(1 for s, c in cases if s == set_name and c is not None and fn(c))
        return right, n

    # Parameters chosen on the tuning half only.
    best_d = max((count(lambda c, d=d: gated_pick(c, d), "tuning")[0], -d, d) for d in np.arange(0.0, 0.31, 0.02))[2]
    best_w = max((count(lambda c, w=w: model_pick(c, w), "tuning")[0], -w, w) for w in np.arange(0.0, 1.01, 0.1))[2]
    variants[f"gated, d = {best_d:.2f}"] = lambda c: gated_pick(c, best_d)
    variants[f"blend, w = {best_w:.1f}"] = lambda c: model_pick(c, best_w)

    print("| sentence chosen by | " + " | ".join(SETS) + " |")
    print("|---|" + "---|" * len(SETS))
    for name, fn in variants.items():
        cells = []
        for s in SETS:
            right, n = count(fn, s)
            cells.append(f"{right}/{n} ({100 * right / max(1, n):.1f} %)")
        print(f"| {name} | " + " | ".join(cells) + " |")
    page_first = {s: sum(1 for t, c in cases if t == s and c is not None) for s in SETS}
    print("\nexpected page first (the ceiling of every row): " + ", ".join(f"{s} {page_first[s]}" for s in SETS))
    print(f"embedding {len(texts)} sentences of {len(pages)} pages: {embed_s:.1f} s; a question: {per_question_ms:.1f} ms")


if __name__ == "__main__":
    main()
