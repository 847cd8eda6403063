"""wspbench as a Python library: the tasks, their scores, and `evaluate`, which runs a model as `wsp run` does.

    import wspbench
    task = wspbench.get_task("synth/ferry")
    score = task.grade(reply_text)  # a Score; score.normalized is in [0, 1]
    records = wspbench.evaluate("reference", "synth/*", episodes=20)  # writes runs/reference-one-shot/

Each name is imported on first use (PEP 562), so `import wspbench` (and with it every `wsp` command) loads
none of the games, engines or numpy. This module is the top of the package: no module inside takes a name from it.
"""

import importlib

_EXPORTS = {  # name: the module that defines it
    "get_task": "wspbench.tasks.registry",
    "select": "wspbench.tasks.registry",
    "all_tasks": "wspbench.tasks.registry",
    "suite": "wspbench.tasks.registry",
    "register_family": "wspbench.tasks.registry",
    "Task": "wspbench.tasks.spec",
    "GameTask": "wspbench.tasks.spec",
    "Score": "wspbench.tasks.spec",
    "AnswerError": "wspbench.tasks.spec",
    "evaluate": "wspbench.harness.runs",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    if name == "__version__":
        value = _version()
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'wspbench' has no attribute {name!r}")
    globals()[name] = value  # found once: later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


def _version() -> str:
    """The installed package's version; in a source tree that was never installed, pyproject.toml's."""
    from importlib import metadata

    try:
        return metadata.version("wspbench")
    except metadata.PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        try:
            return tomllib.loads(pyproject.read_text())["project"]["version"]
        except (OSError, ValueError, KeyError):
            return "unknown"
