"""A Score's unclipped value (`Score.unclipped`, raw / cap, in src/wspbench/tasks/spec.py): what the normalised
score, clipped to [0, 1], cannot show; its JSON, and older JSON without it."""

import pytest

from wspbench.tasks import get_task
from wspbench.tasks.spec import Score

ABOVE = Score("synth/ferry", 1.0, 18.5, 18.0, (0, 1), (18.0, 19.0), (500, 500))  # raw 18.5 above the cap of 18


def test_a_score_above_its_cap_is_normalised_to_1_and_unclipped_above_1():
    assert (ABOVE.normalized, ABOVE.unclipped, ABOVE.above_cap) == (1.0, 1.0277777777777777, True)
    data = ABOVE.to_json()
    assert (data["normalized"], data["unclipped"]) == (1.0, 1.0277777777777777)


def test_within_the_cap_unclipped_is_the_normalised_score():
    within = Score("synth/ferry", 0.5, 9.0, 18.0, (0, 1), (8.0, 10.0), (500, 500))
    assert (within.unclipped, within.above_cap) == (0.5, False)
    at_cap = Score("synth/ferry", 1.0, 18.0, 18.0, (0,), (18.0,), (500,))
    assert (at_cap.unclipped, at_cap.above_cap) == (1.0, False)


def test_a_repair_worse_than_the_damaged_network_is_unclipped_below_0():
    """Repair's cap is the mean of its episode caps (the trained network's gain): the reply lost 2 on average
    where the trained network gained 4."""
    worse = Score("repair/x", 0.0, -2.0, 4.0, (0, 1), (-1.0, -3.0), (9, 9), episode_caps=(3.0, 5.0))
    assert (worse.normalized, worse.unclipped, worse.above_cap) == (0.0, -0.5, False)


def test_a_rejected_answer_is_unclipped_0_even_when_its_cap_cannot_be_read():
    for cap in (18.0, 0.0):  # 0: `Task.rejected` of a game that broke before its cap was read
        rejected = Score("synth/ferry", 0.0, 0.0, cap, error="no ```edits block")
        assert (rejected.unclipped, rejected.above_cap, rejected.to_json()["unclipped"]) == (0.0, False, 0.0)


def test_older_score_json_without_unclipped_reads_and_a_stored_one_is_computed_again():
    data = ABOVE.to_json()
    del data["unclipped"]  # as written before it existed
    assert Score.from_json(data) == ABOVE and Score.from_json(data).unclipped == 1.0277777777777777
    assert Score.from_json({**data, "unclipped": 99.0}).unclipped == 1.0277777777777777  # derived: never trusted


def test_a_graded_score_needs_a_cap_to_divide_by_even_without_episodes():
    data = {**ABOVE.to_json(), "episodes": [], "values": [], "lengths": [], "score_cap": 0.0}
    with pytest.raises(ValueError, match="score_cap must be at least"):
        Score.from_json(data)


def test_superbeam_unclipped_is_its_share_of_levels_won():
    """SUPERBEAM's cap is 1 and its raw score the share of levels won: unclipped is the normalised score."""
    task = get_task("superbeam")
    score = task.grade(task.offline_answer("reference"), task.scoring_episodes(4))
    assert score.score_cap == 1.0 and score.unclipped == score.normalized == score.raw
