"""The data tasks of `scripts/bench agents`: platform figures, readings at a
site, trends and where the sites are (see harness.py for the parts)."""

from harness import (  # noqa: F401
    AFTER,
    BEFORE,
    Plan,
    PlanError,
    Task,
    bbox_of,
    call,
    country_name,
    doc_task,
    one_call,
    pages_of_observations,
    same,
    same_box,
    same_series,
    series,
    service_plan,
    stats_plan,
    trend_answer,
    year_range,
)

TASKS = []


def task(t):
    TASKS.append(t)
    return t


# Figures of the platform.
for key, question in [
    ("volunteers", "How many volunteers does the platform have?"),
    ("sites", "How many monitoring sites are there?"),
    ("observations", "How many water-quality observations have volunteers made in all?"),
    ("countries", "In how many countries are there sites?"),
    ("classifications", "How many classifications have Riverlens volunteers made?"),
]:
    task(
        Task(
            f"stats-{key}",
            lambda ctx, q=question: q,
            stats_plan(lambda s, k=key: s.get(k)),
            lambda ctx, k=key: ctx.stats()[k],
            same,
        )
    )

task(
    Task(
        "stats-latest-observation",
        lambda ctx: "When was the latest water-quality observation made?",
        stats_plan(lambda s: (s.get("latest_observation_at") or "")[:10]),
        lambda ctx: ctx.stats()["latest_observation_at"][:10],
        same,
    )
)


def busiest_month(s):
    months = s.get("monthly") or []
    best = max(months, key=lambda m: (m["observations"], m["month"]))
    return best["month"]


task(
    Task(
        "stats-busiest-month",
        lambda ctx: "In which month did volunteers record the most observations?",
        stats_plan(busiest_month),
        lambda ctx: busiest_month(ctx.stats()),
        same,
    )
)

# Observations at a site.


def latest_nitrate_steps(ctx):
    site = ctx.busiest_site()["site_id"]
    r = yield call("get_observations", site=site, parameter="nitrate", limit=1)
    row = r.s["data"][0]
    return {"observed_at": row["observed_at"], "value": row["value"]}


def latest_nitrate_after(ctx):
    site = ctx.busiest_site()["site_id"]
    r = yield call("get_observations", site=site, parameter="nitrate", limit=1, fields=["observed_at", "value"])
    row = r.s["data"][0]
    return {"observed_at": row["observed_at"], "value": row["value"]}


def latest_nitrate_truth(ctx):
    site = ctx.busiest_site()["site_id"]
    row = ctx.get(f"/api/observations-data.php?site={site}&parameter=nitrate&limit=1")["data"][0]
    return {"observed_at": row["observed_at"], "value": row["value"]}


task(
    Task(
        "site-latest-nitrate",
        lambda ctx: (
            f"What was the latest nitrate reading at {ctx.busiest_site()['name']} (site {ctx.busiest_site()['site_id']}), and when?"
        ),
        [
            Plan(AFTER, latest_nitrate_after, ("get_observations.fields",)),
            Plan(BEFORE, latest_nitrate_steps),
        ],
        latest_nitrate_truth,
        same,
    )
)


def last_visit(rows):
    """The readings of a site's latest visit: parameter -> value."""
    if not rows:
        return {}
    at = max(r["observed_at"][:10] for r in rows)
    return {r["parameter"]: r["value"] for r in rows if r["observed_at"][:10] == at} | {"date": at}


def latest_visit_steps(fields):
    def steps(ctx):
        site = ctx.second_site()
        since = site["latest_observed_at"][:10]
        r = yield call("get_observations", site=site["site_id"], from_=since, limit=50, fields=fields)
        return last_visit(r.s["data"])

    return steps


task(
    Task(
        "site-latest-readings",
        lambda ctx: (
            f"What did volunteers measure at {ctx.second_site()['name']} ({ctx.second_site()['site_id']}) on their last visit?"
        ),
        [
            Plan(AFTER, latest_visit_steps(["observed_at", "parameter", "value"]), ("get_observations.fields",)),
            Plan(BEFORE, latest_visit_steps(None)),
        ],
        lambda ctx: last_visit(
            ctx.observations(
                site=ctx.second_site()["site_id"], **{"from": ctx.second_site()["latest_observed_at"][:10]}
            )
        ),
        same,
    )
)

# Trends.


