"""Seeing what a written network does: GIF replays, weight pictures, and reports over run directories.

Every module asks the task registry (src/wspbench/tasks/) and never which family a task belongs to:
replay (animated GIF of episodes played by `Task.watch`, the loop that scores them), weights (PNG of every
tensor, laid out by the task's input shape), runs (the run records as report entries), report (HTML,
Markdown and PNG charts). See docs/exports.md.
"""
