"""Baselines (`src/wspbench/baselines/measured.py`, measured by benchmarks/baselines.py): how they are built, that
the shipped numbers are what the grader gives, and `wsp baselines`."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from wspbench.baselines import measured
from wspbench.cli import app
from wspbench.evaluation import ONE_WORKER
from wspbench.networks import MINATAR_NETWORK, SUPERBEAM_NETWORK
from wspbench.tasks import get_task

RUNNER = CliRunner()


def test_constant_and_random_networks_are_what_the_docstrings_say():
    for network in (MINATAR_NETWORK, SUPERBEAM_NETWORK):
        weights = measured.constant_weights(network, 3)
        out = f"b{network.layers}"
        assert weights[out][3] == measured.CONSTANT_BIAS
        assert sum(np.count_nonzero(w) for w in weights.values()) == 1
        first, again = measured.random_weights(network, 7), measured.random_weights(network, 7)
        assert all(np.array_equal(first[name], again[name]) for name in first)
        for k in range(1, network.layers + 1):
            bound = 1 / np.sqrt(network.sizes[k - 1])
            for name in (f"W{k}", f"b{k}"):
                assert first[name].shape == network.shapes[name] and first[name].dtype == network.dtype
                assert np.abs(first[name]).max() <= np.float32(bound)  # (rounding to float32 is monotonic)
                if first[name].size >= 100:
                    assert np.abs(first[name]).max() > 0.9 * bound  # the whole range is used
    assert not np.array_equal(measured.random_weights(MINATAR_NETWORK, 0)["W1"], first["W1"])


def test_baseline_relative_score_runs_from_the_trivial_baseline_to_the_reference():
    entry = {"zero": {"score": 0.1}, "constant": {"score": 0.2}, "reference": {"score": 0.7}}
    assert measured.trivial(entry) == 0.2
    assert measured.relative(0.2, entry) == 0.0 and measured.relative(0.7, entry) == pytest.approx(1.0)
    assert measured.relative(0.0, entry) == pytest.approx(-0.4)
    assert measured.relative(0.5, {**entry, "reference": {"score": 0.2}}) is None


@pytest.fixture(scope="module")
def shipped():
    data = measured.load()
    if not data.get("tasks"):
        pytest.fail("no baselines shipped: run python benchmarks/baselines.py")
    return data


def test_shipped_baselines_are_current_and_what_the_grader_gives(shipped):
    """A cheap task's zero, constant and first random networks, graded again, give the stored scores exactly."""
    assert all(measured.is_current(task_id, entry) for task_id, entry in shipped["tasks"].items())
    task = get_task("original/breakout")
    entry = shipped["tasks"][task.id]
    episodes = task.scoring_episodes()
    assert entry["episodes"] == len(episodes)
    assert task.score(task.network.zeros(), episodes, ONE_WORKER).normalized == entry["zero"]["score"]
    action = entry["constant"]["action"]
    constant = task.score(measured.constant_weights(task.network, action), episodes, ONE_WORKER)
    assert constant.normalized == entry["constant"]["score"] == max(entry["constant"]["scores"])
    first = task.score(measured.random_weights(task.network, 0), episodes, ONE_WORKER)
    assert first.normalized == entry["random"]["scores"][0]


def test_the_reference_beats_zero_constant_and_random_on_every_measured_task(shipped):
    for task_id, entry in shipped["tasks"].items():
        reference = entry["reference"]["score"]
        assert reference > entry["zero"]["score"], task_id
        assert reference > entry["constant"]["score"], task_id
        assert reference > entry["random"]["best"] >= entry["random"]["score"], task_id


def test_every_writing_task_has_its_baselines_on_its_scoring_episodes(shipped):
    """issue 40.4: zero, best constant, random networks and the reference for every writing task, and for a
    generated game its best public program (the one its calibration chose)."""
    from wspbench.tasks import all_tasks
    from wspbench.tasks.minatar import generated_calibration

    rows = generated_calibration()
    for task in (task for task in all_tasks() if task.skill == "writing"):
        entry = shipped["tasks"][task.id]
        assert {"zero", "constant", "random", "reference"} <= set(entry), task.id
        assert entry["episodes"] == len(task.scoring_episodes()), task.id
        if task.family == "gen":
            assert entry["public"]["program"] == rows[task.game.name]["public"]["program"], task.id


def test_an_entry_measured_on_another_version_of_a_task_is_stale(shipped):
    task_id, entry = next(iter(shipped["tasks"].items()))
    assert measured.of_task(task_id) is entry
    assert not measured.is_current(task_id, {**entry, "digest": "0" * 64})
    assert not measured.is_current("original/no_such_game", entry)
    assert measured.of_task("original/no_such_game") is None