def trend_task(id, question, filters, interval, raw_filter=None, extra_needs=()):
    """A trend: count/min/mean/max per bucket and the direction. Before:
    every raw observation, paged; after: get_observation_trend."""

    def before(ctx):
        f = filters(ctx)
        native = {k: v for k, v in f.items() if k in ("site", "parameter", "from_", "to", "bbox")}
        rows = yield from pages_of_observations(ctx, **native)
        if raw_filter:
            rows = [r for r in rows if raw_filter(ctx, r)]
        return series(rows, interval)

    def after(ctx):
        r = yield call("get_observation_trend", interval=interval, **filters(ctx))
        return trend_answer(r, interval)

    def truth(ctx):
        f = {k.rstrip("_"): v for k, v in filters(ctx).items() if k in ("site", "parameter", "from_", "to")}
        rows = ctx.observations(**f)
        if raw_filter:
            rows = [r for r in rows if raw_filter(ctx, r)]
        return series(rows, interval)

    return task(
        Task(
            id,
            question,
            [Plan(AFTER, after, ("get_observation_trend",) + extra_needs), Plan(BEFORE, before)],
            truth,
            same_series,
        )
    )


def busy_site_latest_year(ctx):
    frm, to = year_range(ctx.latest_year())
    return {"parameter": "nitrate", "site": ctx.busiest_site()["site_id"], "from_": frm, "to": to}


trend_task(
    "trend-site-nitrate-year",
    lambda ctx: (
        f"How has nitrate changed at {ctx.busiest_site()['name']} ({ctx.busiest_site()['site_id']}) in {ctx.latest_year()}, month by month?"
    ),
    busy_site_latest_year,
    "month",
)


def all_sites_full_year(parameter):
    def f(ctx):
        frm, to = year_range(ctx.full_year())
        return {"parameter": parameter, "from_": frm, "to": to}

    return f


trend_task(
    "trend-nitrate-all-sites",
    lambda ctx: f"How did nitrate change over {ctx.full_year()} across all sites, month by month?",
    all_sites_full_year("nitrate"),
    "month",
)


def country_filter(country):
    return lambda ctx, r: r["country"] == country(ctx)


def ph_in_country(ctx):
    frm, to = year_range(ctx.full_year())
    return {"parameter": "ph", "country": ctx.country_with_most_sites(), "from_": frm, "to": to}


trend_task(
    "trend-ph-country-year",
    lambda ctx: (
        f"What was the average pH in {country_name(ctx.country_with_most_sites())} in {ctx.full_year()}, and its lowest and highest?"
    ),
    ph_in_country,
    "year",
    raw_filter=country_filter(lambda ctx: ctx.country_with_most_sites()),
)


def phosphate_years(ctx):
    return {"parameter": "phosphate", "site": ctx.second_site()["site_id"]}


trend_task(
    "trend-phosphate-site-years",
    lambda ctx: (
        f"How has phosphate at {ctx.second_site()['name']} ({ctx.second_site()['site_id']}) changed from year to year?"
    ),
    phosphate_years,
    "year",
)


def turbidity_months(ctx):
    frm, to = year_range(ctx.full_year())
    return {"parameter": "turbidity", "site": ctx.second_site()["site_id"], "from_": frm, "to": to}


trend_task(
    "trend-turbidity-site-max",
    lambda ctx: (
        f"In which month of {ctx.full_year()} was turbidity highest at {ctx.second_site()['name']} ({ctx.second_site()['site_id']})?"
    ),
    turbidity_months,
    "month",
)

# Where the sites are.


def globe_summary_steps(read):
    def steps(ctx):
        r = yield call("get_globe_points")
        return read(r.s)

    return steps


def all_points(s):
    return [f["geometry"]["coordinates"] for f in s.get("features", [])]


def summary_countries(s):
    """Country codes from a compact summary, whatever its exact shape."""
    c = s.get("countries")
    if isinstance(c, dict):
        return sorted(c)
    if isinstance(c, list):
        return sorted(x if isinstance(x, str) else (x.get("country") or x.get("code")) for x in c)
    return sorted({f["properties"]["country"] for f in s.get("features", [])})


def summary_country_count(s, country):
    c = s.get("countries")
    if isinstance(c, dict):
        v = c.get(country)
        return v if isinstance(v, int) else (v or {}).get("sites")
    if isinstance(c, list):
        for x in c:
            if isinstance(x, dict) and (x.get("country") or x.get("code")) == country:
                return x.get("sites") or x.get("count")
    return None


task(
    Task(
        "where-countries",
        lambda ctx: "In which countries are the monitoring sites?",
        [
            Plan(AFTER, globe_summary_steps(summary_countries), ("get_globe_points.country",)),
            Plan(BEFORE, globe_summary_steps(lambda s: sorted({f["properties"]["country"] for f in s["features"]}))),
        ],
        lambda ctx: ctx.countries(),
        same,
    )
)


def summary_bbox(s):
    b = s.get("bbox") or s.get("extent")
    return [round(x, 2) for x in b] if isinstance(b, list) else None


