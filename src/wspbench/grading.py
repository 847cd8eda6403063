"""Grade an answer on a MinAtar task: parse, evaluate, score. What `wsp grade` and the verifier call.

The result is the reference grader's metadata dict (DESIGN 3): a failure is a value with an `error`
message, never an exception, so one bad answer cannot crash a batch.
"""

from __future__ import annotations

import time

import numpy as np

from wspbench.answers import AnswerError, parse_edits
from wspbench.evaluation import EpisodeResults, evaluate
from wspbench.evaluation.engine import Progress
from wspbench.tasks import MinAtarTask


def grade_answer(task: MinAtarTask, answer: str, episodes: int = 1000, engine: str = "fast",
                 workers: int | None = None, progress: Progress | None = None) -> dict:
    """`{"normalized_score", game, source, episodes, parse_success, raw_score, score_cap,
    mean_episode_length, edit_count, nonzero_weights}`, or the first five and `error`."""
    result, _ = grade_answer_with_episodes(task, answer, episodes, engine, workers, progress)
    return result


def grade_answer_with_episodes(task: MinAtarTask, answer: str, episodes: int = 1000, engine: str = "fast",
                               workers: int | None = None, progress: Progress | None = None
                               ) -> tuple[dict, EpisodeResults | None]:
    """`grade_answer`, plus every episode's return and length (None when grading failed)."""
    head = {"normalized_score": 0.0, "game": task.game, "source": task.source, "episodes": episodes,
            "parse_success": 0.0}
    try:
        weights, edit_count = parse_edits(answer, task.network)
    except AnswerError as error:
        return {**head, "error": str(error)}, None
    try:
        cap = task.score_cap
        started = time.perf_counter()
        run = evaluate(task, weights, episodes, engine=engine, workers=workers, progress=progress)
        seconds = time.perf_counter() - started
    except Exception as error:  # a broken game module or an unknown game is a result, not a crash
        return {**head, "error": f"evaluation failed: {type(error).__name__}: {error}"}, None
    result = {
        **head,
        "normalized_score": task.normalize(run.raw_score),
        "parse_success": 1.0,
        "raw_score": run.raw_score,
        "score_cap": cap,
        "mean_episode_length": run.mean_length,
        "edit_count": edit_count,
        "nonzero_weights": sum(int(np.count_nonzero(value)) for value in weights.values()),
        "seconds": round(seconds, 3),
    }
    return result, run
