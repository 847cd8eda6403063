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
from wspbench.statistics import normalize
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


def test_wsp_baselines_flags_the_tasks_whose_baseline_is_above_the_cap(shipped, monkeypatch):
    """A baseline whose raw score is above its task's cap (a scripted player above the cap it set; none can be above
    a cap from the hindsight bound) is marked in the table and listed with its unclipped score (raw / cap) in both
    forms: here synth/charge_cannon's scripted player is put at 1.25 x its cap, beside whatever the shipped file
    flags. Random networks keep normalised scores only, which `above_cap` can leave out because none reaches 1."""
    tasks = json.loads(json.dumps(shipped["tasks"]))
    cap = get_task("synth/charge_cannon").facts.score_cap
    tasks["synth/charge_cannon"]["scripted"]["raw"] = 1.25 * cap
    assert measured.above_cap("synth/charge_cannon", tasks["synth/charge_cannon"]) == {"scripted": 1.25}
    assert all(entry["random"]["best"] < 1.0 for entry in tasks.values())
    current = {task_id: entry for task_id, entry in tasks.items() if measured.is_current(task_id, entry)}
    expected = {task_id: measured.above_cap(task_id, entry) for task_id, entry in current.items()}
    expected = {task_id: kinds for task_id, kinds in expected.items() if kinds}
    monkeypatch.setattr(measured, "load", lambda: {**shipped, "tasks": tasks})
    data = json.loads(RUNNER.invoke(app, ["baselines", "--json"]).stdout)["tasks"]
    flagged = {task_id: entry["above_cap"] for task_id, entry in data.items() if entry["above_cap"]}
    assert flagged == expected and "synth/charge_cannon" in flagged
    table = RUNNER.invoke(app, ["baselines"], env={"COLUMNS": "200"}).stdout
    assert "│ synth/charge_cannon * " in table and "│ synth/river_hop " in table
    count = len(expected)
    assert f"* {count} task{'s' if count > 1 else ''} with a baseline above the cap" in table
    assert "synth/charge_cannon scripted 1.2500" in table


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


def test_a_rescaled_entry_is_what_the_grader_gives_under_the_new_cap(shipped, monkeypatch):
    """benchmarks/baselines.py --rescale: when only a cap changed, a task's baselines are taken to the new cap from
    their stored raw returns (the same episodes give the same returns under any cap) instead of being played again."""
    import importlib
    from pathlib import Path

    monkeypatch.syspath_prepend(str(Path(__file__).parents[2] / "benchmarks"))
    baselines = importlib.import_module("baselines")
    task = get_task("synth/ferry")
    entry, cap = shipped["tasks"][task.id], task.game.score_cap
    same, double = baselines.rescaled(entry, cap, cap), baselines.rescaled(entry, cap, 2 * cap)
    assert all(same[kind]["score"] == entry[kind]["score"] for kind in measured.KINDS if kind in entry)
    reference = task.grade(task.offline_answer("reference"), task.scoring_episodes(), ONE_WORKER)
    assert double["reference"]["score"] == normalize(reference.raw, 2 * cap) == entry["reference"]["score"] / 2
    assert np.allclose(double["reference"]["interval"], np.divide(reference.interval(), 2), rtol=1e-12)
    assert np.allclose(double["random"]["scores"], np.divide(entry["random"]["scores"], 2), rtol=1e-12)
    assert double["search"]["curve"] == entry["search"]["curve"]  # the search's training returns: raw
    assert double["rescaled"] == {"from_cap": cap, "to_cap": 2 * cap}
    with pytest.raises(baselines.Clipped):
        baselines.rescaled({"zero": {"score": 1.0, "interval": [1.0, 1.0]}}, cap, 2 * cap)
