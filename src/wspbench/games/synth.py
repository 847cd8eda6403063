"""Synthetic games: any module `minatar_synth.games.<game>` that keeps the module contract.

The contract: a class named after the module (`ferry` -> `FerryEnvironment`, `fruit_catch` ->
`FruitCatchEnvironment`) with a class attribute `score_cap` (and `max_steps` if the game has a length) and
`__init__(self, sticky_action_prob=0.1)`; `seed`, `reset`, `state()` -> (10, 10, 6) bool array, `act(action)`
-> (reward, terminal); the first line of the module's docstring is the game's description. A shipped game's
`score_cap` keeps `cap_rule`. `spec` reads a game's `GameSpec` from these, so adding a game is adding a module.

A module named GENERATED + seed (`gen_00100`) is a generated game (`minatar_synth/generator.py`): the same contract,
its own source "gen" and task id (`gen/00100`), its cap set by calibration (`minatar_synth/generated.json`), and no
hand-written reference program.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import math
import pkgutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import numpy as np

from wspbench.games.spec import MAX_STEPS, GameSpec

PACKAGE = "minatar_synth.games"
GENERATED = "gen_"  # the name prefix of generated games' modules
HARD = "hard_"  # ... and of the hard family's (issue 49: the same generator, `generator.hard_design`)
PREFIXES = {GENERATED: "gen", HARD: "hard"}  # a generated module's name prefix: its source


def prefix_of(game: str) -> str | None:
    """The generated family's name prefix that `game` starts with, or None for a hand-written game."""
    return next((prefix for prefix in PREFIXES if game.startswith(prefix)), None)


def environment_class(game: str) -> type:
    """The game's environment class, named after its module; ImportError or ValueError when there is none."""
    if not game.isidentifier():
        raise ValueError(f"invalid synthetic game name {game!r}")
    module = importlib.import_module(f"{PACKAGE}.{game}")
    name = "".join(part[:1].upper() + part[1:] for part in game.split("_")) + "Environment"
    cls = getattr(module, name, None)
    if not isinstance(cls, type):
        raise ValueError(f"the synthetic game {game} has no class {name}")
    return cls


@cache
def spec(game: str) -> GameSpec:
    """The game's facts, as its module declares them."""
    cls = environment_class(game)
    prefix = prefix_of(game)
    generated = prefix is not None
    return GameSpec(
        name=game,
        source=PREFIXES[prefix] if generated else "synth",
        module=f"{PACKAGE}.{game}",
        score_cap=float(cls.score_cap),
        max_steps=min(int(getattr(cls, "max_steps", MAX_STEPS)), MAX_STEPS),
        description=description(game),
        reference="" if generated else f"minatar_synth:references/{game}.txt",
        compiled="generated" if generated else game,  # a claim: the engine plays a twin only if it follows the module
        task_name=task_name(game),
    )


def task_name(game: str) -> str:
    """The game's name in its task id: a generated game's seed (`gen_00100` -> `00100`), else its own name."""
    return game.removeprefix(prefix_of(game) or "")


CALIBRATION_EPISODES = 1000  # the scripted player's episodes that set a cap (tasks/minatar.py: which ones)
CAP_SOURCE = "players"  # where the synthetic and generated games' caps come from: "players" (a synthetic game's
# scripted player, a generated game's trained network x CAP_FACTOR in baselines/generated.py) or "bound" (each
# game's hindsight bound, minatar_synth/bound.json: issue 48); benchmarks/calibrate_bound.py --ship sets "bound"


def cap_rule(mean: float) -> float:
    """A game's cap from the mean return that sets it (CAP_SOURCE: the scripted player's on CALIBRATION_EPISODES
    calibration episodes, seeds disjoint from scoring and training, or the hindsight bound's), rounded up to two
    significant figures (44.43 -> 45, 3607 -> 3700). Under a bound a policy passes 1.0 only where the search fell
    short of the best play; the scripted player reads the game's hidden state, so a network may not reach its cap
    either (docs/validity.md)."""
    if not mean > 0:
        raise ValueError(f"a cap needs a positive mean, not {mean}")
    exponent = math.floor(math.log10(mean)) - 1
    return round(math.ceil(mean / 10.0**exponent) * 10.0**exponent, max(0, -exponent))