def test_wsp_baselines_prints_the_table_and_json(shipped):
    table = RUNNER.invoke(app, ["baselines"], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "original/breakout" in table.output and "reference" in table.output
    data = json.loads(RUNNER.invoke(app, ["baselines", "--json"]).stdout)
    assert data["tasks"].keys() == shipped["tasks"].keys()
    assert all(entry["current"] for entry in data["tasks"].values())


def test_wsp_baselines_flags_the_tasks_whose_scripted_player_is_above_the_cap(shipped):
    """baselines.json: synth/charge_cannon's scripted player scores 44.264 (cap 44) and synth/missile_defense's
    100.5 (cap 100), both shown as 1.0000; river_hop's 86.975 is just below its cap of 87. Random networks keep
    normalised scores only, which `above_cap` can leave out because none reaches 1."""
    tasks = shipped["tasks"]
    assert (tasks["synth/charge_cannon"]["scripted"]["raw"], tasks["synth/missile_defense"]["scripted"]["raw"]) == (
        44.264,
        100.5,
    )
    assert measured.above_cap("synth/charge_cannon", tasks["synth/charge_cannon"]) == {"scripted": 44.264 / 44}
    assert measured.above_cap("synth/river_hop", tasks["synth/river_hop"]) == {}
    assert all(entry["random"]["best"] < 1.0 for entry in tasks.values())
    data = json.loads(RUNNER.invoke(app, ["baselines", "--json"]).stdout)["tasks"]
    flagged = {task_id: entry["above_cap"] for task_id, entry in data.items() if entry["above_cap"]}
    assert flagged == {"synth/charge_cannon": {"scripted": 1.006}, "synth/missile_defense": {"scripted": 1.005}}
    table = RUNNER.invoke(app, ["baselines"], env={"COLUMNS": "200"}).stdout
    assert "│ synth/charge_cannon * " in table and "│ synth/river_hop " in table
    assert "* 2 tasks with a baseline above the cap" in table
    assert "synth/charge_cannon scripted 1.0060, synth/missile_defense scripted 1.0050" in table


def test_every_reading_task_has_its_floors_measured_as_it_is_now(shipped):
    """issue 24.4: benchmarks/reading_floors.py measured every identify and repair task, on the task as it is."""
    from wspbench.tasks import all_tasks

    reading = {task.id for task in all_tasks() if task.skill == "reading"}
    entries = shipped["reading"]["tasks"]
    assert set(entries) == reading
    assert all(measured.is_current(task_id, entry) for task_id, entry in entries.items())
    for task_id, entry in entries.items():
        identify = {"chance", "occupancy", "reversed", "nearest", "prompts"}
        expected = {"rule", "siblings", "signs", "aligned", "initial"} if task_id.startswith("repair/") else identify
        assert set(entry["floors"]) == expected
        assert all(0.0 <= floor["score"] <= 1.0 for floor in entry["floors"].values())
    repair = {task_id: entry["floors"] for task_id, entry in entries.items() if task_id.startswith("repair/")}
    kinds = {task_id.split("/")[2] for task_id in repair}
    for kind in kinds:  # docs/reading.md: a kind is kept only while what a prompt shows does not undo it
        floors = [floors for task_id, floors in repair.items() if task_id.endswith(f"/{kind}")]
        for name in ("rule", "siblings", "signs", "aligned"):  # `initial` needs the package (as the networks do)
            assert np.mean([floor[name]["score"] for floor in floors]) <= 0.15, (kind, name)


def test_the_floor_solvers_read_only_the_prompt_and_solve_what_they_claim(monkeypatch):
    """The solvers read the weights as the prompt lists them (rounded). The one-prompt rule lowers an output bias
    that stands out (suite 4's bias_shift); the sibling repairer restores a damage when other prompts show the
    same network undamaged, which is why a game has one repair task."""
    import importlib
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).parents[2] / "benchmarks"))
    floors = importlib.import_module("reading_floors")
    task = get_task("repair/breakout/swap_actions")
    shown = floors.shown_weights(task, "THE DAMAGED NETWORK")
    assert np.allclose(shown["W1"], np.round(task.damaged["W1"].astype(np.float64), 3), atol=1e-6)
    assert floors.rule_reply(shown) == "```edits\n```\n"
    raised = {**shown, "b3": shown["b3"] + np.float32(10) * (np.arange(6) == 2)}
    assert floors.rule_reply(raised) == "```edits\nb3[2] -= 10\n```\n"
    undamaged = {name: np.round(w.astype(np.float64), 3).astype(np.float32) for name, w in task.trained.items()}
    reply = floors.sibling_reply(shown, [shown, undamaged, undamaged])
    episodes = task.scoring_episodes(50)
    assert task.grade(reply, episodes, ONE_WORKER).normalized > 0.99
    assert floors.sibling_reply(shown, [shown]) == "```edits\n\n```\n"  # alone, the majority is the damage
