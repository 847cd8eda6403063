"""The OpenEnv server's grading processes (no openenv-core needed): a grade past its time limit is cut
and its worker replaced, a grader's failure is a result, and results equal the task's own grade."""

from __future__ import annotations

import json
import time

from wspbench.evaluation import ONE_WORKER
from wspbench.export.grade_pool import GradePool
from wspbench.tasks import get_task
from wspbench.tasks.spec import Score


def without_seconds(result: dict) -> dict:
    return {key: value for key, value in result.items() if key != "seconds"}


def expected(task, answer: str, episodes: int) -> dict:
    """The task's own grade, as JSON carries it from a worker."""
    return without_seconds(
        json.loads(json.dumps(task.grade(answer, task.scoring_episodes(episodes), ONE_WORKER).to_json()))
    )


def test_a_slow_grade_is_cut_and_the_pool_recovers():
    breakout, superbeam = get_task("original/breakout"), get_task("superbeam")
    pool = GradePool(1, timeout_s=1.0)
    try:
        started = time.monotonic()
        slow = pool.grade(breakout, 20_000, breakout.offline_answer("reference"))
        assert slow["normalized"] == 0.0 and "longer than the server's limit of 1 s" in slow["error"]
        assert time.monotonic() - started < 180  # hang bound (includes starting the worker)
        # the new worker has loaded every family before it said it was ready: a short grade fits in 1 s
        answer = superbeam.offline_answer("reference")
        again = pool.grade(superbeam, 1, answer)
        assert without_seconds(again) == expected(superbeam, answer, 1) and Score.from_json(again).error is None
        broken = pool.grade(breakout, 0, "")  # no such episode count: the worker says why and lives on
        assert broken["normalized"] == 0.0 and broken["error"].startswith("grading failed: ")
        assert "over the limit" in pool.grade(breakout, 2, "x" * 1_000_001)["error"]
    finally:
        pool.close()


def test_results_are_the_tasks_own_scores():
    breakout, superbeam = get_task("original/breakout"), get_task("superbeam")
    pool = GradePool(1, timeout_s=300.0)
    try:
        answer = breakout.offline_answer("reference")
        assert without_seconds(pool.grade(breakout, 2, answer)) == expected(breakout, answer, 2)
        rejected = pool.grade(superbeam, 1, "no weights")
        assert rejected["task"] == "superbeam" and "no JSON object" in rejected["error"]
        assert rejected == json.loads(json.dumps(superbeam.grade("no weights").to_json()))
    finally:
        pool.close()
