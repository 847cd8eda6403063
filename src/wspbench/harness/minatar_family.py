"""MinAtar tasks in the harness: the prompt's game facts, training episodes with grouped feedback, and
held-out grading through `wspbench.grading.grade_answer` (what `wsp grade` runs).

Training episodes are episode ids TRAIN_EPISODE_OFFSET, TRAIN_EPISODE_OFFSET + 1, ...: the engine seeds
them like any episode (game 1729 + e, actions 7919 + e), so they never share a seed with the scoring
episodes 0..N-1 as long as N <= TRAIN_EPISODE_OFFSET.
"""

from __future__ import annotations

import importlib
import inspect
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from wspbench.answers import AnswerError, parse_edits
from wspbench.evaluation import evaluate
from wspbench.games import minatar_original, synth
from wspbench.grading import grade_answer
from wspbench.harness.base import HarnessTask, TestResult, TrainResult
from wspbench.harness.prompts import (CHANNEL_NAMES, MINATAR_PROMPT_VERSION, MINATAR_SYSTEM, GameFacts,
                                      ProtocolFacts, minatar_parse_feedback, render_minatar)
from wspbench.tasks import MAX_STEPS, MinAtarTask

TRAIN_EPISODE_OFFSET = 100_000
FEEDBACK_GROUPS = 5
ACTION_LETTERS = {0: "no-op", 1: "left", 2: "up", 3: "right", 4: "down", 5: "fire"}


def task_ids() -> list[str]:
    originals = [f"original/{game}" for game in minatar_original.ORIGINAL_CHANNEL_GROUPS]
    return originals + [f"synth/{game}" for game in synth.available_games()]


class MinAtarHarnessTask(HarnessTask):
    family = "minatar"
    prompt_version = MINATAR_PROMPT_VERSION

    def __init__(self, task: MinAtarTask, episodes: int, train_episodes: int, workers: int | None = None,
                 engine: str = "auto"):
        if episodes > TRAIN_EPISODE_OFFSET:
            raise ValueError(f"at most {TRAIN_EPISODE_OFFSET:,} scoring episodes (training seeds start there)")
        self.task, self.episodes, self.train_episodes = task, episodes, train_episodes
        self.workers, self.engine = workers, engine
        self.task_id = f"{task.source}/{task.game}"

    @classmethod
    def from_id(cls, task_id: str, episodes: int, train_episodes: int, workers: int | None = None,
                engine: str = "auto") -> "MinAtarHarnessTask":
        source, _, game = task_id.partition("/")
        return cls(MinAtarTask(game, source), episodes, train_episodes, workers, engine)

    # --- prompt -------------------------------------------------------------------------------------
    def messages(self, protocol: str, rounds: int) -> list[dict]:
        facts = game_facts(self.task.source, self.task.game)
        user = render_minatar(facts, ProtocolFacts(protocol, rounds, self.episodes, self.train_episodes))
        return [{"role": "system", "content": MINATAR_SYSTEM}, {"role": "user", "content": user}]

    # --- replies ------------------------------------------------------------------------------------
    def check(self, answer: str) -> str | None:
        try:
            parse_edits(answer, self.task.network)
        except AnswerError as error:
            return str(error)
        return None

    def parse_feedback(self, error: str) -> str:
        return minatar_parse_feedback(error)

    def train(self, answer: str) -> TrainResult:
        try:
            weights, _ = parse_edits(answer, self.task.network)
            ids = range(TRAIN_EPISODE_OFFSET, TRAIN_EPISODE_OFFSET + self.train_episodes)
            run = evaluate(self.task, weights, ids, engine=self.engine, workers=self.workers)
        except AnswerError as error:
            return TrainResult(0.0, (0.0, float("-inf")), False, self.parse_feedback(str(error)),
                               {"error": str(error)})
        except Exception as error:  # a broken game is a result, not a crash
            message = f"evaluation failed: {type(error).__name__}: {error}"
            return TrainResult(0.0, (0.0, float("-inf")), False, self.parse_feedback(message), {"error": message})
        normalized = self.task.normalize(run.raw_score)
        groups = episode_groups(run.episode_ids, run.returns, run.lengths, self._max_steps())
        result = {"episode_ids": [run.episode_ids[0], run.episode_ids[-1]], "raw_score": run.raw_score,
                  "normalized_score": normalized, "score_cap": self.task.score_cap,
                  "mean_episode_length": run.mean_length, "groups": groups,
                  "returns": list(run.returns), "lengths": list(run.lengths)}
        return TrainResult(normalized, (normalized, run.raw_score), normalized >= 1.0,
                           self._feedback(result), result)

    def _feedback(self, result: dict) -> str:
        first, last = result["episode_ids"]
        lines = [f"Your network on {last - first + 1} training episodes (ids {first}..{last}; the scoring "
                 f"episodes are others): mean return {result['raw_score']:.2f}, normalised score "
                 f"{result['normalized_score']:.4f} (cap {result['score_cap']:g}), mean episode length "
                 f"{result['mean_episode_length']:.1f} steps.", "By group of episodes:"]
        for g in result["groups"]:
            line = (f"  episodes {g['first']}..{g['last']}: mean return {g['mean_return']:.2f} "
                    f"(min {g['min_return']:g}, max {g['max_return']:g}), mean length {g['mean_length']:.1f} steps")
            if g["hit_step_limit"]:
                line += f", {g['hit_step_limit']} ran to the {self._max_steps():,}-step limit"
            lines.append(line)
        lines.append("Improve the weights to score higher. Reply with your reasoning, then the complete network "
                     "in one ```edits block (all weights start at 0 again).")
        return "\n".join(lines)

    def test(self, answer: str) -> TestResult:
        result = grade_answer(self.task, answer, self.episodes, engine=self.engine, workers=self.workers)
        return TestResult(float(result["normalized_score"]), result)

    def weights_record(self, answer: str) -> dict | None:
        try:
            weights, _ = parse_edits(answer, self.task.network)
        except AnswerError:
            return None
        return sparse_weights(weights)

    def offline_answer(self, model: str) -> str:
        if model == "zero":
            return (resources.files("wspbench") / "examples" / "zero.txt").read_text()
        folder = (resources.files("wspbench") / "examples" if self.task.source == "original"
                  else resources.files("minatar_synth") / "references")
        path = folder / f"{self.task.game}.txt"
        if not path.is_file():
            return f"No reference program is shipped for {self.task_id}."
        return path.read_text()

    def seeds(self) -> dict:
        return {"scoring_episodes": [0, self.episodes - 1],
                "training_episodes": [TRAIN_EPISODE_OFFSET, TRAIN_EPISODE_OFFSET + self.train_episodes - 1],
                "episode_seed": "game 1729 + e, actions RandomState(7919 + e)"}

    def _max_steps(self) -> int:
        return game_facts(self.task.source, self.task.game).max_steps


