"""MinAtar weight tasks: a 10x10x6 grid game played by the 600-32-32-6 tanh network (DESIGN 3).

Episode `e` seeds the environment with 1729 + e and the action sampler with RandomState(7919 + e), and
lasts at most 10,000 steps. The score is the mean return, normalised by the game's cap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wspbench.games import minatar_original, synth
from wspbench.networks import MINATAR_NETWORK, Network

EPISODE_SEED = 1729
ACTION_SEED = 7919
MAX_STEPS = 10_000
SOURCES = ("original", "synth")


@dataclass(frozen=True)
class MinAtarTask:
    """One game from one source ("original": the `minatar` package; "synth": `minatar_synth`)."""

    game: str
    source: str = "original"

    network: Network = MINATAR_NETWORK
    answer_format: str = "edits"

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r} (sources: {', '.join(SOURCES)})")

    @property
    def task_id(self) -> str:
        return f"minatar/{self.source}/{self.game}"

    def make_environment(self):
        if self.source == "original":
            return minatar_original.make_environment(self.game)
        return synth.environment_class(self.game)(sticky_action_prob=0.1)

    def start_episode(self, episode: int):
        """A fresh environment and action generator for episode `episode`, reset and ready."""
        environment = self.make_environment()
        environment.seed(EPISODE_SEED + episode)
        action_random = np.random.RandomState(ACTION_SEED + episode)
        environment.reset()
        return environment, action_random

    def restart_episode(self, environment, action_random, episode: int):
        """`start_episode`, reusing a finished episode's objects where that is exactly equivalent.

        Reseeding a RandomState in place gives the same stream as a new one (in 1 us rather than 100), and
        an original MinAtar game's `reset()` sets every field of the game; the wrapper's last action is the
        one thing to clear. Synthetic games get a fresh environment, as the reference makes them.
        """
        action_random.seed(ACTION_SEED + episode)
        if self.source != "original":
            environment = self.make_environment()
            environment.seed(EPISODE_SEED + episode)
        else:
            environment.random.seed(EPISODE_SEED + episode)  # the generator the game shares with its wrapper
            environment.last_action = 0
        environment.reset()
        return environment, action_random

    def observation(self, state: np.ndarray) -> np.ndarray:
        if self.source == "original":
            return minatar_original.observation(self.game, state)
        return synth.observation(state)

    def observations(self, states: list[np.ndarray]) -> np.ndarray:
        if self.source == "original":
            return minatar_original.observations(self.game, states)
        return synth.observations(states)

    @property
    def score_cap(self) -> float:
        if self.source == "original":
            if self.game not in minatar_original.ORIGINAL_SCORE_CAPS:
                raise ValueError(f"unknown original MinAtar game {self.game!r}")
            return minatar_original.ORIGINAL_SCORE_CAPS[self.game]
        return float(synth.environment_class(self.game).score_cap)

    def normalize(self, raw_score: float) -> float:
        cap = self.score_cap
        return min(max(raw_score, 0.0), cap) / cap


def all_minatar_tasks() -> list[MinAtarTask]:
    """Every MinAtar task: the five original games, then the synthetic suite."""
    originals = [MinAtarTask(game, "original") for game in minatar_original.ORIGINAL_CHANNEL_GROUPS]
    return originals + [MinAtarTask(game, "synth") for game in synth.available_games()]
