"""The SUPERBEAM family: one task, `superbeam`, a CHIP-8 platformer played by an 8-16-6 ReLU network
written as JSON. Episodes are level seeds: training levels for feedback, held-out test levels for the
score (the fraction of levels won; mean progress breaks ties between training candidates).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from wspbench.networks import SUPERBEAM_NETWORK, Weights
from wspbench.tasks.spec import AnswerError, Game, Progress, Protocol, Score, Task

PROMPT_VERSION = "superbeam-v1"


class SuperbeamTask(Task):
    id = "superbeam"
    family = "superbeam"
    network = SUPERBEAM_NETWORK
    answer_format = "json"
    prompt_version = PROMPT_VERSION

    @cached_property
    def _sb(self):
        from superbeam import task

        return task

    @property
    def default_episodes(self) -> int:
        return len(self._sb.TEST_LEVELS)

    @cached_property
    def game(self) -> Game:
        from superbeam.env import ACTIONS
        from superbeam.features import FEATURE_NAMES

        sb = self._sb
        return Game("superbeam", "A CHIP-8 platformer: run right, jump gaps and pipes, avoid walkers, reach the flag.",
                    1.0, sb.MAX_FRAMES // sb.FRAME_SKIP, (len(FEATURE_NAMES),), tuple(FEATURE_NAMES), tuple(ACTIONS), "superbeam/env.py")

    def messages(self, protocol: Protocol = Protocol()) -> list[dict]:
        return [{"role": "system", "content": self._sb.SYSTEM}, {"role": "user", "content": self._sb.task_prompt()}]

    def game_source(self) -> str:
        from importlib.resources import files

        return (files("superbeam") / "env.py").read_text()

    def read(self, text: str) -> tuple[Weights, dict]:
        try:
            return self._sb.parse_answer(text), {}
        except self._sb.AnswerError as error:
            raise AnswerError(str(error)) from None

    def parse_feedback(self, error: str) -> str:
        return self._sb.feedback({"error": error})

    def offline_answer(self, model: str) -> str | None:
        import json

        if model == "zero":
            weights = self.network.zeros()
        elif model == "reference":
            weights = self._sb.reference_weights()
        else:
            return None
        body = json.dumps({name: weights[name].tolist() for name in self._sb.KEYS})
        return f"The {model} network.\n```json\n{body}\n```\n"

    def scoring_episodes(self, count: int | None = None) -> list[int]:
        levels = list(self._sb.TEST_LEVELS)
        count = len(levels) if count is None else count
        if not 1 <= count:
            raise ValueError("choose at least 1 held-out level")
        return levels[:count]

    def training_episodes(self, count: int) -> list[int]:
        return list(self._sb.TRAIN_LEVELS)

    def play(self, weights: Weights, episodes: Sequence[int], engine: str = "auto", workers: int | None = None,
             progress: Progress | None = None) -> tuple[list[float], list[int], dict]:
        result = self._sb.score(weights, list(episodes), progress=None if progress is None else lambda _: progress(1))
        detail = result["detail"]
        values = [1.0 if level["won"] else 0.0 for level in detail]
        lengths = [level["frames"] // self._sb.FRAME_SKIP for level in detail]
        return values, lengths, {"won": result["won"], "levels": result["levels"],
                                 "mean_progress": result["mean_progress"], "detail": detail}

    def watch(self, weights: Weights, episode: int, observe) -> tuple[float, int, dict]:
        raise NotImplementedError("moving into this module")

    def train_key(self, score: Score) -> tuple:
        return (score.metadata.get("won", 0), score.metadata.get("mean_progress", 0.0))

    def feedback(self, score: Score) -> str:
        if score.error:
            return self.parse_feedback(score.error)
        return self._sb.feedback({**score.metadata, "error": None})

    def seeds(self, protocol: Protocol = Protocol()) -> dict:
        return {**super().seeds(protocol), "difficulty": self._sb.DIFFICULTY}


def tasks() -> list[Task]:
    return [SuperbeamTask()]