task(
    Task(
        "where-extent",
        lambda ctx: "What area do the monitoring sites cover (their bounding box)?",
        [
            Plan(AFTER, globe_summary_steps(summary_bbox), ("get_globe_points.bbox",)),
            Plan(BEFORE, globe_summary_steps(lambda s: bbox_of(all_points(s)))),
        ],
        lambda ctx: bbox_of([f["geometry"]["coordinates"] for f in ctx.globe()]),
        same_box,
    )
)


def sites_in_country_after(ctx):
    country = ctx.country_with_fewest_sites()
    r = yield call("get_globe_points")
    return summary_country_count(r.s, country)


def sites_in_country_before(ctx):
    country = ctx.country_with_fewest_sites()
    r = yield call("get_globe_points")
    return sum(1 for f in r.s["features"] if f["properties"]["country"] == country)


task(
    Task(
        "where-sites-in-country",
        lambda ctx: f"How many monitoring sites are there in {country_name(ctx.country_with_fewest_sites())}?",
        [
            Plan(AFTER, sites_in_country_after, ("get_globe_points.country",)),
            Plan(BEFORE, sites_in_country_before),
        ],
        lambda ctx: sum(1 for f in ctx.globe() if f["properties"]["country"] == ctx.country_with_fewest_sites()),
        same,
    )
)


def country_extent_after(ctx):
    # A page's extent covers every matched site, so one point is enough.
    r = yield call("get_globe_points", country=ctx.country_with_most_sites(), limit=1)
    return r.s["extent"]


def country_extent_before(ctx):
    country = ctx.country_with_most_sites()
    r = yield call("get_globe_points")
    return bbox_of([f["geometry"]["coordinates"] for f in r.s["features"] if f["properties"]["country"] == country])


task(
    Task(
        "where-country-extent",
        lambda ctx: f"What area do the sites in {country_name(ctx.country_with_most_sites())} cover?",
        [Plan(AFTER, country_extent_after, ("get_globe_points.country",)), Plan(BEFORE, country_extent_before)],
        lambda ctx: bbox_of(
            [
                f["geometry"]["coordinates"]
                for f in ctx.globe()
                if f["properties"]["country"] == ctx.country_with_most_sites()
            ]
        ),
        same_box,
    )
)


# Northern Europe in the United Nations' M49 sub-regions: geography the
# person asking knows, not data of the service.
NORTHERN_EUROPE = {"DK", "EE", "FI", "FO", "GB", "IE", "IM", "IS", "LT", "LV", "NO", "SE", "AX", "GG", "JE", "SJ"}


def region_count_after(ctx):
    r = yield call("get_globe_points", region="northern_europe", limit=1)
    n = r.s.get("total") or r.s.get("matched") or r.s.get("sites")
    if not isinstance(n, int):
        regions = r.s.get("regions")
        n = regions.get("northern_europe") if isinstance(regions, dict) else None
        n = n if isinstance(n, int) else (n or {}).get("sites")
    return n


def region_count_before(ctx):
    r = yield call("get_globe_points")
    return sum(1 for f in r.s["features"] if f["properties"]["country"] in NORTHERN_EUROPE)


task(
    Task(
        "where-sites-in-region",
        lambda ctx: "How many monitoring sites are there in northern Europe?",
        [Plan(AFTER, region_count_after, ("get_globe_points.region",)), Plan(BEFORE, region_count_before)],
        lambda ctx: sum(1 for f in ctx.globe() if f["properties"]["country"] in NORTHERN_EUROPE),
        same,
    )
)


def in_box(box, lon, lat):
    return box[0] <= lon <= box[2] and box[1] <= lat <= box[3]


def sites_near_before(ctx):
    box = ctx.box_around_busiest()
    r = yield call("get_globe_points")
    return sorted(f["properties"]["site_id"] for f in r.s["features"] if in_box(box, *f["geometry"]["coordinates"]))


def sites_near_after(ctx):
    box = ",".join(str(x) for x in ctx.box_around_busiest())
    ids, cursor = [], None
    while True:
        r = yield call("get_globe_points", bbox=box, fields=["name"], limit=50, cursor=cursor)
        ids += [f["properties"]["site_id"] for f in r.s.get("features", [])]
        cursor = r.s.get("next_cursor")
        if not cursor:
            return sorted(ids)


task(
    Task(
        "where-sites-near",
        lambda ctx: (
            f"Which monitoring sites lie within a degree of {ctx.busiest_site()['name']} (box {ctx.box_around_busiest()})?"
        ),
        [Plan(AFTER, sites_near_after, ("get_globe_points.bbox", "get_globe_points.fields")), Plan(BEFORE, sites_near_before)],
        lambda ctx: sorted(
            f["properties"]["site_id"]
            for f in ctx.globe()
            if in_box(ctx.box_around_busiest(), *f["geometry"]["coordinates"])
        ),
        same,
    )
)
