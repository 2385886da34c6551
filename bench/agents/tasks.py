"""The tasks of `scripts/bench agents`: questions a person would give an agent
that has the sidecar's MCP tools, each with its plans and its truth (see
harness.py for how a task is made)."""

import tasks_data
import tasks_docs

TASKS = tasks_data.TASKS + tasks_docs.TASKS
