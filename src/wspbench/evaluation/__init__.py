"""The evaluation engine: exact batched rollouts of a weight program on a task.

ENGINES and Progress are defined here, where they cost nothing to import (the CLI checks `--engine` without
loading numpy); the rest is imported from `engine.py` on first use (PEP 562).
"""

import importlib
from collections.abc import Callable

ENGINES = ("auto", "compiled", "fast", "reference")  # `engine.evaluate` says what each one is
Progress = Callable[[int], None]  # called with the number of episodes just finished (a progress bar's step)
_LAZY = ("EpisodeResults", "default_workers", "evaluate")
__all__ = ["ENGINES", "Progress", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module("wspbench.evaluation.engine"), name)
    raise AttributeError(f"module 'wspbench.evaluation' has no attribute {name!r}")
