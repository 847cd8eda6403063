"""The compiled twins of the synthetic and generated games (issue 39) play exactly as their modules.

All 20 hand-written games and a sample of 21 generated ones step beside their modules with random actions (rewards,
generators and observations compared after every step) and grade sparse, dense and reference answers episode by
episode as `fast` does; a private game generated here is served by the same twin; a module a twin does not follow
exactly plays in Python. `benchmarks/twin_conformance.py` checks every game on more episodes.
"""

import json
import logging
from dataclasses import replace

import numpy as np
import pytest

from minatar_synth import generator
from tests.conftest import DATA
from wspbench.evaluation import Grading, evaluate
from wspbench.evaluation.compiled.differential import first_difference
from wspbench.evaluation.compiled.engine import TWINS, twin_of
from wspbench.evaluation.engine import compiled_twin
from wspbench.games import synth
from wspbench.games.minatar import MinAtarGame, game_specs
from wspbench.tasks import get_task
from wspbench.tasks.minatar import MinAtarTask
from wspbench.verifier import find_task, grade_answer

HAND_WRITTEN = synth.available_games()
GENERATED = synth.generated_games()[::5]
ANSWERS = json.loads((DATA / "answers.json").read_text())
SYNTH_EXPECTED = json.loads((DATA / "synth_expected.json").read_text())


def _source(game: str) -> str:
    return "gen" if game.startswith(synth.GENERATED) else "synth"


@pytest.mark.parametrize("game", HAND_WRITTEN + GENERATED)
def test_each_twin_steps_like_its_module(game):
    task = MinAtarGame(game, _source(game))
    twin = compiled_twin(task)
    assert twin is not None and twin[0] == (game if task.source == "synth" else "generated")
    rng = np.random.default_rng(7)
    for episode in range(6):
        assert first_difference(task, *twin, episode, 1000, rng) is None


@pytest.mark.parametrize("game", HAND_WRITTEN + GENERATED)
def test_compiled_grades_every_episode_as_the_module_plays_it(game):
    task = get_task(game)
    answers = [ANSWERS["sparse_program"], ANSWERS["random_dense_0"], task.offline_reply("reference")]
    for answer in answers:
        python = task.grade(answer, range(8), Grading("fast", 1))
        compiled = task.grade(answer, range(8), Grading("compiled", 1))
        assert python.error is None and (python.values, python.lengths) == (compiled.values, compiled.lengths)


@pytest.mark.parametrize("game", sorted(SYNTH_EXPECTED["results"]))
def test_a_sample_of_synthetic_games_grades_compiled_as_the_seed_grader_grades_it(game):
    """The seed grader's results (benchmarks/generated_conformance.py --games ... --write) for a sample."""
    task = find_task(game, "synth")
    answers = {**ANSWERS, "trained": task.offline_reply("trained")}
    for name, expected in SYNTH_EXPECTED["results"][game].items():
        result = grade_answer(task, answers[name], SYNTH_EXPECTED["episodes"], Grading(engine="compiled", workers=1))
        assert {key: result[key] for key in expected} == expected, name


def test_a_private_game_generated_here_is_served_by_the_generated_twin(tmp_path):
    seed = 987_654
    generator.write(seed, tmp_path, score_cap=9.5)
    name = generator.module_name(seed)
    synth.add_games(tmp_path, [name])
    game = MinAtarGame(name, "gen")
    twin = compiled_twin(game)
    assert twin is not None and twin[0] == "generated"
    rng = np.random.default_rng(1)
    assert all(first_difference(game, *twin, episode, 1000, rng) is None for episode in range(10))
    task = MinAtarTask(game)
    for answer in (ANSWERS["sparse_program"], ANSWERS["random_dense_0"]):
        assert (
            task.grade(answer, range(10), Grading("compiled", 1)).values
            == task.grade(answer, range(10), Grading("fast", 1)).values
        )


@pytest.mark.parametrize("seed, power, bonus", [(0, True, True), (7, True, False), (14, False, True)])
def test_a_hard_game_is_served_by_the_generated_twin(tmp_path, seed, power, bonus):
    """issue 49's new mechanics: pellets that turn the dangers into prey for a while, shown on the gauge; a bonus
    kind on the reward channel, told apart by its motion."""
    name = generator.write(seed, tmp_path, 5.0, "hard").stem
    synth.add_games(tmp_path, [name])
    game, design = MinAtarGame(name, "hard"), generator.design(seed, "hard")
    assert (design.power > 0, design.bonus is not None) == (power, bonus) and game.spec.source == "hard"
    twin = compiled_twin(game)
    assert twin is not None and twin[0] == "generated"
    rng = np.random.default_rng(seed)
    assert all(first_difference(game, *twin, episode, 1000, rng) is None for episode in range(6))
    task = MinAtarTask(game)
    python = task.grade(ANSWERS["random_dense_0"], range(8), Grading("fast", 1))
    compiled = task.grade(ANSWERS["random_dense_0"], range(8), Grading("compiled", 1))
    assert (python.values, python.lengths) == (compiled.values, compiled.lengths)


def test_generated_names_say_their_family():
    assert generator.parse_name("gen_00100") == ("gen", 100)
    assert generator.parse_name("hard_00012") == ("hard", 12)
    assert generator.parse_name("hard_12") is None and generator.parse_name("ferry") is None
    assert generator.design(100).family == "gen" and generator.design(100, "hard").family == "hard"
    assert generator.design(100) != generator.design(100, "hard")  # a hard seed draws from its own stream


def test_a_module_no_twin_follows_plays_in_python_with_one_info_line(tmp_path, caplog):
    seed = 987_655
    name = generator.module_name(seed)
    (tmp_path / f"{name}.py").write_text(generator.generate(seed, 4.0) + "# a user's edit\n")
    synth.add_games(tmp_path, [name])
    game = MinAtarGame(name, "gen")
    weights = MinAtarTask(game).read(ANSWERS["random_dense_0"])[0]
    with caplog.at_level(logging.INFO, logger="wspbench.evaluation.engine"):
        compiled = evaluate(game, weights, 30, engine="compiled", workers=1)
        auto = evaluate(game, weights, 30, workers=1)
    assert compiled == auto == evaluate(game, weights, 30, engine="fast", workers=1)
    assert compiled_twin(game) is None
    assert [r.message for r in caplog.records].count(
        f"gen/{seed}: no compiled twin follows this module exactly; it plays in Python"
    ) == 1
    ferry = game_specs()["ferry"]
    assert twin_of(ferry, ferry.source_file.read_text()) == ("ferry", None)
    assert twin_of(replace(ferry, compiled="breakout"), ferry.source_file.read_text()) is None
    assert twin_of(ferry, ferry.source_file.read_text().replace("SPEEDS = (2, 3)", "SPEEDS = (2, 4)")) is None


def test_every_twin_plays_a_shipped_game():
    claimed = {spec.compiled for spec in game_specs().values()}
    assert set(TWINS) == claimed and len(TWINS) == 5 + 1 + len(HAND_WRITTEN)
