"""A toy task family in one file: "guess the sign", the example of docs/architecture.md.

Every step the game draws a number x in [-1, 1]; the network sees (x, 1) and must choose action 1
("positive") when x > 0, else action 0 ("negative"). An episode is 5 steps seeded by its id; its value is
the fraction of steps answered right, so the cap is 1. The answer is a 2-2 network written as JSON.

To add it to the suite, register it: `register_family("toy", tasks)` (wspbench/tasks/registry.py). Every
command, export and record then knows the task `toy/sign`: nothing else in the project changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from wspbench.evaluation import DEFAULT, Grading
from wspbench.networks import Network, Weights
from wspbench.protocols import ONE_SHOT, Protocol
from wspbench.tasks.spec import AnswerError, Game, GameTask, Score, Step, Task

SIGN_NETWORK = Network(sizes=(2, 2), activation="relu", orientation="x@W", action_rule="argmax", dtype=np.float64)
STEPS = 5
TRAIN_OFFSET = 1_000
MAX_REPLY_CHARS = 10_000


def draws(episode: int) -> np.ndarray:
    """The episode's numbers: the same for every player, fixed by the episode id."""
    return np.random.default_rng(episode).uniform(-1.0, 1.0, STEPS)


class SignTask(GameTask):
    id = "toy/sign"
    network = SIGN_NETWORK
    answer_format = "json"
    prompt_version = "toy-sign-v1"
    default_episodes = 8
    max_episodes = TRAIN_OFFSET
    game = Game(
        name="sign",
        description="Say whether a number is negative or positive.",
        score_cap=1.0,
        max_steps=STEPS,
        input_shape=(2,),
        input_names=("x", "one"),
        action_names=("negative", "positive"),
        source_path="tests/toy_family.py",
    )

    def messages(self, protocol: Protocol = ONE_SHOT) -> list[dict]:
        episodes = len(self.scoring_episodes(protocol.episodes))
        user = (
            f"Write a {self.network.describe()} network (tensors W1 (2, 2) and b1 (2,)) that sees (x, 1) and "
            f"outputs the logits of {self.game.action_names}: choose positive when x > 0. It plays {episodes} "
            f"episodes of {STEPS} steps; the score is the fraction of right answers. Reply with one ```json "
            'block: {"W1": [[.., ..], [.., ..]], "b1": [.., ..]}.'
        )
        return [{"role": "system", "content": "You write network weights by hand."}, {"role": "user", "content": user}]

    def game_source(self) -> str:
        return Path(__file__).read_text()

    def read(self, text: str) -> tuple[Weights, dict]:
        if len(text) > MAX_REPLY_CHARS:
            raise AnswerError(f"the reply has more than {MAX_REPLY_CHARS:,} characters")
        blocks = re.findall(r"```json\s*\n(.*?)```", text, flags=re.DOTALL)
        if not blocks:
            raise AnswerError("no ```json block")
        try:
            data = json.loads(blocks[-1])
            weights = {name: np.array(data[name], dtype=np.float64) for name in ("W1", "b1")}
        except (ValueError, KeyError, TypeError) as error:
            raise AnswerError(f"the JSON block is not a network: {type(error).__name__}") from None
        for name, shape in self.network.shapes.items():
            if weights[name].shape != shape or not np.all(np.isfinite(weights[name])):
                raise AnswerError(f"{name} must be {shape} finite numbers")
        return weights, {}

    def offline_answer(self, model: str) -> str | None:
        networks = {
            "reference": {"W1": [[-1, 1], [0, 0]], "b1": [0, 0]},
            "zero": {"W1": [[0, 0], [0, 0]], "b1": [0, 0]},
        }
        return f"The {model} network.\n```json\n{json.dumps(networks[model])}\n```\n" if model in networks else None

    def scoring_episodes(self, count: int | None = None) -> list[int]:
        count = self.default_episodes if count is None else count
        if count < 1:
            raise ValueError("choose at least 1 scoring episode")
        return list(range(min(count, self.max_episodes)))

    def training_episodes(self, count: int) -> list[int]:
        return list(range(TRAIN_OFFSET, TRAIN_OFFSET + max(1, count)))

    def play(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        values, lengths = [], []
        for episode in episodes:
            value, length, _ = self.watch(weights, episode, lambda step: None)
            values.append(value)
            lengths.append(length)
            if grading.progress:
                grading.progress(1)
        return values, lengths, {}

    def watch(self, weights: Weights, episode: int, observe: Callable[[Step], None]) -> tuple[float, int, dict]:
        right = 0
        for x in draws(episode):
            logits = self.network.forward_one(weights, np.array([x, 1.0]))
            action = int(np.argmax(logits))
            observe(
                Step(
                    screen=np.array([[x <= 0, x > 0]], dtype=np.uint8),
                    logits=logits,
                    action=action,
                    value=right / STEPS,
                )
            )
            right += action == int(x > 0)
        observe(Step(screen=np.zeros((1, 2), dtype=np.uint8), logits=None, action=None, value=right / STEPS))
        return right / STEPS, STEPS, {"outcome": f"{right}/{STEPS} right"}

    def environment(self, episode: int) -> SignEpisode:
        return SignEpisode(episode)

    def write(self, weights: Weights) -> str:
        return f"```json\n{json.dumps({name: weights[name].tolist() for name in ('W1', 'b1')})}\n```\n"

    def feedback(self, score: Score) -> str:
        if score.error:
            return self.parse_feedback(score.error)
        return f"On {len(score.episodes)} training episodes you answered {score.raw:.0%} of the steps right."


class SignEpisode:
    """An episode for a learner: reward 1 for each right answer."""

    def __init__(self, episode: int):
        self.draws, self.step = draws(episode), 0

    def restart(self, episode: int) -> SignEpisode:
        return SignEpisode(episode)

    def observe(self) -> np.ndarray:
        return np.array([self.draws[self.step], 1.0])

    def act(self, action: int) -> tuple[float, bool]:
        right = action == int(self.draws[self.step] > 0)
        self.step += 1
        return float(right), self.step == STEPS


def tasks() -> list[Task]:
    return [SignTask()]
