"""Runs the agent tasks of `scripts/bench agents` against a running sidecar.

    .tools/venv/bin/python bench/agents/run.py BASE_URL --node NODE --out RESULT.json
        [--label NAME] [--commit REV] [--only TASK,...] [--compare BEFORE.json]

For each task of tasks.py, from a cold start: a new client of the official
Python SDK (`mcp`, streamable HTTP, `initialize`), `tools/list`, then the
calls of the first plan whose needs the listed tools meet. The plan's
answer is compared with the truth, read from the sidecar's REST routes and
static files over HTTP. Counted per task: tool calls, and the tokens the
agent reads (the tools/list result as JSON, then every tool result as the
client receives it: each text content, any other content as JSON, and the
structured content as JSON), with gpt-tokenizer's o200k_base encoding.

Prints a table; writes the rows to RESULT.json. Exits 1 naming every task
whose answer was not reached.
"""

import argparse
import asyncio
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

from mcp import Client

sys.path.insert(0, str(Path(__file__).parent))
import harness  # noqa: E402
import tasks as task_list  # noqa: E402

CALL_GOAL = 3
TOKEN_GOAL = 8000
LIST_GOAL = 4000


class Tokens:
    """One node process counting o200k_base tokens, a JSON string per line."""

    def __init__(self, node, package_json):
        script = Path(__file__).with_name("tokens.mjs")
        self.proc = subprocess.Popen(
            [node, str(script), package_json], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def count(self, text):
        self.proc.stdin.write(json.dumps(text) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the token counter stopped")
        return int(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def received_text(result, structured=True):
    """What the agent reads of one tool result, as one string; without
    `structured`, the content alone (what a host that passes only the
    content gives its model)."""
    parts = []
    for item in result.get("content") or []:
        parts.append(item["text"] if item.get("type") == "text" else compact(item))
    if structured and result.get("structuredContent") is not None:
        parts.append(compact(result["structuredContent"]))
    return "\n".join(parts)


def needs_met(needs, tools):
    """`needs` are tool names or `tool.argument`s that tools/list must offer."""
    for need in needs:
        name, _, arg = need.partition(".")
        tool = tools.get(name)
        if tool is None or (arg and arg not in (tool.get("inputSchema") or {}).get("properties", {})):
            return False
    return True


async def run_task(url, task, ctx, tokens):
    row = {"task": task.id, "question": task.question(ctx)}
    started = time.monotonic()
    async with Client(url, mode="legacy") as client:
        listed = await client.list_tools(cache_mode="bypass")
        listed_json = listed.model_dump(mode="json", by_alias=True, exclude_none=True)
        list_tokens = tokens.count(compact(listed_json))
        tools = {t["name"]: t for t in listed_json["tools"]}
        plan = next((p for p in task.plans if needs_met(p.needs, tools)), None)
        if plan is None:
            row.update(ok=False, detail="no plan fits the listed tools", plan=None)
            return row
        row["plan"] = plan.name
        calls, read, read_content = [], list_tokens, list_tokens
        steps = plan.steps(ctx)
        answer, sent = None, None
        try:
            while True:
                tool, args = steps.send(sent)
                result = await client.call_tool(tool, args)
                dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                n = tokens.count(received_text(dumped))
                read += n
                read_content += tokens.count(received_text(dumped, structured=False))
                calls.append({"tool": tool, "arguments": args, "tokens": n, "is_error": bool(dumped.get("isError"))})
                if dumped.get("isError"):
                    raise harness.PlanError(f"{tool} {compact(args)} failed: {received_text(dumped)[:300]}")
                sent = harness.Result(dumped)
        except StopIteration as stop:
            answer = stop.value
        except harness.PlanError as err:
            row.update(ok=False, detail=str(err))
    row.update(calls=len(calls), tokens=read, tokens_content_only=read_content, list_tokens=list_tokens, steps=calls)
    row["seconds"] = round(time.monotonic() - started, 3)
    if "ok" in row:
        return row
    truth = task.truth(ctx)
    ok, detail = task.compare(answer, truth)
    row.update(ok=bool(ok), answer=answer, truth=truth, detail=detail)
    return row


def fmt(n):
    return f"{n:,}"


def table(rows, before):
    """Markdown table of the rows, with the before figures beside when given."""
    prior = {r["task"]: r for r in (before or {}).get("rows", [])}
    head = "| task | plan | calls | tokens | answer |"
    rule = "|---|---|---|---|---|"
    if before:
        head = "| task | before: calls | before: tokens | after: plan | after: calls | after: tokens | answer |"
        rule = "|---|---|---|---|---|---|---|"
    lines = [head, rule]
    for r in rows:
        mark = lambda n, goal: fmt(n) if n <= goal else f"**{fmt(n)}**"  # noqa: E731
        now = f"{mark(r.get('calls', 0), CALL_GOAL)} | {mark(r.get('tokens', 0), TOKEN_GOAL)}"
        verdict = "reached" if r["ok"] else "NOT reached"
        if before:
            p = prior.get(r["task"])
            was = f"{mark(p['calls'], CALL_GOAL)} | {mark(p['tokens'], TOKEN_GOAL)}" if p else "— | —"
            lines.append(f"| {r['task']} | {was} | {r.get('plan')} | {now} | {verdict} |")
        else:
            lines.append(f"| {r['task']} | {r.get('plan')} | {now} | {verdict} |")
    return "\n".join(lines)


def summary(rows):
    n = len(rows)
    within = sum(1 for r in rows if r["ok"] and r.get("calls", 99) <= CALL_GOAL and r.get("tokens", 1e9) <= TOKEN_GOAL)
    total = sum(r.get("tokens", 0) for r in rows)
    calls = sum(r.get("calls", 0) for r in rows)
    lists = sorted({r.get("list_tokens", 0) for r in rows})
    return {
        "tasks": n,
        "reached": sum(1 for r in rows if r["ok"]),
        "within_goals": within,
        "tool_calls": calls,
        "tokens": total,
        "tokens_content_only": sum(r.get("tokens_content_only", 0) for r in rows),
        "tools_list_tokens": lists[-1] if lists else 0,
    }


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("--node", required=True)
    ap.add_argument("--package-json", default="tests/e2e/package.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--label", default="")
    ap.add_argument("--commit", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("--compare", default="")
    opts = ap.parse_args()
    base = opts.base.rstrip("/")
    url = base + "/mcp/"
    ctx = harness.Context(base)
    tasks = task_list.TASKS
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        sys.exit("bench-agents: task ids repeat")
    if opts.only:
        wanted = set(opts.only.split(","))
        unknown = wanted - set(ids)
        if unknown:
            sys.exit(f"bench-agents: no task {', '.join(sorted(unknown))}; tasks: {' '.join(ids)}")
        tasks = [t for t in tasks if t.id in wanted]
    tokens = Tokens(opts.node, opts.package_json)
    rows = []
    try:
        for task in tasks:
            try:
                row = await run_task(url, task, ctx, tokens)
            except Exception as err:  # a task that cannot run fails the run, named
                while isinstance(err, BaseExceptionGroup) and len(err.exceptions) == 1:
                    err = err.exceptions[0]
                row = {"task": task.id, "ok": False, "detail": f"{type(err).__name__}: {err}", "plan": None}
            rows.append(row)
            state = "ok" if row["ok"] else "FAILED"
            print(
                f"bench-agents: {task.id:<28} {row.get('plan') or '-':<7} calls {row.get('calls', '-'):>2}  "
                f"tokens {row.get('tokens', 0):>9,}  {state}" + ("" if row["ok"] else f": {row.get('detail')}"),
                flush=True,
            )
    finally:
        tokens.close()
    before = json.loads(Path(opts.compare).read_text()) if opts.compare else None
    out = {
        "label": opts.label,
        "commit": opts.commit,
        "measured": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "encoding": "o200k_base",
        "goals": {"calls": CALL_GOAL, "tokens": TOKEN_GOAL, "tools_list_tokens": LIST_GOAL},
        "summary": summary(rows),
        "rows": rows,
    }
    Path(opts.out).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print()
    print(table(rows, before))
    print()
    s = out["summary"]
    print(
        f"bench-agents: {s['reached']}/{s['tasks']} answers reached, {s['within_goals']} within "
        f"<= {CALL_GOAL} calls and <= {fmt(TOKEN_GOAL)} tokens; {fmt(s['tool_calls'])} tool calls, "
        f"{fmt(s['tokens'])} tokens in all ({fmt(s['tokens_content_only'])} without structuredContent); "
        f"tools/list alone {fmt(s['tools_list_tokens'])} tokens "
        f"(goal <= {fmt(LIST_GOAL)}; o200k_base)"
    )
    failed = [r["task"] for r in rows if not r["ok"]]
    if failed:
        print(f"bench-agents: answer not reached: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
