"""Every engine reproduces the reference grader's results on the conformance data, exactly."""

import json

import pytest

from tests.conftest import DATA
from wspbench.answers import parse_edits
from wspbench.evaluation import Grading, evaluate
from wspbench.games.minatar import MinAtarGame
from wspbench.tasks import get_task
from wspbench.verifier import grade_answer

pytestmark = pytest.mark.slow  # every engine on the conformance data: minutes

EXPECTED = json.loads((DATA / "minatar_original_expected.json").read_text())
EPISODES = json.loads((DATA / "minatar_original_episodes.json").read_text())
GAMES = sorted(EXPECTED["results"])


@pytest.mark.parametrize("engine", ["compiled", "fast", "reference"])
@pytest.mark.parametrize("game", GAMES)
def test_grades_equal_reference(game, engine, answers):
    for name, expected in sorted(EXPECTED["results"][game].items()):
        result = grade_answer(
            get_task(f"original/{game}"), answers[name], EXPECTED["episodes"], Grading(engine=engine, workers=2)
        )
        if expected.get("error"):
            assert result["normalized_score"] == 0.0 and result["parse_success"] == 0.0, name
            assert result["error"], name
        else:
            got = {key: result[key] for key in expected}
            assert got == expected, name


@pytest.mark.parametrize("engine", ["compiled", "fast", "reference"])
@pytest.mark.parametrize("game", sorted(EPISODES["episodes_by_answer"]))
def test_episodes_equal_reference(game, engine, answers):
    for name, expected in EPISODES["episodes_by_answer"][game].items():
        weights, _ = parse_edits(answers[name])
        run = evaluate(MinAtarGame(game), weights, EPISODES["episodes"], engine=engine, workers=2)
        assert list(run.returns) == expected["returns"], name
        assert list(run.lengths) == expected["lengths"], name
