"""Integrations with other evaluation tools, each an optional extra that consumes the task registry
(`wspbench/tasks/`) and re-describes nothing: `inspect_ai.py` is the Inspect task (`wspbench[inspect]`,
docs/inspect.md). Nothing in wspbench imports them; the tools load them through their entry points."""
