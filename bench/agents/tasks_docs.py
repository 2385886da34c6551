"""The documentation and organisation tasks of `scripts/bench agents`: citing
the data, the archive, the platform's reports, contact and enquiries (see
harness.py for the parts)."""

import urllib.parse

from harness import (  # noqa: F401
    AFTER,
    BEFORE,
    Plan,
    PlanError,
    Task,
    bbox_of,
    call,
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


# Citing the data.


def licence_id(r, ctx):
    return (r.s.get("licence") or {}).get("id")


task(
    Task(
        "cite-data-licence",
        lambda ctx: "Under which licence may I reuse the observation data?",
        [
            Plan(
                AFTER,
                one_call("get_observations", {"limit": 1, "fields": ["id"]}, licence_id),
                ("get_observations.fields",),
            ),
            Plan(BEFORE, one_call("get_observations", {"limit": 1}, licence_id)),
        ],
        lambda ctx: ctx.get("/api/observations-data.php?limit=1")["licence"]["id"],
        same,
    )
)

task(
    Task(
        "cite-data-attribution",
        lambda ctx: "What attribution must I give when I publish a chart of the observations?",
        [
            Plan(
                AFTER,
                one_call("get_observations", {"limit": 1, "fields": ["id"]}, lambda r, ctx: r.s.get("attribution")),
                ("get_observations.fields",),
            ),
            Plan(BEFORE, one_call("get_observations", {"limit": 1}, lambda r, ctx: r.s.get("attribution"))),
        ],
        lambda ctx: ctx.get("/api/observations-data.php?limit=1")["attribution"],
        same,
    )
)


def evidence_doi(s, ctx):
    items = s.get("evidence") if isinstance(s.get("evidence"), list) else s
    items = items if isinstance(items, list) else []
    first = ctx.service()["evidence"][0]
    return next((e.get("doi") for e in items if e.get("id") == first["id"]), None)


task(
    Task(
        "cite-publication-doi",
        lambda ctx: f'What is the DOI of the publication "{ctx.service()["evidence"][0]["title"]}"?',
        service_plan("evidence", evidence_doi),
        lambda ctx: ctx.service()["evidence"][0]["doi"],
        same,
    )
)

task(
    doc_task(
        "cite-snapshots",
        "How should I cite the exact data a study used, given that the API always serves the current data?",
        "/docs/data/",
        r"To cite the data a study used, use one of the (citable snapshots)",
        query="cite the data a study used",
        read=True,
    )
)
task(
    doc_task(
        "cite-archive-licence",
        "Under which licence is the Water Watch archive published?",
        "/docs/archive/",
        r"Licen[cs]e: ([^>\n]*?\(CC-BY-NC-ND-4\.0\))",
        query=None,
    )
)

# The measurement-app archive.
task(
    doc_task(
        "archive-nitrate-wait",
        "In the Water Watch nitrate protocol, how long did volunteers wait before reading the strip?",
        "/docs/archive/protocols/nitrate/",
        r"Wait (\d+ seconds)",
        query="nitrate strip wait seconds",
        limit=1,
    )
)
task(
    doc_task(
        "archive-nitrate-cold",
        "How long was the nitrate strip left for cold samples?",
        "/docs/archive/protocols/nitrate/",
        r"\((\d+ seconds) for cold samples\)",
        query="nitrate strip wait cold samples",
        limit=1,
    )
)
task(
    doc_task(
        "archive-nitrate-n",
        "The archive reports nitrate as NO3; how do I convert it to nitrate-nitrogen?",
        "/docs/archive/protocols/nitrate/",
        r"To convert to mg/L NO3-N, (divide by [\d.]+)",
        query="convert nitrate NO3-N",
        limit=1,
    )
)
task(
    doc_task(
        "archive-quality-flags",
        "What share of the final Water Watch release was flagged valid?",
        "/docs/archive/reference-data/",
        r"valid \|? ?Passed every check.*?(\d+ %)",
        query="valid flag share of the final release",
        limit=1,
    )
)
task(
    doc_task(
        "archive-project-ended",
        "When did the Water Watch measurement project end?",
        "/docs/archive/",
        r"Water Watch ended on (\d+ \w+ \d{4})",
        query="Water Watch project ended",
        limit=3,
    )
)

# The classification platform, the case study, reports.
task(
    doc_task(
        "platform-case-study-alerts",
        "In the reservoir case study, how many bloom alerts did the laboratory confirm?",
        "/docs/platform/case-study/",
        r"Of the (\d+ alerts, \d+ were confirmed)",
        query="case study reservoir bloom alerts",
        read=True,
    )
)
task(
    doc_task(
        "report-otters",
        "What share of the otter visits did volunteers find on the camera traps?",
        "/docs/platform/reports/camera-trap-otters/",
        r"found by volunteer consensus \| (\d+ \(\d+ %\))",
        query=None,
    )
)
task(
    doc_task(
        "report-bloom-2026-camera",
        "In the 2026 bloom season report, how many alerts did the fifth camera raise?",
        "/docs/platform/reports/bloom-season-2026/",
        r"The fifth camera raised (\w+ of the \w+ Oostplas alerts)",
        query="2026 bloom season fifth camera",
        read=True,
    )
)
task(
    doc_task(
        "developers-mcp-endpoint",
        "Which URL do I give my MCP client to connect to the observatory?",
        "/docs/developers/mcp/",
        r"URL \|? ?(https?://\S+?/mcp/)",
        query="MCP endpoint URL",
        limit=1,
    )
)

# The organisation: contact, consortium, projects, guardrails, enquiry.
task(
    Task(
        "contact-email",
        lambda ctx: "What is the observatory's contact e-mail address?",
        service_plan("contact", lambda s, ctx: (s.get("contact") or s).get("email")),
        lambda ctx: ctx.service()["contact"]["email"],
        same,
    )
)
task(
    Task(
        "contact-response-time",
        lambda ctx: "How quickly does the observatory answer enquiries?",
        service_plan("contact", lambda s, ctx: (s.get("contact") or s).get("response_time")),
        lambda ctx: ctx.service()["contact"]["response_time"],
        same,
    )
)
task(
    Task(
        "consortium-coordinator",
        lambda ctx: "Which member coordinates the consortium?",
        service_plan(
            "consortium",
            lambda s, ctx: next(
                (
                    m["name"]
                    for m in (s.get("consortium") or s).get("members", [])
                    if m.get("role", "").startswith("Coordinator")
                ),
                None,
            ),
        ),
        lambda ctx: next(
            m["name"] for m in ctx.service()["consortium"]["members"] if m["role"].startswith("Coordinator")
        ),
        same,
    )
)
task(
    Task(
        "services-list",
        lambda ctx: "What services does the observatory offer?",
        service_plan("services", lambda s, ctx: sorted(x["title"] for x in (s.get("services") or []))),
        lambda ctx: sorted(x["title"] for x in ctx.service()["services"]),
        same,
    )
)
task(
    Task(
        "project-dates",
        lambda ctx: "When did the Water Watch project run?",
        service_plan(
            "projects",
            lambda s, ctx: next(
                ((p.get("started"), p.get("ended")) for p in s.get("projects", []) if p.get("id") == "water-watch"),
                None,
            ),
        ),
        lambda ctx: next((p["started"], p["ended"]) for p in ctx.service()["projects"] if p["id"] == "water-watch"),
        same,
    )
)
task(
    Task(
        "guardrails-submit",
        lambda ctx: "May an agent submit the contact form for me?",
        service_plan(
            "guardrails",
            lambda s, ctx: any(
                "Submit the contact form" in x for x in (s.get("guardrails") or s).get("agents_must_not", [])
            ),
        ),
        lambda ctx: any("Submit the contact form" in x for x in ctx.service()["guardrails"]["agents_must_not"]),
        same,
    )
)


def enquiry_form(r, ctx):
    s = r.s
    url = s.get("form_url") or s.get("contact_form") or s.get("url") or ""
    return urllib.parse.urlparse(url).path or None


task(
    Task(
        "enquiry-draft",
        lambda ctx: "Help me ask the observatory whether our school may reuse the nitrate data in a class project.",
        [
            Plan(
                BEFORE,
                one_call(
                    "prepare_enquiry",
                    {"topic": "Data reuse", "message": "May our school reuse the nitrate data in a class project?"},
                    enquiry_form,
                ),
            )
        ],
        lambda ctx: urllib.parse.urlparse(ctx.service()["contact"]["form_url"]).path,
        same,
    )
)
