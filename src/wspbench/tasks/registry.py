"""The task registry: every task of the suite, by canonical id. The one place where families are listed.

A family module has a `tasks()` function that returns its `Task` objects (see `spec.py`); a task's family is
its id's prefix (`Task.family`), so one module may make several (`minatar.py`: original, synth, gen). The
built-in family modules are listed in FAMILIES; an installed package adds one through the entry point group
`wspbench.families` (`name = "module:tasks"`); `register_family` adds one at run time (the toy family of
`tests/tasks/test_registry.py`). Building the list is cheap: a task loads its game only when
it is graded or prompted, so `wsp --help` and `wsp games` stay fast.

Private sets (`reading_set.py`: reading networks or generated games, listed in WSP_PRIVATE_SETS) join after
the built-in families, outside the suite and its digest. Exports name a task by its public id (`Task.public`),
which `get_task` also accepts.

Plugin families (installed or registered) are someone else's code: each of their tasks is checked, and a
family or task that fails is left out with one warning naming it, so that it cannot stop a command. A plugin
never takes a built-in id or game name, and the suite (its digest) covers the built-in families only, so
installing a plugin does not change the suite that runs record.
"""

from __future__ import annotations

import difflib
import fnmatch
import hashlib
import importlib
import importlib.util
import itertools
import logging
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from wspbench.tasks.spec import SKILLS, Task, family_of, safe_message
from wspbench.words import count

SUITE_NAME = "wspbench"
SUITE_VERSION = "11"  # CHANGELOG.md; bump with any change that moves a score: a prompt, a game, a cap, the episodes
FAMILIES = ("wspbench.tasks.minatar", "wspbench.tasks.superbeam", "wspbench.tasks.identify", "wspbench.tasks.repair")
ENTRY_POINTS = "wspbench.families"
MAX_PLUGIN_TASKS = 10_000  # tasks read from one plugin family
PLUGIN_ID = re.compile(r"[a-z0-9_][a-z0-9_.-]{0,39}(/[a-z0-9_][a-z0-9_.-]{0,39}){1,3}")  # `family/name[/...]`
SUGGESTIONS = 3  # at most this many "did you mean" ids
DIGESTED_PACKAGES = ("wspbench", "minatar_synth", "superbeam", "minatar")  # every file a built-in task reads
DIGEST_CACHE = "task-digests.json"  # in `files.cache_folder()`
MAX_DIGEST_CACHE_BYTES = 1_000_000  # the cache holds ~110 digests (11 kB); a larger file is not read, only replaced

log = logging.getLogger(__name__)
_registered: dict[str, Callable[[], Iterable[Task]]] = {}
_tasks: Registry | None = None
_digests: tuple[Registry, dict[str, str]] | None = None  # the built-in tasks' digests of one loaded registry


class UnknownTask(ValueError):
    """A task id or selector that names no task: a usage error, with a few close ids to choose from."""


@dataclass(frozen=True)
class Registry:
    """The loaded tasks: every task by id (built-in first), the built-in ids, the task each bare game
    name names (a built-in task before a plugin's) and the task each public id that is not its id names. The last
    two are found when first asked: they read every task's facts (a game's module), which a command that names
    its task by its id does not need."""

    tasks: dict[str, Task]
    builtin: frozenset[str]

    @cached_property
    def names(self) -> dict[str, Task]:
        plugins = [task for task_id, task in self.tasks.items() if task_id not in self.builtin]
        return _names(plugins) | _names(self.tasks[task_id] for task_id in self.builtin)  # built-in game names win

    @cached_property
    def public(self) -> dict[str, Task]:
        return {task.public().id: task for task in self.tasks.values() if task.public().id != task.id}


def register_family(name: str, tasks: Callable[[], Iterable[Task]]) -> None:
    """Add a plugin family: `tasks()` returns its Task objects. Registering a name again replaces it."""
    global _tasks
    _registered[name] = tasks
    _tasks = None


def unregister_family(name: str) -> None:
    global _tasks
    _registered.pop(name, None)
    _tasks = None


