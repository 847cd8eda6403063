"""What one MinAtar-style game is, stated once: `GameSpec`.

The five original games are one table in `minatar_original.py`; a synthetic game's spec is read from its own
module (`synth.spec`); `minatar.game_spec` finds either. Everything else (engines, prompts, tasks) reads
these facts instead of keeping its own list.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

MAX_STEPS = 10_000  # the engines' cap; a game's own `max_steps` may be lower


@dataclass(frozen=True)
class GameSpec:
    """One game's facts. `channel_groups[o]` lists the game's own channels OR-ed into shared channel `o`;
    None when the game's `state()` gives the six shared channels itself."""

    name: str
    source: str  # "original" (the `minatar` package), "synth" or "gen" (`minatar_synth.games`): the task id's prefix
    module: str  # the game's module, whose source file is its rules: "minatar.environments.breakout"
    score_cap: float
    max_steps: int  # at most MAX_STEPS
    description: str  # one line
    reference: str  # the reference program, "<package>:<path>": "wspbench:references/breakout.txt"; "" for none
    channel_groups: tuple[tuple[int, ...], ...] | None = None
    compiled: str | None = None  # the compiled twin claiming the game (`evaluation.compiled.engine.twin_of`)
    task_name: str = ""  # the game's name in its task id, where it is not `name`: gen_00100 is gen/00100

    @property
    def task_id(self) -> str:
        return f"{self.source}/{self.task_name or self.name}"

    @property
    def source_path(self) -> str:
        """The game's source file as prompts name it: `minatar/environments/breakout.py`."""
        return self.module.replace(".", "/") + ".py"

    @property
    def source_file(self) -> Path:
        """The game's source file, found without importing its package (`minatar`'s display code loads
        seaborn, pandas and scipy: more than a second that reading a game's rules does not need)."""
        top, _, rest = self.module.partition(".")
        found = importlib.util.find_spec(top)
        if found is None or not found.submodule_search_locations:
            raise ModuleNotFoundError(f"the game {self.name} needs the `{top}` package")
        path = Path(found.submodule_search_locations[0], *rest.split(".")).with_suffix(".py")
        if not path.is_file():  # a module of another folder (a private set's game: `synth.add_games`)
            module = importlib.util.find_spec(self.module)
            path = Path(module.origin) if module is not None and module.origin else path
        return path
