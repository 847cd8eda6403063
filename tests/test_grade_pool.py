"""The OpenEnv server's grading processes (no openenv-core needed): a grade past its time limit is cut
and its worker replaced, a grader's failure is a result, and results equal `wsp grade`'s."""

from __future__ import annotations

import time

from wspbench.export.catalog import task_info
from wspbench.export.grade_pool import GradePool
from wspbench.grading import grade_answer


def test_a_slow_grade_is_cut_and_the_pool_recovers():
    pool = GradePool(1, timeout_s=1.0)
    try:
        info = task_info("original/breakout", 2)
        answer = info.reference_answer()
        started = time.monotonic()
        slow = pool.grade("original/breakout", 20_000, answer)
        assert slow["normalized_score"] == 0.0 and "longer than the server's limit of 1 s" in slow["error"]
        assert time.monotonic() - started < 180  # hang bound (includes starting the worker)
        again = pool.grade("original/breakout", 2, answer)
        expected = grade_answer(info.minatar_task, answer, 2, workers=1)
        assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in expected.items() if k != "seconds"}
        broken = pool.grade("original/nope", 2, answer)
        assert broken["normalized_score"] == 0.0 and broken["error"].startswith("grading failed: ")
        assert "over the limit" in pool.grade("original/breakout", 2, "x" * 1_000_001)["error"]
    finally:
        pool.close()