def _installed_families() -> list[tuple[str, Callable]]:
    """(name, `tasks` function) of installed plugin packages; a plugin that fails to load is left out, with a
    warning, so that one broken package cannot stop every command."""
    from importlib.metadata import entry_points

    makers = []
    for point in entry_points(group=ENTRY_POINTS):
        name = f"{point.name} ({point.value})"
        try:
            makers.append((name, point.load()))
        except Exception as error:  # noqa: BLE001 - someone else's package
            log.warning("task family %s is left out: %s", name, safe_message(error))
    return makers


def _plugin_tasks(name: str, make: Callable, taken: dict[str, Task], reserved: frozenset[str]) -> list[Task]:
    """The valid tasks of one plugin family (ids not in `taken`, families not in `reserved`);
    each one left out is named in a warning."""
    try:
        made = list(itertools.islice(make(), MAX_PLUGIN_TASKS + 1))
    except (Exception, SystemExit) as error:  # noqa: BLE001 - someone else's code, e.g. tasks() returning None
        log.warning("task family %s is left out: its tasks() failed: %s", name, safe_message(error))
        return []
    if len(made) > MAX_PLUGIN_TASKS:
        log.warning("task family %s is left out: it has more than %d tasks", name, MAX_PLUGIN_TASKS)
        return []
    kept: dict[str, Task] = {}
    for task in made:
        problem = _problem(task, taken, reserved, kept)
        if problem:
            log.warning("task family %s: a task is left out: %s", name, problem)
        else:
            kept[task.id] = task
    return list(kept.values())


def _problem(task, taken: dict[str, Task], reserved: frozenset[str], kept: dict[str, Task]) -> str | None:
    """Why a plugin's task cannot join the registry, or None."""
    if not isinstance(task, Task):
        return f"{type(task).__name__:.40} is not a Task"
    try:
        task_id, family, game = task.id, task.family, task.facts.name
    except Exception as error:  # noqa: BLE001 - a property of someone else's class
        return f"its id, family or game cannot be read: {safe_message(error)}"
    if not isinstance(task_id, str) or not PLUGIN_ID.fullmatch(task_id):
        return f"its id {task_id!r:.60} is not lower-case family/name (letters, digits, _ . -)"
    if not isinstance(family, str) or not isinstance(game, str):
        return f"{task_id}: its family and game name must be text"
    if task.skill not in SKILLS:
        return f"{task_id}: its skill must be one of {', '.join(SKILLS)}, not {task.skill!r:.40}"
    if task_id in taken or task_id in kept:
        return f"{task_id} repeats the id of {'another' if task_id in kept else 'an earlier'} task"
    if family != family_of(task_id):
        return f"{task_id}: its family {family!r:.40} is not its id's prefix"
    if family in reserved:
        return f"{task_id}: its family {family!r:.40} is a built-in family"
    return None


def _names(tasks: Iterable[Task]) -> dict[str, Task]:
    """The task each bare game name names, among `tasks`: the one that plays that game under its own name (a
    generated game's module name too: `gen_00100` is `gen/00100`)."""
    found: dict[str, list[Task]] = {}
    for task in tasks:
        name = task.facts.name
        if task.id == name or task.id.endswith("/" + name) or task.id.replace("/", "_", 1) == name:  # gen/00100
            found.setdefault(name, []).append(task)
    return {name: named[0] for name, named in found.items() if len(named) == 1}


def _load() -> Registry:
    global _tasks
    if _tasks is None:
        tasks: dict[str, Task] = {}
        for module in FAMILIES:
            for task in importlib.import_module(module).tasks():
                if task.id in tasks:
                    raise ValueError(f"two tasks have the id {task.id!r}")
                tasks[task.id] = task
        builtin = frozenset(tasks)
        for task in _private_tasks():
            if task.id in tasks:
                raise ValueError(f"two tasks have the id {task.id!r}")
            tasks[task.id] = task
        reserved = frozenset(task.family for task in tasks.values())
        families = [*_installed_families(), *_registered.items()]
        for name, make in families:
            tasks.update((task.id, task) for task in _plugin_tasks(name, make, tasks, reserved))
        _tasks = Registry(tasks, builtin)
        log.debug("%d tasks, %d from %d plugin families", len(tasks), len(tasks) - len(builtin), len(families))
    return _tasks


