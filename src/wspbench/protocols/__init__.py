"""Protocols: how a model meets a task. One module per protocol (`one_shot.py`, `feedback.py`, `agent.py`), each a
subclass of `base.Protocol` that declares its settings (with their defaults; `base.SETTINGS` holds every setting's
bounds and help), its rules (what the conversation engine, `conversation.py`, asks it) and its words (what a task's
prompt asks it). `make(name, **settings)` is the one way to build one from what a user gave: `wsp run`, `wsp prompt`,
`wspbench.evaluate`, the Inspect task and the OpenEnv server all call it, and declare their options from
`options()`. Nothing outside this package compares a protocol's name (`tests/test_architecture.py`).

Adding a protocol: write its module (a frozen dataclass subclass of `Protocol` with a `name`, the `settings` it
adds and their defaults, and the rules and words it changes), then `register` it; a task offers it by naming it in
its `protocols`. `tests/toy_protocol.py` is a complete example; docs/architecture.md walks through it.
"""

from __future__ import annotations

import difflib
from dataclasses import fields

from wspbench.protocols.agent import Agent
from wspbench.protocols.base import RUN_EPISODES, SETTINGS, Protocol, Setting, check
from wspbench.protocols.feedback import Feedback
from wspbench.protocols.one_shot import OneShot

__all__ = [
    "BUILT_IN",
    "ONE_SHOT",
    "RUN_EPISODES",
    "SETTINGS",
    "Agent",
    "Feedback",
    "OneShot",
    "Protocol",
    "Setting",
    "check",
    "get",
    "make",
    "names",
    "options",
    "register",
    "unregister",
]

BUILT_IN = (OneShot.name, Feedback.name, Agent.name)
_REGISTRY: dict[str, type[Protocol]] = {kind.name: kind for kind in (OneShot, Feedback, Agent)}
ONE_SHOT = OneShot()  # a task's prompt when no protocol is given: the seed's contract


def names() -> tuple[str, ...]:
    """The registered protocols' names, in order."""
    return tuple(_REGISTRY)


def get(name: str) -> type[Protocol]:
    """The protocol named `name`, or ValueError saying which exist (and which was probably meant)."""
    kind = _REGISTRY.get(name) if isinstance(name, str) else None
    if kind is None:
        near = difflib.get_close_matches(str(name), list(_REGISTRY), n=1, cutoff=0.5)
        hint = f"; did you mean {near[0]}?" if near else ""
        raise ValueError(f"unknown protocol {str(name)!r:.40} (protocols: {', '.join(_REGISTRY)}{hint})")
    return kind


def make(name: str = OneShot.name, **given) -> Protocol:
    """The protocol `name` with the settings given: a setting given as None takes the protocol's default, a setting
    the protocol does not have is left out (a run's options name every setting), an unknown name or a value out of
    its bounds (even one left out) is a ValueError that names it."""
    kind = get(name)
    for key, value in given.items():
        if key not in SETTINGS:
            near = difflib.get_close_matches(key, list(SETTINGS), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(f"no protocol setting {key!r}{hint}; the settings are {', '.join(SETTINGS)}")
        if value is not None:
            check(SETTINGS[key], value)
    kept = {key: value for key, value in given.items() if value is not None and key in kind.settings}
    return kind(**kept)


def options() -> dict[str, tuple[Setting, str]]:
    """Each setting with its help as a command line shows it: its text, and each protocol's default."""
    found = {}
    for setting in SETTINGS.values():
        defaults = [
            f"{kind.name} {_default(kind, setting.name)}"
            for kind in _REGISTRY.values()
            if setting.name in kind.settings and setting.name != "episodes"
        ]
        where = f" Default: {', '.join(defaults)}." if defaults else ""
        found[setting.name] = (setting, setting.help + where)
    return found


def _default(kind: type[Protocol], name: str) -> str:
    value = next(one.default for one in fields(kind) if one.name == name)
    return "none" if name == "task_timeout" and not value else f"{value:g}"


def register(kind: type[Protocol]) -> None:
    """Add a protocol (a `Protocol` subclass with a new name): every command, export and record then knows it."""
    if not (isinstance(kind, type) and issubclass(kind, Protocol)) or not kind.name or kind.name in _REGISTRY:
        raise ValueError(f"{kind!r:.60} is not a new protocol (a Protocol subclass with a name of its own)")
    _REGISTRY[kind.name] = kind


def unregister(name: str) -> None:
    """Remove a protocol `register` added (the built-in ones stay)."""
    if name in BUILT_IN:
        raise ValueError(f"{name} is a built-in protocol")
    _REGISTRY.pop(name, None)
