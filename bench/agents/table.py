"""Prints the before/after table of bench/README.md from two result files.

python bench/agents/table.py bench/agents/before.json bench/agents/after.json
"""

import json
import sys

CALLS, TOKENS = 3, 8000


def mark(n, goal):
    return f"{n:,}" if n <= goal else f"**{n:,}**"


def main(before_path, after_path):
    before, after = (json.load(open(p)) for p in (before_path, after_path))
    prior = {r["task"]: r for r in before["rows"]}
    b, a = before["summary"], after["summary"]
    print("| | before | after |")
    print("|---|---|---|")
    print(f"| answers reached | {b['reached']} of {b['tasks']} | {a['reached']} of {a['tasks']} |")
    print(
        f"| tasks within both goals (≤ {CALLS} calls, ≤ {TOKENS:,} tokens) | {b['within_goals']} | {a['within_goals']} |"
    )
    print(f"| tool calls, all tasks | {b['tool_calls']} | {a['tool_calls']} |")
    print(f"| tokens read, all tasks | {b['tokens']:,} | {a['tokens']:,} |")
    print(f"| the same without `structuredContent` | {b['tokens_content_only']:,} | {a['tokens_content_only']:,} |")
    print(f"| `tools/list` alone | {b['tools_list_tokens']:,} | {a['tools_list_tokens']:,} |")
    print()
    print("| task | question | before: calls | tokens | after: plan | calls | tokens |")
    print("|---|---|---|---|---|---|---|")
    for r in after["rows"]:
        p = prior.get(r["task"])
        was = f"{mark(p['calls'], CALLS)} | {mark(p['tokens'], TOKENS)}" if p else "— | —"
        now = f"{mark(r['calls'], CALLS)} | {mark(r['tokens'], TOKENS)}"
        print(f"| `{r['task']}` | {r['question']} | {was} | {r['plan']} | {now} |")
    print(f"| all | | {b['tool_calls']} | {b['tokens']:,} | | {a['tool_calls']} | {a['tokens']:,} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
