"""Synthetic games: any module `minatar_synth.games.<game>` that keeps the module contract.

The contract: exactly one class whose name ends in `Environment`, defined in the module, with a
class attribute `score_cap` and `__init__(self, sticky_action_prob=0.1)`; `seed`, `reset`, `state()` ->
(10, 10, 6) bool array, `act(action)` -> (reward, terminal). A shipped game's `score_cap` keeps `cap_rule`.
"""

from __future__ import annotations

import importlib
import math
import pkgutil

import numpy as np

PACKAGE = "minatar_synth.games"


def environment_class(game: str) -> type:
    """The game's single `...Environment` class; ImportError or ValueError when there is none."""
    if not game.isidentifier():
        raise ValueError(f"invalid synthetic game name {game!r}")
    module = importlib.import_module(f"{PACKAGE}.{game}")
    candidates = [
        value
        for name, value in vars(module).items()
        if name.endswith("Environment") and isinstance(value, type) and value.__module__ == module.__name__
    ]
    if len(candidates) != 1:
        raise ValueError(f"expected one environment class for {game}, found {len(candidates)}")
    return candidates[0]


CALIBRATION_EPISODES = 1000  # the scripted player's episodes that set a cap (tasks/minatar.py: which ones)


def cap_rule(scripted_mean: float) -> float:
    """A game's cap: its scripted player's mean return on CALIBRATION_EPISODES calibration episodes (seeds
    disjoint from scoring and training), rounded up to two significant figures (44.43 -> 45, 3607 -> 3700).
    The scripted player reads the game's hidden state, so a network may not reach 1.0 (docs/validity.md)."""
    if not scripted_mean > 0:
        raise ValueError(f"a cap needs a positive scripted mean, not {scripted_mean}")
    exponent = math.floor(math.log10(scripted_mean)) - 1
    return round(math.ceil(scripted_mean / 10.0**exponent) * 10.0**exponent, max(0, -exponent))


def description(game: str) -> str:
    """The first line of the game module's docstring."""
    module = importlib.import_module(f"{PACKAGE}.{game}")
    lines = (module.__doc__ or "").strip().splitlines()
    return lines[0] if lines else ""


def available_games() -> list[str]:
    """Names of the modules in `minatar_synth.games`, sorted."""
    package = importlib.import_module(PACKAGE)
    return sorted(info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_"))


def observation(state: np.ndarray) -> np.ndarray:
    if state.shape != (10, 10, 6):
        raise ValueError(f"invalid synthetic state shape {state.shape}")
    return state.astype(np.float32).reshape(600)


def observations(states: list[np.ndarray]) -> np.ndarray:
    for state in states:
        if state.shape != (10, 10, 6):
            raise ValueError(f"invalid synthetic state shape {state.shape}")
    return np.stack(states).astype(np.float32).reshape(len(states), 600)
