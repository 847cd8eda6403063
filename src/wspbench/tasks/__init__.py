"""Tasks: a game, a network, an answer format and a score, one registry for all of them.

`get_task(id)`, `all_tasks()` and `select(selector)` (registry.py) are what every command, export, record
and report use; `spec.py` is the contract a family implements; `minatar.py` and `superbeam.py` are the
built-in families.
"""

from wspbench.tasks.registry import UnknownTask, all_tasks, get_task, register_family, select, suite, unregister_family
from wspbench.tasks.spec import AnswerError, Game, GameTask, Protocol, Score, Task

__all__ = [
    "AnswerError",
    "Game",
    "GameTask",
    "Protocol",
    "Score",
    "Task",
    "UnknownTask",
    "all_tasks",
    "get_task",
    "register_family",
    "select",
    "suite",
    "unregister_family",
]
