"""A MinAtar game as the engines play it: its environment, its 600 network inputs, its seeds and its cap.

Two sources share one shape: "original" (the five games of the `minatar` package, regrouped onto the six
shared channels by `minatar_original.py`) and "synth" (the modules of `minatar_synth.games`, read by
`synth.py`). Episode `e` seeds the game with EPISODE_SEED + e and the action sampler with
RandomState(ACTION_SEED + e), and lasts at most MAX_STEPS steps (a game may end it sooner). Every game
repeats the previous action instead of the chosen one with probability STICKY_ACTION_PROB.

Each fact here is written once: the prompt (`wspbench/tasks/minatar_prompt.py`) and the task's `Game`
(`wspbench/tasks/minatar.py`) read them from this module.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wspbench.games import minatar_original, synth
from wspbench.networks import MINATAR_NETWORK, Network

EPISODE_SEED = 1729
ACTION_SEED = 7919
MAX_STEPS = 10_000  # the engines' cap; a game's own `max_steps` may be lower (MinAtarGame.max_steps)
STICKY_ACTION_PROB = 0.1
CHANNEL_NAMES = ("player", "danger", "reward", "projectile", "trail", "gauge")
ACTION_NAMES = ("no-op", "left", "up", "right", "down", "fire")


class _Original:
    """The `minatar` package's games (sticky actions, no difficulty ramping)."""

    compiled = True  # `wspbench/evaluation/compiled/` has an exact compiled twin of each game
    games = staticmethod(lambda: list(minatar_original.ORIGINAL_SCORE_CAPS))

    @staticmethod
    def make_environment(game: str):
        return minatar_original.make_environment(game, STICKY_ACTION_PROB)

    observation = staticmethod(minatar_original.observation)
    observations = staticmethod(minatar_original.observations)

    @staticmethod
    def score_cap(game: str) -> float:
        if game not in minatar_original.ORIGINAL_SCORE_CAPS:
            raise ValueError(f"unknown original MinAtar game {game!r}")
        return minatar_original.ORIGINAL_SCORE_CAPS[game]

    @staticmethod
    def max_steps(game: str) -> int:
        return min(minatar_original.ORIGINAL_MAX_STEPS.get(game, MAX_STEPS), MAX_STEPS)

    @staticmethod
    def description(game: str) -> str:
        return minatar_original.ORIGINAL_DESCRIPTIONS[game]

    @staticmethod
    def module(game: str) -> str:
        return f"minatar.environments.{game}"

    source_file = staticmethod(minatar_original.source_file)

    @staticmethod
    def acting_actions(game: str) -> tuple[int, ...] | None:
        return minatar_original.own_facts(game)[1]

    @staticmethod
    def restart(environment, game: str, episode: int):
        """An original game's `reset()` sets every field of the game; the wrapper's last action is the one
        thing to clear, and its generator (shared with the game) is reseeded in place."""
        environment.random.seed(EPISODE_SEED + episode)
        environment.last_action = 0
        return environment


class _Synth:
    """`minatar_synth.games.<game>`: plain modules that produce the six channels themselves."""

    compiled = False
    games = staticmethod(synth.available_games)

    @staticmethod
    def make_environment(game: str):
        return synth.environment_class(game)(sticky_action_prob=STICKY_ACTION_PROB)

    @staticmethod
    def observation(game: str, state: np.ndarray) -> np.ndarray:
        return synth.observation(state)

    @staticmethod
    def observations(game: str, states: list[np.ndarray]) -> np.ndarray:
        return synth.observations(states)

    @staticmethod
    def score_cap(game: str) -> float:
        return float(synth.environment_class(game).score_cap)

    @staticmethod
    def max_steps(game: str) -> int:
        return min(int(getattr(synth.environment_class(game), "max_steps", MAX_STEPS)), MAX_STEPS)

    description = staticmethod(synth.description)

    @staticmethod
    def module(game: str) -> str:
        return f"{synth.PACKAGE}.{game}"

    @staticmethod
    def source_file(game: str) -> Path:
        return Path(inspect.getsourcefile(importlib.import_module(_Synth.module(game))))

    @staticmethod
    def acting_actions(game: str) -> tuple[int, ...] | None:
        return None  # the synthetic games say it in their docstrings

    @staticmethod
    def restart(environment, game: str, episode: int):
        """A fresh environment, as the reference makes one for every episode."""
        environment = _Synth.make_environment(game)
        environment.seed(EPISODE_SEED + episode)
        return environment


SOURCES = {"original": _Original, "synth": _Synth}


@dataclass(frozen=True)
class MinAtarGame:
    """One game from one source, with everything the engines need to play its episodes exactly."""

    game: str
    source: str = "original"
    network: Network = MINATAR_NETWORK

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r} (sources: {', '.join(SOURCES)})")

    @property
    def kind(self):
        return SOURCES[self.source]

    @property
    def task_id(self) -> str:
        return f"{self.source}/{self.game}"

    @property
    def compiled(self) -> bool:
        return self.kind.compiled

    @property
    def score_cap(self) -> float:
        return self.kind.score_cap(self.game)

    @property
    def max_steps(self) -> int:
        return self.kind.max_steps(self.game)

    @property
    def description(self) -> str:
        return self.kind.description(self.game)

    @property
    def module(self) -> str:
        """The game's module, whose source file is the game's rules."""
        return self.kind.module(self.game)

    @property
    def source_path(self) -> str:
        """The game's source file as prompts name it: `minatar/environments/breakout.py`."""
        return self.module.replace(".", "/") + ".py"

    def source_text(self) -> str:
        """The exact text of the game's source file (what prompts show and the suite digest covers)."""
        return self.kind.source_file(self.game).read_text()

    def make_environment(self):
        return self.kind.make_environment(self.game)

    def acting_actions(self) -> tuple[int, ...] | None:
        """The actions that do something in this game (the environment's `minimal_action_set`), or None where the
        environment does not say (the synthetic games say it in their docstrings)."""
        return self.kind.acting_actions(self.game)

    def start_episode(self, episode: int):
        """A fresh environment and action generator for episode `episode`, reset and ready."""
        environment = self.make_environment()
        environment.seed(EPISODE_SEED + episode)
        action_random = np.random.RandomState(ACTION_SEED + episode)
        environment.reset()
        return environment, action_random

    def restart_episode(self, environment, action_random, episode: int):
        """`start_episode`, reusing a finished episode's objects where that is exactly equivalent (reseeding a
        RandomState in place gives the same stream as a new one, in 1 us rather than 100)."""
        action_random.seed(ACTION_SEED + episode)
        environment = self.kind.restart(environment, self.game, episode)
        environment.reset()
        return environment, action_random

    def observation(self, state: np.ndarray) -> np.ndarray:
        return self.kind.observation(self.game, state)

    def observations(self, states: list[np.ndarray]) -> np.ndarray:
        return self.kind.observations(self.game, states)

    def normalize(self, raw_score: float) -> float:
        cap = self.score_cap
        return min(max(raw_score, 0.0), cap) / cap


def all_games() -> list[MinAtarGame]:
    """Every MinAtar game: the five original ones, then the synthetic suite."""
    return [MinAtarGame(game, source) for source, kind in SOURCES.items() for game in kind.games()]