def description(game: str) -> str:
    """The first line of the game module's docstring."""
    module = importlib.import_module(f"{PACKAGE}.{game}")
    lines = (module.__doc__ or "").strip().splitlines()
    return lines[0] if lines else ""


def available_games() -> list[str]:
    """Names of the hand-written games' modules shipped in `minatar_synth.games`, sorted: a private set's games are
    the ones its set.json lists (`add_games`; `wspbench/tasks/reading_set.py`), never another file of its folder."""
    return [name for name in _shipped() if prefix_of(name) is None]


def generated_games() -> list[str]:
    """Names of the generated games' modules shipped in `minatar_synth.games` (`gen_<seed>`), sorted: a private
    set's games, importable from their own folder (`add_games`), are not the public family's."""
    return [name for name in _shipped() if prefix_of(name) == GENERATED]


def hard_games() -> list[str]:
    """Names of the hard family's modules shipped in `minatar_synth.games` (`hard_<seed>`), sorted."""
    return [name for name in _shipped() if prefix_of(name) == HARD]


def _shipped() -> list[str]:
    """Every game module shipped in `minatar_synth.games`, sorted."""
    package = importlib.import_module(PACKAGE)
    return _modules([str(Path(package.__file__).parent)])


class GameFinder(importlib.abc.MetaPathFinder):
    """Imports the game modules a private set (or a calibration, or a test) declares, each from its own file, as
    `minatar_synth.games.<name>`: only the names given (`add_games`), so that no other file of their folder is
    ever imported, and without changing the package's path."""

    def __init__(self):
        self.files: dict[str, Path] = {}

    def find_spec(self, fullname, path=None, target=None):
        found = self.files.get(fullname)
        return None if found is None else importlib.util.spec_from_file_location(fullname, found)


FINDER = GameFinder()
sys.meta_path.append(FINDER)  # after the standard finders: a shipped game of the same name is the one imported


def add_games(folder: Path | str, games: list[str]) -> None:
    """Let these games of `folder` (`<folder>/<game>.py`) import as `minatar_synth.games.<game>` in this process
    (a private set's games, a calibration's, a test's); nothing is written to the package."""
    for game in games:
        if not game.isidentifier():
            raise ValueError(f"invalid game module name {game!r:.40}")
        FINDER.files[f"{PACKAGE}.{game}"] = Path(folder) / f"{game}.py"
    importlib.invalidate_caches()


@contextmanager
def borrowed(folder: Path | str, game: str) -> Iterator[None]:
    """Let the module `game` in `folder` import as `minatar_synth.games.<game>` for a while (a calibration's module,
    with a placeholder cap), then forget it, so that the game's final module, elsewhere, is the one loaded next."""
    add_games(folder, [game])
    try:
        yield
    finally:
        FINDER.files.pop(f"{PACKAGE}.{game}", None)
        sys.modules.pop(f"{PACKAGE}.{game}", None)
        spec.cache_clear()


def _modules(path: list[str] | None = None) -> list[str]:
    found = pkgutil.iter_modules(path or importlib.import_module(PACKAGE).__path__)
    return sorted(info.name for info in found if not info.name.startswith("_"))


def observation(state: np.ndarray) -> np.ndarray:
    if state.shape != (10, 10, 6):
        raise ValueError(f"invalid synthetic state shape {state.shape}")
    return state.astype(np.float32).reshape(600)


def observations(states: list[np.ndarray]) -> np.ndarray:
    for state in states:
        if state.shape != (10, 10, 6):
            raise ValueError(f"invalid synthetic state shape {state.shape}")
    return np.stack(states).astype(np.float32).reshape(len(states), 600)
