"""Seeing what a written network does: GIF replays, weight pictures, and reports over run directories.

Every module asks the task registry (src/wspbench/tasks/) and never which family a task belongs to:
replay (animated GIF of episodes played by `Task.watch`, the loop that scores them), weights (PNG of every
tensor, laid out by the task's input shape), runs (the run records as report entries), report (HTML,
Markdown and PNG charts). See docs/exports.md.
"""

# `wsp report`'s bounds on replays (here, so that the CLI reads them without importing the drawing code): a
# report over the whole suite (170 tasks) stays under a minute on two cores
REPLAYS_PER_FAMILY = 1  # replays per model and family by default
REPLAY_SECONDS = 20.0  # total time for replays; the rest are skipped with a note
REPLAY_BYTES = 2_000_000  # per GIF: later frames are dropped to fit