def _private_tasks() -> list[Task]:
    """The tasks of the private sets (reading networks, generated games) in WSP_PRIVATE_SETS; a folder that is not
    one is left out with a warning naming it, as a broken plugin is (its tasks are then unknown ids, a usage
    error; the command line makes it one first: `private_sets_problem`)."""
    from wspbench.tasks.reading_set import PRIVATE_SETS, private_sets

    try:
        return [task for found in private_sets() for task in set_tasks(found)]
    except (ValueError, OSError, KeyError, TypeError) as error:
        log.warning("the private sets of %s are left out: %s", PRIVATE_SETS, safe_message(error))
        return []


def set_tasks(found) -> list[Task]:
    """The tasks of one private set (a `reading_set.ReadingSet`): its identify, repair and generated games' tasks."""
    from wspbench.tasks import identify, minatar, repair

    return identify.tasks(found) + repair.tasks(found) + minatar.private_tasks(found)


def private_sets_problem() -> str | None:
    """Why WSP_PRIVATE_SETS names a folder that is not a private set (the message names it), or None."""
    from wspbench.tasks.reading_set import PRIVATE_SETS, private_sets

    if not os.environ.get(PRIVATE_SETS, "").strip():
        return None
    try:
        private_sets()
    except (ValueError, OSError, KeyError, TypeError) as error:
        return f"{PRIVATE_SETS}: {safe_message(error)}"
    return None


def _all() -> dict[str, Task]:
    return _load().tasks


def all_tasks() -> list[Task]:
    """Every task, in suite order: original MinAtar games, synthetic ones, SUPERBEAM, identify, repair, plugins."""
    return list(_all().values())


def plugin_tasks() -> list[Task]:
    """The tasks of plugin families: served by every command, outside the suite and its digest."""
    loaded = _load()
    return [task for task_id, task in loaded.tasks.items() if task_id not in loaded.builtin]


def get_task(task_id: str) -> Task:
    """The task with this canonical id; a bare game name is accepted when it names one task (a built-in
    task first), and so is the public id exports show (`Task.public`). UnknownTask (a ValueError) otherwise,
    with a few close ids."""
    loaded = _load()
    if isinstance(task_id, str):
        if task_id in loaded.tasks:
            return loaded.tasks[task_id]
        if task_id in loaded.names:
            return loaded.names[task_id]
        if task_id in loaded.public:
            return loaded.public[task_id]
    raise UnknownTask(f"unknown task {str(task_id)!r:.80}{_hint(str(task_id))}")


def select(selector: str) -> list[Task]:
    """Tasks matching a selector: comma-separated `all`, ids, bare game names, families or fnmatch patterns
    over the ids (`original/*`, `synth/f*`); in suite order of first mention, without repeats. An item that
    is a task's id names that task alone (`superbeam`; `superbeam*` is every SUPERBEAM task)."""
    loaded = _load()
    tasks = loaded.tasks
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
            if fnmatch.fnmatchcase(task.id, pattern) or loaded.names.get(pattern) is task or task.family == pattern
        ]
        if not matches:
            raise UnknownTask(f"no task matches {item!r:.80}{_hint(item)}")
        chosen.update((task.id, task) for task in matches)
    if not chosen:
        raise UnknownTask("the task selector is empty")
    return list(chosen.values())


