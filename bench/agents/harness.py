"""What the tasks of `scripts/bench agents` are made of (the tasks are in
tasks_data.py and tasks_docs.py, gathered by tasks.py).

Each task has a question, one or more plans and a truth:

- a plan is the fewest tool calls that reach the answer with the tools a
  server lists. Its `steps` is a generator: it yields `(tool, arguments)`,
  receives each call's `Result`, and returns the answer it read. `needs`
  names the tools (or `tool.argument`s) the plan uses beyond the first
  tools; the runner takes the first plan whose needs the server's
  tools/list meets, so a `new` plan (for get_observation_trend and the
  arguments added with it) comes first and the `base` plan (for the tools
  as they were, measured in before.json) last;
- the truth is read from the running sidecar over HTTP, never written
  here: its REST routes (`/api/platform-stats.php`,
  `/api/observations-data.php`, `/api/globe-data.php`), its static files
  (`/api/service.json`) and, for documentation questions, a phrase of the
  page's Markdown (`/docs/.../index.md`) found by the same pattern the plan
  applies to the tool results;
- `compare(answer, truth)` says whether the answer is the truth.

Questions name sites, countries and years from the data (`Context`), as a
person who knows them would.
"""

import json
import re
import urllib.parse
import urllib.request
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

# Plan names: for the tools as they were (before.json), and for the tools
# and arguments added later.
BEFORE = "base"
AFTER = "new"


class PlanError(Exception):
    """A plan could not go on (a tool failed, or answered without what it needs)."""


class Result:
    """One tool result as the client received it (the SDK's model, dumped)."""

    def __init__(self, dumped):
        self.raw = dumped
        self.texts = [c["text"] for c in dumped.get("content") or [] if c.get("type") == "text"]
        structured = dumped.get("structuredContent")
        if structured is None and self.texts:
            try:
                structured = json.loads(self.texts[0])
            except ValueError:
                structured = None
        self.s = structured if structured is not None else {}

    def strings(self):
        """Every string the result holds (structured values and texts), normalised."""
        out = []

        def walk(v):
            if isinstance(v, str):
                out.append(v)
            elif isinstance(v, dict):
                for x in v.values():
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)

        walk(self.s)
        if not isinstance(self.s, dict) or not self.s:
            out.extend(self.texts)
        return normalise("\n".join(out))


def normalise(text):
    """Markdown and plain text alike: links to their text, no emphasis or code
    marks, whitespace collapsed."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[*`]", "", text)
    return re.sub(r"\s+", " ", text)


def call(tool, **arguments):
    return tool, {k.rstrip("_"): v for k, v in arguments.items() if v is not None}


# Names for questions only (a person says "Belgium", not "BE").
COUNTRY_NAMES = {
    "BE": "Belgium",
    "DE": "Germany",
    "DK": "Denmark",
    "ES": "Spain",
    "FR": "France",
    "GB": "the United Kingdom",
    "IE": "Ireland",
    "NL": "the Netherlands",
}


def country_name(code):
    return COUNTRY_NAMES.get(code, code)


class Context:
    """The running sidecar's REST routes and files, read once each."""

    def __init__(self, base):
        self.base = base
        self._cache = {}

    def get(self, path, as_json=True):
        key = (path, as_json)
        if key not in self._cache:
            with urllib.request.urlopen(self.base + path, timeout=30) as r:
                body = r.read().decode()
            self._cache[key] = json.loads(body) if as_json else body
        return self._cache[key]

    def stats(self):
        return self.get("/api/platform-stats.php")

    def service(self):
        return self.get("/api/service.json")

    def globe(self):
        return self.get("/api/globe-data.php")["features"]

    def page(self, path):
        return normalise(self.get(path.rstrip("/") + "/index.md", as_json=False))

    def observations(self, **filters):
        """Every observation the REST route gives for the filters (all pages)."""
        rows, cursor = [], None
        while True:
            q = dict(filters, limit=1000)
            if cursor:
                q["cursor"] = cursor
            page = self.get("/api/observations-data.php?" + urllib.parse.urlencode(q))
            rows += page["data"]
            cursor = page.get("next_cursor")
            if not cursor:
                return rows

    # --- what questions name ----------------------------------------------------
    def latest_year(self):
        return int(self.stats()["latest_observation_at"][:4])

    def full_year(self):
        """The last calendar year with data all year round."""
        return self.latest_year() - 1

    def sites_by_observations(self):
        return sorted(self.globe(), key=lambda f: (-f["properties"]["observations"], f["properties"]["site_id"]))

    def busiest_site(self):
        return self.sites_by_observations()[0]["properties"]

    def second_site(self):
        return self.sites_by_observations()[1]["properties"]

    def countries(self):
        return sorted({f["properties"]["country"] for f in self.globe()})

    def country_with_fewest_sites(self):
        counts = defaultdict(int)
        for f in self.globe():
            counts[f["properties"]["country"]] += 1
        return min(sorted(counts), key=lambda c: counts[c])

    def country_with_most_sites(self):
        counts = defaultdict(int)
        for f in self.globe():
            counts[f["properties"]["country"]] += 1
        return max(sorted(counts), key=lambda c: counts[c])

    def box_around_busiest(self):
        """A box of 2 by 2 degrees around the busiest site."""
        lon, lat = self.sites_by_observations()[0]["geometry"]["coordinates"]
        return [round(lon - 1, 2), round(lat - 1, 2), round(lon + 1, 2), round(lat + 1, 2)]


@dataclass
class Plan:
    name: str
    steps: Callable
    needs: tuple = ()