def episode_groups(ids, returns, lengths, max_steps: int, groups: int = FEEDBACK_GROUPS) -> list[dict]:
    """Consecutive groups of training episodes with their mean/min/max return and mean length."""
    out = []
    for part in np.array_split(np.arange(len(ids)), min(groups, len(ids))):
        r = np.asarray(returns)[part]
        n = np.asarray(lengths)[part]
        out.append({"first": int(ids[part[0]]), "last": int(ids[part[-1]]), "mean_return": float(r.mean()),
                    "min_return": float(r.min()), "max_return": float(r.max()), "mean_length": float(n.mean()),
                    "hit_step_limit": int((n >= max_steps).sum())})
    return out


def sparse_weights(weights: dict[str, np.ndarray]) -> dict:
    """Non-zero weights as [index..., value] rows (the networks are sparse programs; all else is 0)."""
    rows = {name: [[*map(int, where), float(tensor[tuple(where)])] for where in np.argwhere(tensor != 0)]
            for name, tensor in weights.items()}
    return {"format": "nonzero", "shapes": {name: list(t.shape) for name, t in weights.items()}, "nonzero": rows}


@lru_cache(maxsize=None)
def game_facts(source: str, game: str) -> GameFacts:
    """Everything the prompt states about a game, read from the game itself."""
    task_id = f"{source}/{game}"
    if source == "original":
        module = importlib.import_module(f"minatar.environments.{game}")
        env = minatar_original.make_environment(game)
        own = {index: name for name, index in env.env.channels.items()}
        mapping = "\n".join(
            f"  {out} {CHANNEL_NAMES[out]} = " + (" OR ".join(own[s] for s in group) if group else "(unused, always 0)")
            for out, group in enumerate(minatar_original.ORIGINAL_CHANNEL_GROUPS[game]))
        channel_notes = (f"In {game} the game's own channels (`self.channels` in its source) are combined into "
                         f"these six: an input channel is on where any of its source channels is on.\n{mapping}")
        used = env.minimal_action_set()
        action_notes = (f"In {game} all six actions do something." if len(used) == 6 else
                        f"In {game} these actions do something: "
                        f"{', '.join(f'{a} {ACTION_LETTERS[a]}' for a in used)}; the others act like no-op.")
        return GameFacts(task_id, game, minatar_original.ORIGINAL_DESCRIPTIONS[game],
                         f"minatar/environments/{game}.py", Path(inspect.getsourcefile(module)).read_text(),
                         channel_notes, action_notes, minatar_original.ORIGINAL_SCORE_CAPS[game],
                         min(minatar_original.ORIGINAL_MAX_STEPS.get(game, MAX_STEPS), MAX_STEPS))
    cls = synth.environment_class(game)
    module = importlib.import_module(cls.__module__)
    return GameFacts(task_id, game, synth.description(game), f"minatar_synth/games/{game}.py",
                     Path(inspect.getsourcefile(module)).read_text(),
                     "The game's state() returns these six channels directly; its docstring says what each holds.",
                     "The game's docstring says which actions do something.", float(cls.score_cap),
                     min(int(getattr(cls, "max_steps", MAX_STEPS)), MAX_STEPS))
