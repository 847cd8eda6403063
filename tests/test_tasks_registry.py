"""The task registry (wspbench/tasks/registry.py): ids, selectors, errors, the suite digest; and a toy family
registered from one file (tests/toy_family.py) that every command and export then serves, unchanged."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests import toy_family
from wspbench.cli import app
from wspbench.tasks import (
    Protocol,
    Score,
    UnknownTask,
    all_tasks,
    get_task,
    register_family,
    select,
    suite,
    unregister_family,
)

RUNNER = CliRunner()
WIDE = {"COLUMNS": "200"}


@pytest.fixture
def toy():
    """The toy family registered for one test, then removed (the registry is process-wide)."""
    register_family("toy", toy_family.tasks)
    yield get_task("toy/sign")
    unregister_family("toy")


# --- the registry ------------------------------------------------------------------------------------
def test_every_task_has_one_canonical_id_and_a_slug():
    ids = [task.id for task in all_tasks()]
    assert len(ids) == len(set(ids))
    assert ids[:5] == [f"original/{game}" for game in ("asterix", "breakout", "freeway", "seaquest", "space_invaders")]
    families = [task.family for task in all_tasks()]
    assert families == sorted(families, key=["minatar", "superbeam", "identify", "repair"].index)  # suite order
    writing = [i for i, family in zip(ids, families, strict=True) if family in ("minatar", "superbeam")]
    assert writing[-2:] == ["superbeam", "superbeam/extended"] and all(i.startswith("synth/") for i in writing[5:-2])
    assert get_task("original/freeway").slug == "original-freeway" and get_task("superbeam").slug == "superbeam"


def test_get_task_takes_an_id_or_a_bare_game_name():
    assert get_task("freeway") is get_task("original/freeway")
    assert get_task("ferry") is get_task("synth/ferry")
    assert get_task("superbeam").id == "superbeam"
    assert [t.id for t in select("superbeam")] == ["superbeam"]  # an id names one task
    assert [t.id for t in select("superbeam*")] == ["superbeam", "superbeam/extended"]


@pytest.mark.parametrize(
    "spelling, hint",
    [
        ("original__freeway", "did you mean original/freeway?"),
        ("Freeway", "did you mean original/freeway?"),
        ("minatar/original/freeway", ""),
        ("original-freeway", ""),
        ("pong", ""),
    ],
)
def test_other_spellings_are_unknown_tasks(spelling, hint):
    with pytest.raises(UnknownTask, match="unknown task") as caught:
        get_task(spelling)
    assert isinstance(caught.value, ValueError) and hint in str(caught.value)
    assert "original/breakout" in str(caught.value)  # the message lists the ids to choose from


def test_selectors():
    assert [t.id for t in select("original/b*,superbeam")] == ["original/breakout", "superbeam"]
    assert select("minatar") == [t for t in all_tasks() if t.family == "minatar"]
    assert select("all") == all_tasks()
    assert [t.id for t in select("seaquest, original/seaquest")] == ["original/seaquest"]
    for bad in ("", " , ", "original/pong", "nothing*"):
        with pytest.raises(UnknownTask):
            select(bad)


def test_suite_digest_covers_the_tasks():
    found = suite()
    assert (found.name, found.tasks) == ("wspbench", len(all_tasks())) and len(found.digest) == 64
    assert suite() == found  # deterministic
    assert found.to_json() == {
        "name": found.name,
        "version": found.version,
        "digest": found.digest,
        "tasks": found.tasks,
    }


def test_a_registered_family_changes_the_suite(toy):
    assert suite().tasks == len(all_tasks())
    with_toy = suite().digest
    unregister_family("toy")
    assert suite().digest != with_toy
    register_family("toy", toy_family.tasks)
    assert suite().digest == with_toy


# --- the toy family, through the library -------------------------------------------------------------
def test_the_toy_family_keeps_the_contract(toy):
    assert toy in all_tasks() and select("toy") == [toy] and get_task("sign") is toy
    reference = toy.grade(toy.offline_answer("reference"))
    zero = toy.grade(toy.offline_answer("zero"))
    assert reference.normalized == 1.0 and reference.episodes == tuple(range(toy.default_episodes))
    assert 0.0 < zero.normalized < 1.0 and zero.lengths == (toy_family.STEPS,) * toy.default_episodes
    assert Score.from_json(json.loads(json.dumps(reference.to_json()))) == reference
    rejected = toy.grade("no network here")
    assert rejected.error == "no ```json block" and rejected.normalized == 0.0
    assert toy.grade(toy.offline_answer("reference"), toy.training_episodes(3)).episodes == (1000, 1001, 1002)
    assert toy.seeds(Protocol("feedback", 2, 4, 3)) == {
        "scoring_episodes": [0, 3],
        "count": 4,
        "training_episodes": [1000, 1002],
    }


# --- the toy family, through every command -----------------------------------------------------------
def test_the_toy_family_is_in_wsp_games(toy):
    rows = json.loads(RUNNER.invoke(app, ["games", "--json"]).stdout)
    row = next(row for row in rows if row["id"] == "toy/sign")
    assert (row["family"], row["score_cap"], row["max_steps"]) == ("toy", 1.0, toy_family.STEPS)
    table = RUNNER.invoke(app, ["games"], env=WIDE)
    assert table.exit_code == 0 and "toy/sign" in table.stdout
    shown = RUNNER.invoke(app, ["suite", "--json"])
    assert json.loads(shown.stdout)["tasks"] == len(all_tasks())


@pytest.mark.parametrize("spelling", [["toy/sign"], ["sign"], ["--game", "sign"]])
def test_wsp_grade_grades_the_toy_task(toy, spelling):
    result = RUNNER.invoke(app, ["grade", *spelling, "--json", "-"], input=toy.offline_answer("reference"))
    assert result.exit_code == 0, result.output
    score = json.loads(result.stdout)
    assert score["task"] == "toy/sign" and score["normalized"] == 1.0 and len(score["values"]) == 8
    bad = RUNNER.invoke(app, ["grade", "toy/sign", "-"], input="nothing", env=WIDE)
    assert bad.exit_code == 1 and "no ```json block" in bad.stdout


def test_wsp_run_runs_the_toy_task_offline(toy, tmp_path):
    out = tmp_path / "run"
    result = RUNNER.invoke(
        app,
        ["run", "--model", "reference", "--tasks", "toy/sign", "--episodes", "4", "--workers", "1", "--out", str(out)],
        env=WIDE,
    )
    assert result.exit_code == 0, result.output
    assert "toy/sign" in result.stdout
    shown = RUNNER.invoke(app, ["runs", "show", str(out), "--json"], env=WIDE)
    assert shown.exit_code == 0, shown.output
    assert "toy/sign" in shown.stdout


def test_wsp_export_jsonl_exports_the_toy_task(toy, tmp_path):
    out = tmp_path / "rows.jsonl"
    result = RUNNER.invoke(app, ["export", "jsonl", str(out), "--tasks", "toy/sign", "--episodes", "4"], env=WIDE)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 1 and "toy/sign" in json.dumps(rows[0])


def test_an_installed_package_adds_a_family_through_its_entry_point(tmp_path, monkeypatch):
    """A plugin package declares `[project.entry-points."wspbench.families"] toy = "module:tasks"`; its
    tasks then appear without any call (here the package is a bare dist-info folder on sys.path)."""
    from wspbench.tasks import registry

    info = tmp_path / "wspbench_toy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: wspbench-toy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[wspbench.families]\ntoy = tests.toy_family:tasks\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_tasks", None)
    try:
        assert get_task("toy/sign").family == "toy"
        (info / "entry_points.txt").write_text("[wspbench.families]\nbroken = no_such_module:tasks\n")
        registry._tasks = None
        assert "toy/sign" not in [task.id for task in all_tasks()]  # a broken plugin is left out, not fatal
    finally:
        registry._tasks = None
