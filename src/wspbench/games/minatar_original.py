"""The five original MinAtar games (the `minatar` package), mapped onto the six shared channels.

ORIGINALS declares each game once (its `GameSpec`). Each game has its own channels; an output channel is on
where any of its OR-group's source channels is on. Channels: 0 player, 1 danger, 2 reward, 3 projectile,
4 trail, 5 gauge.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import numpy as np

from wspbench.games.spec import MAX_STEPS, GameSpec


def _original(name: str, cap: float, description: str, groups, max_steps: int = MAX_STEPS) -> GameSpec:
    """An original game: its module in `minatar`, its reference program in `wspbench/references`, and its compiled
    twin, named like the game."""
    module, reference = f"minatar.environments.{name}", f"wspbench:references/{name}.txt"
    return GameSpec(name, "original", module, cap, max_steps, description, reference, groups, compiled=name)


# name, cap, description, channel groups (shared channel -> the game's own channels) and, if lower, the length
ORIGINALS: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        _original(
            "asterix",
            1_000.0,
            "Move in four directions to collect gold and dodge enemies that cross the rows.",
            ((0,), (1,), (3,), (), (2,), ()),
        ),
        _original(
            "breakout",
            1_000.0,
            "Move a paddle to keep a ball bouncing into a wall of bricks.",
            ((0,), (), (3,), (1,), (2,), ()),
        ),
        _original(
            "freeway",
            100.0,
            "Cross ten lanes of traffic to the top as often as possible in 2,500 frames.",
            ((0,), (1,), (), (), (2, 3, 4, 5, 6), ()),
            max_steps=2501,  # the others end only by losing (or the engines' cap)
        ),
        _original(
            "seaquest",
            1_000.0,
            "Pilot a submarine: shoot enemies, rescue divers and surface before oxygen runs out.",
            ((0, 1), (5, 6, 4), (5, 6, 9), (2,), (3, 1), (7, 8)),
        ),
        _original(
            "space_invaders",
            1_000.0,
            "Move a cannon and shoot a descending fleet of aliens that shoots back.",
            ((0,), (1, 5), (1,), (4,), (2, 3), ()),
        ),
    )
}


def spec(game: str) -> GameSpec:
    if game not in ORIGINALS:
        raise ValueError(f"unknown original MinAtar game {game!r} (games: {', '.join(ORIGINALS)})")
    return ORIGINALS[game]


class Environment:
    """A game of the `minatar` package played exactly as `minatar.Environment` plays it (the reference's wrapper):
    sticky actions with probability `sticky_action_prob`, repeating the last action taken, one generator shared by
    the wrapper and the game (`seed`), no difficulty ramping. The game is the package's own module, loaded from its
    source file alone (`game_module`): importing the package runs its display code's imports (seaborn, matplotlib,
    scipy: about a second), which playing does not need. tests/evaluation/test_engine.py plays it beside
    `minatar.Environment` step by step."""

    def __init__(self, game: str, sticky_action_prob: float):
        self.env = game_module(game).Env(ramping=False)
        self.random = np.random.RandomState()  # replaced by `seed`, as the reference's is
        self.sticky_action_prob = sticky_action_prob
        self.last_action = 0

    def seed(self, seed: int | None = None) -> None:
        if seed is not None:
            self.random = np.random.RandomState(seed)
            self.env.random = self.random

    def act(self, action: int):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        return self.env.act(action)

    def state(self) -> np.ndarray:
        return self.env.state()

    def reset(self) -> None:
        self.env.reset()


def make_environment(game: str, sticky_action_prob: float) -> Environment:
    """A fresh game as the reference makes it: sticky actions (STICKY_ACTION_PROB of `minatar.py`, which passes
    it), no difficulty ramping."""
    return Environment(game, sticky_action_prob)


def source_file(game: str) -> Path:
    """The game's source file in the installed `minatar` package, found without importing the package."""
    return spec(game).source_file


@cache
def game_module(game: str):
    """The game's module of the `minatar` package, loaded from `source_file` alone (it imports only numpy)."""
    found = importlib.util.spec_from_file_location(f"_minatar_{game}", source_file(game))
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


@cache
def own_facts(game: str) -> tuple[dict[str, int], tuple[int, ...]]:
    """The game's own channels (`self.channels`) and `minimal_action_set()`, read from its `Env` class
    (tests/evaluation/test_engine.py checks them against `minatar`'s)."""
    env = game_module(game).Env(ramping=False)
    return dict(env.channels), tuple(int(a) for a in env.minimal_action_set())


def observation(game: str, state: np.ndarray) -> np.ndarray:
    """One state as the 600 network inputs, regrouped exactly as the reference does."""
    channels = np.zeros((10, 10, 6), dtype=np.float32)
    for output_channel, source_channels in enumerate(spec(game).channel_groups):
        if source_channels:
            channels[:, :, output_channel] = np.any(state[:, :, source_channels], axis=2)
    return channels.reshape(600)


@cache
def group_matrix(game: str, source_channels: int) -> np.ndarray:
    """A 0/1 matrix G with G[s, o] = 1 when source channel s belongs to output channel o's group."""
    matrix = np.zeros((source_channels, 6), dtype=np.float32)
    for output_channel, group in enumerate(spec(game).channel_groups):
        matrix[list(group), output_channel] = 1.0
    return matrix


def observations(game: str, states: list[np.ndarray]) -> np.ndarray:
    """Many states at once, (B, 600): the same values as `observation`, one product instead of loops."""
    stacked = np.stack(states)
    batch, _, _, source_channels = stacked.shape
    grouped = stacked.reshape(batch * 100, source_channels).astype(np.float32) @ group_matrix(game, source_channels)
    return (grouped > 0).astype(np.float32).reshape(batch, 600)