@dataclass
class Task:
    id: str
    question: Callable
    plans: list
    truth: Callable
    compare: Callable = field(default=lambda answer, truth: (answer == truth, None))


# --- comparing ---------------------------------------------------------------


def same(answer, truth):
    return answer == truth, None if answer == truth else f"answer {answer!r}, truth {truth!r}"


def close(a, b, tol=0.011):
    return a is not None and b is not None and abs(a - b) <= tol + 1e-3 * abs(b)


def same_series(answer, truth):
    """Per-bucket figures (mean, and count/min/max where the answer has them)."""
    if not isinstance(answer, dict) or not answer.get("buckets"):
        return False, f"no buckets in the answer: {answer!r}"[:300]
    got, want = answer["buckets"], truth["buckets"]
    if sorted(got) != sorted(want):
        return False, f"buckets {sorted(got)} against {sorted(want)}"
    for key, t in want.items():
        g = got[key]
        for k in ("mean", "count", "min", "max"):
            if k in g and g[k] is not None and not close(g[k], t[k]):
                return False, f"{key} {k}: {g[k]} against {t[k]}"
    if answer.get("direction") != truth["direction"]:
        return False, f"direction {answer.get('direction')} against {truth['direction']}"
    return True, None


def same_box(answer, truth):
    ok = (
        isinstance(answer, (list, tuple))
        and len(answer) == 4
        and all(close(a, t, 0.006) for a, t in zip(answer, truth, strict=False))
    )
    return ok, None if ok else f"extent {answer} against {truth}"


# --- figures the truth and the plans compute alike ---------------------------


def series(rows, interval):
    """count/min/mean/max per bucket (month YYYY-MM or year YYYY) of rows, and
    the direction from the first bucket's mean to the last's."""
    width = {"month": 7, "year": 4}[interval]
    groups = defaultdict(list)
    for r in rows:
        groups[r["observed_at"][:width]].append(r["value"])
    buckets = {
        k: {"count": len(v), "min": min(v), "mean": round(sum(v) / len(v), 3), "max": max(v)}
        for k, v in sorted(groups.items())
    }
    return {"buckets": buckets, "direction": direction(buckets)}


def direction(buckets):
    keys = sorted(buckets)
    if len(keys) < 2:
        return "flat"
    first, last = buckets[keys[0]]["mean"], buckets[keys[-1]]["mean"]
    if abs(last - first) <= 0.05 * max(abs(first), 1e-9):
        return "flat"
    return "up" if last > first else "down"


def trend_answer(result, interval):
    """Reads get_observation_trend's buckets into the series shape."""
    s = result.s
    raw = s.get("buckets") or s.get("data") or s.get("series") or []
    width = {"month": 7, "year": 4}[interval]
    buckets = {}
    for b in raw:
        key = str(b.get("bucket") or b.get("start") or b.get("period") or b.get("from"))[:width]
        if not b.get("count"):
            continue
        buckets[key] = {k: b.get(k) for k in ("count", "min", "mean", "max")}
    return {"buckets": buckets, "direction": direction(buckets)}


def bbox_of(points):
    lons = [p[0] for p in points]
    lats = [p[1] for p in points]
    return [min(lons), min(lats), max(lons), max(lats)]


def year_range(year):
    return f"{year}-01-01", f"{year}-12-31"


# --- plans that recur --------------------------------------------------------


def one_call(tool, args, read):
    def steps(ctx):
        r = yield call(tool, **(args(ctx) if callable(args) else args))
        return read(r, ctx)

    return steps


def stats_plan(read):
    return [Plan(BEFORE, one_call("get_platform_statistics", {}, lambda r, ctx: read(r.s)))]


def service_plan(section, read):
    return [Plan(BEFORE, one_call("get_service_information", {"section": section}, lambda r, ctx: read(r.s, ctx)))]


def pages_of_observations(ctx, **filters):
    """Every page of get_observations for the filters, largest pages (before)."""
    rows, cursor = [], None
    while True:
        r = yield call("get_observations", limit=1000, cursor=cursor, **filters)
        rows += r.s.get("data", [])
        cursor = r.s.get("next_cursor")
        if not cursor:
            return rows


def phrase(pattern):
    """The first group of `pattern` in a text, trimmed, or None."""
    rx = re.compile(pattern, re.I | re.S)

    def find(text):
        m = rx.search(text)
        return m.group(1).strip(" .") if m else None

    return find


def doc_task(id, question, path, pattern, query=None, limit=None, read=False):
    """A documentation question: the answer is the phrase `pattern` finds in
    what search_documentation (with `query`) or get_document (of `path`)
    returned; with `read`, the search's first result is then read whole
    (the page is found, not known). The truth is the same phrase in the
    page's Markdown over HTTP."""
    find = phrase(pattern)
    if query and read:

        def steps(ctx):
            r = yield call("search_documentation", query=query, limit=1)
            hits = r.s.get("results") or []
            if not hits:
                raise PlanError(f"no result for {query!r}")
            r = yield call("get_document", path=hits[0]["uri"])
            return find(r.strings())

    elif query:
        args = {"query": query} | ({"limit": limit} if limit else {})
        steps = one_call("search_documentation", args, lambda r, ctx: find(r.strings()))
    else:
        steps = one_call("get_document", {"path": path}, lambda r, ctx: find(r.strings()))

    def truth(ctx):
        t = find(ctx.page(path))
        if t is None:
            raise PlanError(f"the pattern finds nothing in {path}index.md")
        return t

    return Task(id, lambda ctx: question, [Plan(BEFORE, steps)], truth, same)
