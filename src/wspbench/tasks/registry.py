"""The task registry: every task of the suite, by canonical id. The one place where families are listed.

A family is a module with a `tasks()` function that returns its `Task` objects (see `spec.py`). The
built-in families are listed in FAMILIES; an installed package adds one through the entry point group
`wspbench.families` (`name = "module:tasks"`); `register_family` adds one at run time (the toy family of
`tests/test_tasks_registry.py`). Building the list is cheap: a task loads its game only when
it is graded or prompted, so `wsp --help` and `wsp games` stay fast.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from wspbench.tasks.spec import Task

SUITE_NAME = "wspbench"
SUITE_VERSION = "4"  # CHANGELOG.md; bump with any change that moves a score: a prompt, a game, a cap, the episodes
FAMILIES = ("wspbench.tasks.minatar", "wspbench.tasks.superbeam", "wspbench.tasks.identify", "wspbench.tasks.repair")
ENTRY_POINTS = "wspbench.families"

log = logging.getLogger(__name__)
_registered: dict[str, Callable[[], list[Task]]] = {}
_tasks: dict[str, Task] | None = None
_suite: tuple[dict[str, Task], Suite] | None = None  # the suite of one `_tasks` dict


class UnknownTask(ValueError):
    """A task id or selector that names no task: a usage error, with the ids to choose from."""


def register_family(name: str, tasks: Callable[[], list[Task]]) -> None:
    """Add a family: `tasks()` returns its Task objects. Registering a name again replaces it."""
    global _tasks
    _registered[name] = tasks
    _tasks = None


def unregister_family(name: str) -> None:
    global _tasks
    _registered.pop(name, None)
    _tasks = None


def _installed_families() -> list[Callable[[], list[Task]]]:
    """The `tasks` functions of installed plugin packages; a plugin that fails to load is left out, with a
    warning, so that one broken package cannot stop every command."""
    from importlib.metadata import entry_points

    makers = []
    for point in entry_points(group=ENTRY_POINTS):
        try:
            makers.append(point.load())
        except Exception as error:  # noqa: BLE001 - someone else's package
            log.warning("task family %s (%s) is left out: %s: %s", point.name, point.value, type(error).__name__, error)
    return makers


def _all() -> dict[str, Task]:
    global _tasks
    if _tasks is None:
        found: dict[str, Task] = {}
        makers = [importlib.import_module(module).tasks for module in FAMILIES]
        makers += [*_installed_families(), *_registered.values()]
        for make in makers:
            for task in make():
                if task.id in found:
                    raise ValueError(f"two tasks have the id {task.id!r}")
                found[task.id] = task
        log.debug(
            "%d tasks from %d families (%s registered)", len(found), len(makers), ", ".join(_registered) or "none"
        )
        _tasks = found
    return _tasks


def all_tasks() -> list[Task]:
    """Every task, in suite order: original MinAtar games, synthetic ones, SUPERBEAM, identify, repair, plugins."""
    return list(_all().values())


def get_task(task_id: str) -> Task:
    """The task with this canonical id; a bare game name is accepted when it names one task.
    UnknownTask (a ValueError) otherwise, saying what to write instead."""
    tasks = _all()
    if task_id in tasks:
        return tasks[task_id]
    by_game = [task for task in tasks.values() if _plays(task, task_id)]
    if len(by_game) == 1:
        return by_game[0]
    raise UnknownTask(f"unknown task {task_id!r:.80}{_hint(task_id)}; tasks: {', '.join(tasks)}")


def select(selector: str) -> list[Task]:
    """Tasks matching a selector: comma-separated `all`, ids, bare game names, families or fnmatch patterns
    over the ids (`original/*`, `synth/f*`); in suite order of first mention, without repeats. An item that
    is a task's id names that task alone (`superbeam`; `superbeam*` is every SUPERBEAM task)."""
    tasks = _all()
    chosen: dict[str, Task] = {}
    for item in (part.strip() for part in selector.split(",")):
        if not item:
            continue
        if item in tasks:
            chosen[item] = tasks[item]
            continue
        pattern = "*" if item == "all" else item
        matches = [
            task
            for task in tasks.values()
            if fnmatch.fnmatchcase(task.id, pattern)
            or _plays(task, pattern)
            or task.id.startswith(pattern + "/")
            or task.family == pattern
        ]
        if not matches:
            raise UnknownTask(f"no task matches {item!r:.80}{_hint(item)}; tasks: {', '.join(tasks)}")
        chosen.update((task.id, task) for task in matches)
    if not chosen:
        raise UnknownTask("the task selector is empty")
    return list(chosen.values())


def _plays(task: Task, name: str) -> bool:
    """Whether a bare game name names this task: the task that plays that game under its own name
    (`breakout` is original/breakout, not identify/breakout/0 or repair/breakout/swap_actions)."""
    return task.game.name == name and (task.id == name or task.id.endswith("/" + name))


def _hint(text: str) -> str:
    """A near miss: other case, a file-name spelling (`original-breakout`, `original__breakout`), `-` for `_`,
    or the right game under another source."""
    text = text.strip()
    lower = text.lower()
    spellings = {lower, lower.replace("__", "/"), lower.replace("-", "/", 1), lower.replace("-", "_")}
    game = lower.replace("-", "_").rsplit("/", 1)[-1]
    for task in _all().values():
        if (spellings & {task.id, task.game.name} and task.id != text) or ("/" in text and game == task.game.name):
            return f" (did you mean {task.id}?)"
    return ""


@dataclass(frozen=True)
class Suite:
    """The suite's name, version and a digest over every task's prompt, game, cap, calibration and
    episodes: two runs are comparable only when their suites are equal."""

    name: str
    version: str
    digest: str
    tasks: int

    def to_json(self) -> dict:
        return {"name": self.name, "version": self.version, "digest": self.digest, "tasks": self.tasks}


def suite() -> Suite:
    """The suite of the registered tasks (computed once per set of families: it renders every prompt)."""
    global _suite
    if _suite is None or _suite[0] is not _all():
        tasks = all_tasks()
        combined = hashlib.sha256("".join(f"{t.id}={t.digest()}\n" for t in tasks).encode()).hexdigest()
        _suite = (_all(), Suite(SUITE_NAME, SUITE_VERSION, combined, len(tasks)))
    return _suite[1]
