"""The task registry (wspbench/tasks/registry.py): ids, selectors, errors, the suite digest; and a toy family
registered from one file (tests/toy_family.py) that every command and export then serves, unchanged."""

from __future__ import annotations

import json
import os

import pytest
from typer.testing import CliRunner

from tests import toy_family
from wspbench.cli import app
from wspbench.protocols import make
from wspbench.tasks import (
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
    order = ["original", "synth", "gen", "superbeam", "identify", "identify-choice", "repair"]
    assert families == sorted(families, key=order.index)  # suite order
    writing = [i for i, family in zip(ids, families, strict=True) if family in order[:4]]
    assert writing[-3:] == ["superbeam", "superbeam/extended", "superbeam/hard"]
    assert all(i.startswith(("synth/", "gen/")) for i in writing[5:-3])
    assert get_task("original/freeway").slug == "original-freeway" and get_task("superbeam").slug == "superbeam"


def test_get_task_takes_an_id_or_a_bare_game_name():
    assert get_task("freeway") is get_task("original/freeway")
    assert get_task("ferry") is get_task("synth/ferry")
    assert get_task("superbeam").id == "superbeam"
    assert [t.id for t in select("superbeam")] == ["superbeam"]  # an id names one task
    assert [t.id for t in select("superbeam*")] == ["superbeam", "superbeam/extended", "superbeam/hard"]


@pytest.mark.parametrize(
    "spelling, hint",
    [
        ("original__freeway", "did you mean original/freeway?"),
        ("Freeway", "did you mean original/freeway?"),
        ("minatar/original/freeway", "did you mean original/freeway?"),
        ("original-freeway", "did you mean original/freeway?"),
        ("original/brekout", "did you mean original/breakout?"),
        ("brekout", "did you mean original/breakout?"),
        ("synth/breakout", "did you mean original/breakout?"),
        ("space invaders", "did you mean original/space_invaders?"),
        ("superbeem", "did you mean superbeam?"),
        ("identify-choice/fery/3", "did you mean identify-choice/ferry/3, identify-choice/ferry/1 or "),
        ("repair/breakout/swap_action", "did you mean repair/breakout/swap_actions, "),
        ("pong", ""),
        ("x" * 10_000, ""),
    ],
)
def test_other_spellings_are_unknown_tasks_with_a_few_suggestions(spelling, hint):
    with pytest.raises(UnknownTask, match="unknown task") as caught:
        get_task(spelling)
    message = str(caught.value)
    assert isinstance(caught.value, ValueError) and hint in message
    assert message.endswith(f"`wsp games` lists the {len(all_tasks())} tasks") and len(message) < 250  # no dump
    assert message.count("/") <= 2 + 3 * 2 and "repair/asterix" not in message
    with pytest.raises(UnknownTask, match="no task matches") as caught:
        select(f"original/asterix,{spelling}")
    assert hint in str(caught.value) and len(str(caught.value)) < 250


def test_a_long_list_of_ids_is_summarised_per_family():
    from wspbench.tasks.registry import summary

    ids = [task.id for task in all_tasks()][9:]  # as `runs compare` leaves out all but 9 tasks
    line = summary(ids)
    assert line.startswith(f"{len(ids)} tasks: synth 16 (synth/comet_catch, synth/crossfire, synth/duck_shot, ...)")
    assert "; repair 22 (repair/asterix/swap_actions, " in line and len(line) < 800
    assert summary(["superbeam"]) == "1 task: superbeam 1 (superbeam)"


def test_selectors():
    assert [t.id for t in select("original/b*,superbeam")] == ["original/breakout", "superbeam"]
    assert select("synth") == [t for t in all_tasks() if t.id.startswith("synth/")] == select("synth/*")
    assert [t.id for t in select("superbeam*")] == ["superbeam", "superbeam/extended", "superbeam/hard"]
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


def test_a_registered_family_leaves_the_suite_as_it_is(toy):
    """The suite (its digest) is the built-in tasks': a plugin's tasks are served, and reported apart."""
    from wspbench.tasks.registry import plugin_tasks

    with_toy = suite()
    assert with_toy.tasks == len(all_tasks()) - 1 and plugin_tasks() == [toy]
    unregister_family("toy")
    assert suite() == with_toy and plugin_tasks() == []
    register_family("toy", toy_family.tasks)


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
    assert toy.seeds(make("feedback", rounds=2, episodes=4, train_episodes=3)) == {
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
    assert json.loads(shown.stdout) == {**suite().to_json(), "plugin_tasks": ["toy/sign"]}
    assert json.loads(shown.stdout)["tasks"] == len(all_tasks()) - 1
    shown = RUNNER.invoke(app, ["suite"], env=WIDE)
    assert "plugins, outside the suite and its digest: 1 task: toy 1 (toy/sign)" in shown.stdout


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


PLUGINS = """
import dataclasses

from tests.toy_family import SignTask


class Copy(SignTask):
    id = "original/breakout"  # a built-in task's id


class Shadow(SignTask):
    id = "toy2/breakout"  # a built-in game's name
    game = dataclasses.replace(SignTask.game, name="breakout")


class Family(SignTask):
    id = "original/pong"  # a built-in family's prefix


class Renamed(SignTask):
    id = "toy/renamed"
    family = "other"  # not its id's prefix


def raises():
    raise RuntimeError("a bug in the plugin")


def none():
    return None


def objects():
    return [object()]


def repeats():
    yield Copy()
    yield Shadow()
    yield Family()
    yield Renamed()


def exits():
    raise SystemExit(3)


def good():
    return [SignTask()]
"""
BAD = {"raising": "raises", "none": "none", "objects": "objects", "exiting": "exits", "missing": "no_such:tasks"}


@pytest.fixture
def plugins(tmp_path, monkeypatch, caplog):
    """Installed plugin packages (a dist-info folder on sys.path, its entry points in modules written here):
    one good family, one with bad tasks among good ones, and one broken in each way."""
    from wspbench.tasks import registry

    builtin = suite()
    (tmp_path / "wsp_plugins.py").write_text(PLUGINS)
    info = tmp_path / "wsp_plugins-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: wsp-plugins\nVersion: 1.0\n")
    points = {**BAD, "good": "good", "repeating": "repeats"}
    (info / "entry_points.txt").write_text(
        "[wspbench.families]\n"
        + "".join(f"{name} = {v if ':' in v else 'wsp_plugins:' + v}\n" for name, v in points.items())
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_tasks", None)
    caplog.set_level("WARNING", logger="wspbench.tasks.registry")
    try:
        yield builtin, caplog
    finally:
        registry._tasks = None


def test_broken_plugins_are_left_out_with_one_warning_each(plugins):
    from wspbench.tasks.registry import plugin_tasks

    builtin, caplog = plugins
    ids = [task.id for task in all_tasks()]
    assert [task.id for task in plugin_tasks()] == ["toy/sign", "toy2/breakout"] and ids[-2:] == [
        "toy/sign",
        "toy2/breakout",
    ]
    assert len(ids) == len(set(ids)) == builtin.tasks + 2 and suite() == builtin  # the digest runs record
    warnings = [record.getMessage() for record in caplog.records]
    for name in BAD:
        assert len([w for w in warnings if w.startswith(f"task family {name} (")]) == 1, (name, warnings)
    assert any("original/breakout repeats the id of an earlier task" in w for w in warnings)
    assert any("original/pong: its family 'original' is a built-in family" in w for w in warnings)
    assert any("toy/renamed: its family 'other' is not its id's prefix" in w for w in warnings)
    assert any("object is not a Task" in w for w in warnings) and any("NoneType" in w for w in warnings)
    assert len(warnings) == len(BAD) + 3
    assert get_task("original/breakout").family == "original"
    assert get_task("breakout").id == "original/breakout" and [t.id for t in select("breakout")] == [
        "original/breakout"
    ]
    assert get_task("toy2/breakout").family == "toy2"


def test_every_command_works_with_broken_plugins_installed(plugins, tmp_path):
    from tests.test_verifier import ANSWER, seed_trajectory
    from wspbench.verifier import verify

    builtin, _ = plugins
    games = RUNNER.invoke(app, ["games", "--json"])
    assert games.exit_code == 0 and "toy/sign" in games.stdout and "Traceback" not in games.output
    sign = get_task("toy/sign")
    graded = RUNNER.invoke(app, ["grade", "toy/sign", "--json", "-"], input=sign.offline_answer("reference"))
    assert graded.exit_code == 0 and json.loads(graded.stdout)["normalized"] == 1.0
    breakout = RUNNER.invoke(app, ["grade", "breakout", "--json", "-"], input="no answer")
    assert breakout.exit_code == 1 and json.loads(breakout.stdout)["task"] == "original/breakout"
    shown = RUNNER.invoke(app, ["suite", "--json"])
    assert {k: v for k, v in json.loads(shown.stdout).items() if k != "plugin_tasks"} == builtin.to_json()
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps(seed_trajectory(ANSWER)))
    environ = {"WEIGHT_SPACE_GAME": "breakout", "WEIGHT_SPACE_SOURCE": "original", "WEIGHT_SPACE_EPISODES": "2"}
    reward = verify(trajectory, tmp_path / "reward.json", environ=environ, workers=1)
    assert reward["game"] == "breakout" and "error" not in reward, reward


def test_runs_compare_summarises_the_tasks_it_leaves_out(tmp_path):
    """`runs compare` printed all 161 left-out ids; now their count and a few per family."""
    common = ["--model", "zero", "--workers", "1", "--concurrency", "1"]
    for name, tasks in (("many", "identify/*,identify-choice/*"), ("one", "identify/breakout/4")):
        done = RUNNER.invoke(app, ["run", *common, "--tasks", tasks, "--out", str(tmp_path / name)], env=WIDE)
        assert done.exit_code == 0, done.output
    table = RUNNER.invoke(app, ["runs", "compare", str(tmp_path / "many"), str(tmp_path / "one")], env=WIDE)
    assert table.exit_code == 0, table.output
    left_out = " ".join(table.output.split("left out", 1)[1].split())
    assert left_out == (
        "(not finished in every run): 59 tasks: identify-choice 50 (identify-choice/asterix/1, "
        "identify-choice/asterix/3, identify-choice/beacon_keeper/1, ...); identify 9 (identify/asterix/4, "
        "identify/asterix/5, identify/breakout/5, ...)"
    )
    assert "identify-choice/treasure_dive" not in left_out


def test_inspect_suggests_a_close_task_too():
    pytest.importorskip("inspect_ai")
    from wspbench.integrations.inspect_ai import weight_programming

    with pytest.raises(Exception, match=r"did you mean original/breakout\?") as caught:
        weight_programming(task="original/brekout")
    assert "`wsp games` lists the" in str(caught.value) and "repair/" not in str(caught.value)


# --- the digests' cache (`wsp suite` and the start of `wsp run` read it) ------------------------------


def test_cached_task_digests_are_the_computed_ones_and_a_stale_cache_is_recomputed(tmp_path, monkeypatch):
    from wspbench.files import files_key
    from wspbench.tasks.registry import DIGEST_CACHE, MAX_DIGEST_CACHE_BYTES, task_digests

    monkeypatch.setenv("WSP_CACHE_DIR", str(tmp_path))
    tasks = select("original/breakout,synth/ferry,superbeam,identify-choice/*,repair/breakout/*")
    computed = {task.id: task.digest() for task in tasks}
    assert task_digests(tasks) == computed  # none cached yet: computed and written
    cached = json.loads((tmp_path / DIGEST_CACHE).read_text())
    assert cached["digests"] == computed
    cached["digests"]["synth/ferry"] = "planted"
    (tmp_path / DIGEST_CACHE).write_text(json.dumps(cached))
    assert task_digests(tasks)["synth/ferry"] == "planted"  # the same key: the cache is read, not recomputed
    (tmp_path / DIGEST_CACHE).write_text(json.dumps({**cached, "key": "another checkout"}))
    assert task_digests(tasks) == computed
    (tmp_path / DIGEST_CACHE).write_text("{broken")
    assert task_digests(tasks) == computed
    (tmp_path / DIGEST_CACHE).write_text("[" * 100_000)  # nested too deep for the decoder
    assert task_digests(tasks) == computed
    (tmp_path / DIGEST_CACHE).write_bytes(b" " * (MAX_DIGEST_CACHE_BYTES + 1))  # too large: not read
    assert task_digests(tasks) == computed

    folder = tmp_path / "package"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "game.py").write_text("x = 1\n")
    before = files_key([folder])
    (folder / "__pycache__" / "game.pyc").write_bytes(b"compiled")
    assert files_key([folder]) == before  # compiled files do not count
    (folder / "game.py").write_text("x = 2\n")
    os.utime(folder / "game.py", ns=(1, 1))
    assert files_key([folder]) != before