def suggestions(text: str) -> list[str]:
    """At most SUGGESTIONS ids close to what was typed: another case or file-name spelling
    (`original-breakout`, `original__breakout`), the right game under another source, or a near miss
    (difflib) over the ids and the bare game names."""
    loaded = _load()
    lower = text.strip()[:100].lower()
    spellings = dict.fromkeys(
        [lower, lower.replace("__", "/"), lower.replace("-", "/", 1), lower.replace("-", "_"), lower.replace(" ", "_")]
    )
    named = {name: task.id for name, task in loaded.names.items()} | {task_id: task_id for task_id in loaded.tasks}
    found = [named[spelling] for spelling in spellings if spelling in named]
    if "/" in lower and (game := lower.replace("-", "_").rsplit("/", 1)[-1]) in loaded.names:
        found.append(loaded.names[game].id)
    for spelling in [] if found else spellings:  # another spelling of one id is the answer
        found += [named[close] for close in difflib.get_close_matches(spelling, named, SUGGESTIONS, 0.75)]
    return [task_id for task_id in dict.fromkeys(found) if task_id != text][:SUGGESTIONS]


def _hint(text: str) -> str:
    """The close ids as "(did you mean ...?)", and where to find every id: never the whole list."""
    close = suggestions(text)
    if len(close) > 1:
        close = [", ".join(close[:-1]) + " or " + close[-1]]
    mean = f" (did you mean {close[0]}?)" if close else ""
    return f"{mean}; `wsp games` lists the {len(_all())} tasks"


def summary(ids: Iterable[str], shown: int = 3) -> str:
    """A long list of task ids in one short line: the count, then per family its count and first few ids."""
    families: dict[str, list[str]] = {}
    for task_id in ids:
        families.setdefault(family_of(task_id), []).append(task_id)
    parts = [
        f"{family} {len(members)} ({', '.join(members[:shown])}{', ...' if len(members) > shown else ''})"
        for family, members in families.items()
    ]
    total = sum(len(members) for members in families.values())
    return f"{count(total, 'task')}: " + "; ".join(parts)


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
    """The suite of the built-in tasks. Plugin tasks are not in it, so installing one leaves the digest that runs
    record unchanged."""
    digests = builtin_digests()
    combined = hashlib.sha256("".join(f"{task_id}={digest}\n" for task_id, digest in digests.items()).encode())
    return Suite(SUITE_NAME, SUITE_VERSION, combined.hexdigest(), len(digests))


def digest_of(task_id: str) -> str:
    """The digest of the task `task_id` names (`Task.digest`): a built-in task's from the cache (`task_digests`),
    any other's computed. UnknownTask for an id that names none."""
    task = get_task(task_id)
    return builtin_digests().get(task.id) or task.digest()


def builtin_digests() -> dict[str, str]:
    """Every built-in task's digest, in suite order, found once per loaded registry."""
    global _digests
    loaded = _load()
    if _digests is None or _digests[0] is not loaded:
        tasks = [task for task_id, task in loaded.tasks.items() if task_id in loaded.builtin]
        found = task_digests(tasks)
        _digests = (loaded, {task.id: found[task.id] for task in tasks})
    return _digests[1]


def task_digests(tasks: list[Task]) -> dict[str, str]:
    """Each built-in task's `digest()`, which renders its prompt (about 0.8 s for the suite), kept in the
    cache folder under a key of every file the prompts, games, caps and calibrations are read from (this
    package and its games, `minatar`'s) and of the Python and numpy versions: an edit to any of them, even a
    comment, computes them again."""
    import json
    import sys

    import numpy

    from wspbench.files import cache_folder, files_key, read_bounded, write_atomic

    specs = [importlib.util.find_spec(name) for name in DIGESTED_PACKAGES]
    roots = [Path(spec.origin).parent for spec in specs if spec is not None and spec.origin]
    key = f"{sys.version}|{numpy.__version__}|{files_key(roots)}"
    path = cache_folder() / DIGEST_CACHE
    try:
        cached = json.loads(read_bounded(path, MAX_DIGEST_CACHE_BYTES, "digest cache"))
        if cached["key"] == key and all(isinstance(cached["digests"].get(task.id), str) for task in tasks):
            return cached["digests"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        pass  # no cache yet, another version's or a broken one: computed again below
    digests = {task.id: task.digest() for task in tasks}
    try:
        write_atomic(path, json.dumps({"key": key, "digests": digests}).encode())
    except OSError as error:  # a read-only home: the next command computes them again
        log.debug("the task digests cannot be cached in %s: %s", path, error)
    return digests
