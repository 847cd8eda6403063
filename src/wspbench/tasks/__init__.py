"""Tasks: a game, a network, an answer format and a score, one registry for all of them.

`get_task(id)`, `all_tasks()` and `select(selector)` (registry.py) are what every command, export, record
and report use; `spec.py` is the contract a family implements; `minatar.py` and `superbeam.py` are the
built-in families.
"""

from wspbench.tasks.reading_set import PRIVATE_SETS, grading_file
from wspbench.tasks.registry import (
    UnknownTask,
    all_tasks,
    get_task,
    private_sets_problem,
    register_family,
    select,
    set_tasks,
    suite,
    unregister_family,
)
from wspbench.tasks.spec import AnswerError, Game, GameTask, Score, Task

__all__ = [
    "PRIVATE_SETS",
    "AnswerError",
    "Game",
    "GameTask",
    "Score",
    "Task",
    "UnknownTask",
    "all_tasks",
    "get_task",
    "grading_file",
    "private_sets_problem",
    "register_family",
    "select",
    "set_tasks",
    "suite",
    "unregister_family",
]
