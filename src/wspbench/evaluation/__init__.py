"""The evaluation engine: exact batched rollouts of a weight program on a task.

ENGINES, Progress and Grading are defined here, where they cost nothing to import (the CLI checks `--engine`
without loading numpy); the rest is imported from `engine.py` on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

ENGINES = ("auto", "compiled", "fast", "reference")  # `engine.evaluate` says what each one is
Progress = Callable[[int], None]  # called with the number of episodes just finished (a progress bar's step)
_LAZY = ("EpisodeResults", "default_workers", "evaluate")
__all__ = ["ENGINES", "Grading", "Progress", *_LAZY]


@dataclass(frozen=True)
class Grading:
    """How to play a grade's episodes, not what to score: the engine (`ENGINES`), the worker processes (None: every
    core) and a progress callback. One value, handed as it is through every family's `results`, `play`, `score`,
    `grade` and `grade_checked` (`wspbench/tasks/spec.py`); the executor (local or Ray) is the one in use
    (`executors.use_executor`)."""

    engine: str = "auto"
    workers: int | None = None
    progress: Progress | None = None

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"unknown engine {self.engine!r:.40} (engines: {', '.join(ENGINES)})")
        if self.workers is not None and (isinstance(self.workers, bool) or not isinstance(self.workers, int)):
            raise ValueError(f"workers must be a whole number, not {self.workers!r:.40}")
        if self.workers is not None and self.workers < 1:
            raise ValueError(f"workers must be at least 1, not {self.workers}")

    def quiet(self) -> Grading:
        """The same grading without progress (a grade's side work, such as a repair task's damaged network)."""
        return Grading(self.engine, self.workers)


ONE_WORKER = Grading(workers=1)  # a grade of a few episodes, or one inside a worker process
DEFAULT = Grading()


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module("wspbench.evaluation.engine"), name)
    raise AttributeError(f"module 'wspbench.evaluation' has no attribute {name!r}")
