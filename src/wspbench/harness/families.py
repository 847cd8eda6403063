"""Which tasks a run covers: the registry of task ids and the `--tasks` selector.

Ids: `original/<game>` (the minatar package), `synth/<game>` (minatar_synth), `superbeam`.
"""

from __future__ import annotations

import fnmatch

from wspbench.harness import minatar_family, superbeam_family
from wspbench.harness.base import HarnessTask


class TaskSelectionError(ValueError):
    """A --tasks selector that matches nothing, or a family that is not available."""


def available_ids() -> list[str]:
    """Every task id the harness can run now, MinAtar first, SUPERBEAM last when it is installed."""
    ids = minatar_family.task_ids()
    if superbeam_family.unavailable_reason() is None:
        ids.append(superbeam_family.TASK_ID)
    return ids


def select_task_ids(selector: str) -> list[str]:
    """Ids matching a selector: comma-separated `all`, `original/*`, `synth/*`, `original/breakout`,
    `superbeam`, a bare game name, or any fnmatch pattern over the ids; in order, without repeats."""
    ids = available_ids()
    chosen: list[str] = []
    for item in (part.strip() for part in selector.split(",")):
        if not item:
            continue
        pattern = "*" if item == "all" else item.removeprefix("minatar/")
        if pattern in ("original", "synth"):
            pattern += "/*"
        matches = [i for i in ids if fnmatch.fnmatchcase(i, pattern) or i.split("/")[-1] == pattern]
        if not matches:
            hint = ""
            if pattern == superbeam_family.TASK_ID:
                hint = f" ({superbeam_family.unavailable_reason()})"
            raise TaskSelectionError(f"no task matches {item!r}{hint}; tasks: {', '.join(ids)}")
        chosen.extend(m for m in matches if m not in chosen)
    if not chosen:
        raise TaskSelectionError("the task selector is empty")
    return chosen


def make_task(task_id: str, episodes: int, train_episodes: int, workers: int | None,
              engine: str = "auto") -> HarnessTask:
    if task_id == superbeam_family.TASK_ID:
        return superbeam_family.SuperbeamHarnessTask()
    return minatar_family.MinAtarHarnessTask.from_id(task_id, episodes, train_episodes, workers, engine)
