"""A MinAtar game as the engines play it: its environment, its 600 network inputs, its seeds and its cap.

Three sources share one shape: "original" (the five games of the `minatar` package, regrouped onto the six
shared channels by `minatar_original.py`), "synth" (the hand-written modules of `minatar_synth.games`, read by
`synth.py`) and "gen" (the generated ones, `gen_<seed>`, played the same way). Episode `e` seeds the game
with EPISODE_SEED + e and the action sampler with RandomState(ACTION_SEED + e), and lasts at most MAX_STEPS
steps (a game may end it sooner). Every game repeats the previous action instead of the chosen one with
probability STICKY_ACTION_PROB.

A game's facts are its `GameSpec` (`spec.py`), declared once: `game_spec(name)` finds it. The prompt
(`wspbench/tasks/minatar_prompt.py`), the task's `Game` (`wspbench/tasks/minatar.py`) and the engines read
them from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from wspbench.games import minatar_original, synth
from wspbench.games.spec import MAX_STEPS, GameSpec  # noqa: F401 - MAX_STEPS: kept importable from here
from wspbench.networks import MINATAR_NETWORK, Network

EPISODE_SEED = 1729
ACTION_SEED = 7919
SECRET_EPISODES = (1_000_000, 2**30)  # (first, count): where a run's secret draws held-out episodes from
# (`wspbench/tasks/held_out.py`), apart from scoring, training and calibration; every seed stays below 2**31
STICKY_ACTION_PROB = 0.1
CHANNEL_NAMES = ("player", "danger", "reward", "projectile", "trail", "gauge")
ACTION_NAMES = ("no-op", "left", "up", "right", "down", "fire")


class _Original:
    """How the `minatar` package's games are made and observed (sticky actions, no difficulty ramping)."""

    seed_source = "original"

    games = staticmethod(lambda: list(minatar_original.ORIGINALS))
    spec = staticmethod(minatar_original.spec)

    @staticmethod
    def make_environment(game: str):
        return minatar_original.make_environment(game, STICKY_ACTION_PROB)

    observation = staticmethod(minatar_original.observation)
    observations = staticmethod(minatar_original.observations)

    @staticmethod
    def acting_actions(game: str) -> tuple[int, ...] | None:
        return minatar_original.own_facts(game)[1]

    @staticmethod
    def task_name(game: str) -> str:
        return game

    @staticmethod
    def restart(environment, game: str, episode: int):
        """An original game's `reset()` sets every field of the game; the wrapper's last action is the one
        thing to clear, and its generator (shared with the game) is reseeded in place."""
        environment.random.seed(EPISODE_SEED + episode)
        environment.last_action = 0
        return environment


class _Synth:
    """How `minatar_synth.games.<game>` modules are made and observed: they produce the six channels themselves."""

    seed_source = "synth"  # the seed grader reads every module of `minatar_synth.games`, generated ones too

    games = staticmethod(synth.available_games)
    spec = staticmethod(synth.spec)

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
    def acting_actions(game: str) -> tuple[int, ...] | None:
        return None  # the synthetic games say it in their docstrings

    task_name = staticmethod(synth.task_name)

    @staticmethod
    def restart(environment, game: str, episode: int):
        """A fresh environment, as the reference makes one for every episode."""
        environment = _Synth.make_environment(game)
        environment.seed(EPISODE_SEED + episode)
        return environment


class _Generated(_Synth):
    """Generated games (`minatar_synth/generator.py`): modules of `minatar_synth.games`, played as the synthetic
    games are; their task ids name the seed (`synth.task_name`)."""

    games = staticmethod(synth.generated_games)


class _Hard(_Synth):
    """The hard family's games (`generator.hard_design`, issue 49), played as the other generated games."""

    games = staticmethod(synth.hard_games)


SOURCES = {"original": _Original, "synth": _Synth, "gen": _Generated, "hard": _Hard}
HAND_WRITTEN = ("original", "synth")  # the games reading tasks show, with reference programs


@cache
def game_specs() -> dict[str, GameSpec]:
    """Every shipped game's spec by name: the five original games, the synthetic suite, the generated games."""
    specs = [kind.spec(game) for kind in SOURCES.values() for game in kind.games()]
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ValueError(f"two games share a name: {sorted(n for n in names if names.count(n) > 1)}")
    return {spec.name: spec for spec in specs}


def game_spec(name: str) -> GameSpec:
    """A shipped game's spec (ValueError for an unknown name)."""
    specs = game_specs()
    if name not in specs:
        raise ValueError(f"unknown MinAtar game {name!r} (games: {', '.join(specs)})")
    return specs[name]


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
    def spec(self) -> GameSpec:
        """The game's facts (read from its source's table or module: a test's own synthetic game works too)."""
        return self.kind.spec(self.game)

    @property
    def task_id(self) -> str:
        return f"{self.source}/{self.kind.task_name(self.game)}"

    @property
    def seed_source(self) -> str:
        """The source the seed grader (`verifier.py`) knows the game by: "original" or "synth"."""
        return self.kind.seed_source

    @property
    def compiled(self) -> bool:
        """Whether `wspbench/evaluation/compiled/` has an exact compiled twin of the game."""
        return self.spec.compiled is not None

    @property
    def score_cap(self) -> float:
        return self.spec.score_cap

    @property
    def max_steps(self) -> int:
        return self.spec.max_steps

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def source_path(self) -> str:
        return self.spec.source_path

    def source_text(self) -> str:
        """The exact text of the game's source file (what prompts show and the suite digest covers)."""
        return self.spec.source_file.read_text()

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


def all_games(sources: tuple[str, ...] = HAND_WRITTEN) -> list[MinAtarGame]:
    """The MinAtar games of these sources, in order: by default the hand-written ones (the five original games,
    then the synthetic suite), which the reading tasks show; `tuple(SOURCES)` adds the generated games."""
    return [MinAtarGame(game, source) for source in sources for game in SOURCES[source].games()]


def seed_name(game: str, source: str) -> str:
    """The registry's name for the game the seed grader names by `source` and `game`: `source/game`, but a generated
    game's module name (`gen_00100`, task gen/00100) where the seed grader reads it as source synth."""
    return game if source == _Generated.seed_source and game.startswith(synth.GENERATED) else f"{source}/{game}"
