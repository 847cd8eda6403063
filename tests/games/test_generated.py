"""The generated family (issue 28): `gen/<seed>` tasks whose modules are the generator's text with their calibrated
cap, graded as the seed grader grades them, with their trained networks as the reference, in a family of their
own; and private sets of generated games from a key (`wsp games generate`)."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from importlib import resources

import pytest
from typer.testing import CliRunner

from minatar_synth import generator
from tests.conftest import DATA
from wspbench.baselines import generated
from wspbench.baselines.ppo import trained_answer, trained_network
from wspbench.cli import app
from wspbench.evaluation import Grading
from wspbench.games import synth
from wspbench.games.minatar import HAND_WRITTEN, all_games, game_spec
from wspbench.harness.summary import family_scores
from wspbench.statistics import Sample
from wspbench.tasks import get_task, registry, select
from wspbench.tasks.minatar import generated_calibration
from wspbench.verifier import find_task, grade_answer

RUNNER = CliRunner()
GAMES = synth.generated_games()
ROWS = generated_calibration()
EXPECTED = json.loads((DATA / "generated_expected.json").read_text())
ANSWERS = json.loads((DATA / "answers.json").read_text())


def test_the_family_has_its_calibrated_games():
    tasks = select("gen")
    assert len(tasks) >= 100 and [task.id for task in tasks] == [f"gen/{game[4:]}" for game in GAMES]
    assert sorted(ROWS) == GAMES and all(row["kept"] for row in ROWS.values())
    data = json.loads((resources.files("minatar_synth") / "generated.json").read_text())
    assert data["calibrated"] == len(data["games"]) + len(data["rejected"])
    assert all(row["rejected_because"] for row in data["rejected"].values())  # each rejection says why
    assert not set(GAMES) & set(synth.available_games()) and all(game.source in HAND_WRITTEN for game in all_games())


@pytest.mark.parametrize("game", GAMES)
def test_a_shipped_game_is_the_generators_text_with_its_calibrated_cap(game):
    row, seed = ROWS[game], int(game.removeprefix(synth.GENERATED))
    text = generator.generate(seed, row["cap"])
    assert game_spec(game).source_file.read_text() == text  # byte for byte
    assert hashlib.sha256(text.encode()).hexdigest() == row["module_sha256"]
    assert hashlib.sha256(generator.generate(seed).encode()).hexdigest() == row["source_sha256"]  # what was measured
    kept_by = row["bound"] if row.get("bound") is not None else row["cap_factor"] * row["trained"]["mean"]
    cap = synth.cap_rule(kept_by)  # the bound it was kept by (issue 48), else the factor of its rules
    assert synth.environment_class(game).score_cap == row["cap"] == cap
    assert row["trained"]["mean"] >= generated.TIMES * row["baselines"]["best_trivial"]
    assert (
        row["trained"]["mean"] - row["baselines"]["best_trivial"]
        >= generated.STANDARD_ERRORS * row["trained"]["gap_stderr"]
    )
    task = get_task(f"gen/{seed:05d}")
    assert task is get_task(game) and task.game.score_cap == row["cap"]
    assert all((task.networks / f"{game}.0.{suffix}").is_file() for suffix in ("npz", "json"))
    assert set(task.calibration()) == {"zero", "reference"}


def test_no_public_program_takes_more_than_half_a_kept_games_cap():
    """issue 40: each kept game's best public program (a hand-written reference or another kept game's network:
    rejected games' networks are not shipped) scores at most PUBLIC_SHARE of its cap on calibration episodes."""
    public = set(generated.hand_written_programs()) | set(GAMES)
    for game, row in ROWS.items():
        assert row["public"]["program"] in public - {game}, game
        assert row["public"]["mean"] <= generated.PUBLIC_SHARE * row["cap"], game
        judged = generated.judge(row)
        assert judged["kept"] and judged["cap"] == row["cap"]


@pytest.mark.parametrize("game", sorted(EXPECTED["results"])[:2])
def test_a_kept_games_best_public_program_scores_what_its_calibration_says(game):
    """A sample of the calibration, measured again: the recorded best public program, played unchanged on the
    calibration episodes, has the recorded mean; and no other public program does better by more than rounding."""
    task = get_task(game)
    programs = generated.public_programs()
    episodes = task.calibration_episodes(generated.CALIBRATION)
    scores = generated.crossplay(task, programs, episodes)
    assert generated.best_public(scores) == ROWS[game]["public"]


@pytest.mark.parametrize("game", sorted(EXPECTED["results"])[:2])
def test_a_generated_games_reference_is_its_trained_network(game):
    task = get_task(game)
    weights, about = trained_network(task)  # the game's own network: its reference, and the trained baseline's
    assert about["steps"] == ROWS[game]["steps"]
    assert all((task.read(task.offline_answer("reference"))[0][k] == weights[k]).all() for k in weights)


@pytest.mark.parametrize("game", sorted(EXPECTED["results"]))
def test_a_sample_grades_as_the_seed_grader_grades_it(game):
    """The seed grader's results (benchmarks/generated_conformance.py --write, which checks every game) for a
    sample: it reads the game as source synth, game gen_<seed>; `wsp verify` names it so too."""
    task = find_task(game, "synth")
    assert task.id == f"gen/{game[4:]}"
    answers = {**ANSWERS, "trained": trained_answer(task)}
    for name, expected in EXPECTED["results"][game].items():
        for engine in ("auto", "compiled", "reference"):
            result = grade_answer(task, answers[name], EXPECTED["episodes"], Grading(engine=engine, workers=1))
            assert {key: result[key] for key in expected} == expected, (name, engine)
            assert result["source"] == "synth" and result["game"] == game


def test_generated_games_are_a_family_of_their_own_in_reports():
    def reply(value: float):
        return [(value, Sample((value, value), 1.0))]

    replies = {"gen/00100": reply(0.5), "synth/ferry": reply(0.25), "gen/00101": reply(0.3)}
    scores = family_scores(replies)
    assert [row["family"] for row in scores["families"]] == ["synth", "gen"]
    assert scores["families"][1]["tasks"] == 2 and scores["families"][1]["mean"] == pytest.approx(0.4)


@pytest.fixture(scope="module")
def private_games(tmp_path_factory):
    """A private set of one generated game from the key "k1", at 8,192 PPO steps with the keep rule relaxed (so
    that so short a training keeps a game): about 10 s."""
    out = tmp_path_factory.mktemp("games") / "set"
    patch = pytest.MonkeyPatch()
    patch.setattr(generated, "TIMES", 0.0)
    patch.setattr(generated, "STANDARD_ERRORS", -1e9)
    patch.setattr(generated, "PUBLIC_SHARE", 1e9)  # public programs beat so short a training
    try:
        built = RUNNER.invoke(app, ["games", "generate", "--key", "k1", "--out", str(out), "--count", "1",
                                    "--name", "mine", "--steps", "8192"])  # fmt: skip
    finally:
        patch.undo()
    assert built.exit_code == 0, built.output
    assert "1 game in" in built.output
    return out


def test_a_build_that_keeps_no_game_exits_1_saying_why_and_what_to_change(tmp_path, monkeypatch):
    monkeypatch.setattr(generated, "TIMES", 1e9)  # no trained network beats its trivial players a billion times
    monkeypatch.setattr(generated, "SEEDS_PER_GAME", 1)
    out = tmp_path / "none"
    built = RUNNER.invoke(app, ["games", "generate", "--key", "k2", "--out", str(out), "--count", "1",
                                "--steps", "8192"])  # fmt: skip
    text = " ".join(built.output.split())
    assert built.exit_code == 1 and "kept no game" in text and "best trivial" in text, built.output
    assert "--steps" in text and "--count" in text and "0 games" not in text


def test_a_private_set_of_games_is_built_from_a_key_and_graded(private_games, tmp_path, monkeypatch):
    out = private_games
    facts = json.loads((out / "set.json").read_text())
    assert "k1" not in json.dumps(facts) and len(facts["generated"]) == 1
    (game,) = facts["generated"]
    assert int(game[4:]) >= generated.PRIVATE_SEEDS and (out / "games" / f"{game}.py").is_file()
    monkeypatch.setenv("WSP_PRIVATE_SETS", str(out))
    monkeypatch.setattr(registry, "_tasks", None)
    (task,) = select("mine.gen")
    assert re.fullmatch(r"mine\.gen/[0-9a-f]{12}", task.id) and task.public().id == task.id
    assert game not in synth.generated_games() and registry.suite().tasks == len(registry._load().builtin)
    row = generated_calibration(out)[game]
    assert task.game.score_cap == row["cap"] and task.private_set == out
    assert row["public"]["program"] in generated.public_programs()  # checked against every public program
    for model in ("trained", "zero"):
        run = RUNNER.invoke(app, ["run", "--model", model, "--tasks", "mine.*", "--out", str(tmp_path / model),
                                  "--episodes", "20"])  # fmt: skip
        assert run.exit_code == 0, run.output
        (record,) = [json.loads(path.read_text()) for path in (tmp_path / model / "tasks").glob("*.json")]
        assert record["test"]["error"] is None, model
    rows = tmp_path / "rows.jsonl"
    exported = RUNNER.invoke(app, ["export", "jsonl", str(rows), "--tasks", "mine.gen", "--episodes", "20"])
    assert exported.exit_code == 0, exported.output
    (line,) = rows.read_text().splitlines()
    assert json.loads(line)["name"] == task.id and row["cap"] == json.loads(line)["score_cap"]
    inspect = pytest.importorskip("wspbench.integrations.inspect_ai")
    (one,) = inspect.weight_programming(task="mine.gen").dataset
    assert one.id == task.id or task.id in json.dumps(one.metadata)
    again = RUNNER.invoke(app, ["games", "generate", "--key", "k1", "--out", str(out), "--count", "1", "--name",
                                "mine", "--steps", "8192"])  # fmt: skip
    assert again.exit_code == 0 and "1 game in" in again.output  # a finished build is found, not trained again
    refused = RUNNER.invoke(app, ["games", "generate", "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "--key" in refused.output
    monkeypatch.setattr(registry, "_tasks", None)


def test_a_private_games_task_is_exported_with_its_set_for_the_grader(private_games, tmp_path, monkeypatch):
    """Harbor: the verifier's image carries the private set; the exported verifier grades the trained network
    there, from the copy, as the task grades it here."""
    from tests.export.test_harbor import rewards, stand_in_wheel
    from wspbench.export.harbor import export_harbor, exported

    out = tmp_path / "set"
    shutil.copytree(private_games, out)
    monkeypatch.setenv("WSP_PRIVATE_SETS", str(out))
    monkeypatch.setattr(registry, "_tasks", None)
    (task,) = select("mine.gen")
    (folder,) = export_harbor(tmp_path / "harbor", exported([task], 20), wheel=stand_in_wheel(tmp_path))
    assert (folder / "tests" / "sets" / "set" / "games").is_dir()
    answer = tmp_path / "answer.md"
    answer.write_text(trained_answer(task))
    expected = task.grade(answer.read_text(), task.scoring_episodes(20)).normalized
    shutil.move(str(out), tmp_path / "elsewhere")
    env = {**os.environ, "WSP_PRIVATE_SETS": str(folder / "tests" / "sets" / "set"), "WEIGHT_SPACE_EPISODES": "20"}
    done = subprocess.run(
        [sys.executable, "-m", "wspbench.verifier", task.id, str(answer), str(tmp_path / "logs")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert rewards(tmp_path / "logs")[0]["reward"] == expected
    monkeypatch.setattr(registry, "_tasks", None)


@pytest.mark.parametrize("listed", [["os"], ["gen_1; import os"], ["../gen_1"], "gen_1"])
def test_a_private_set_that_lists_a_module_not_a_generated_game_is_left_out(listed, tmp_path, monkeypatch, caplog):
    """set.json is read from a user's folder: a "generated" entry that is not `gen_<seed>` (another module, code,
    a path) never reaches an import; the set is left out with one warning and its ids are then unknown."""
    from wspbench.tasks.reading_set import SET_FORMAT

    facts = {"format": SET_FORMAT, "name": "bad", "tag": "0", "identify": 0, "identify_choice": 0, "games": []}
    (tmp_path / "set.json").write_text(json.dumps({**facts, "generated": listed}))
    monkeypatch.setenv("WSP_PRIVATE_SETS", str(tmp_path))
    monkeypatch.setattr(registry, "_tasks", None)
    assert not [task for task in registry.all_tasks() if task.id.startswith("bad.")]
    assert "private sets" in caplog.text and "left out" in caplog.text
    run = RUNNER.invoke(app, ["grade", "bad.gen/000000000000", "-"], input="")
    assert run.exit_code == 2 and "Traceback" not in run.output
    monkeypatch.setattr(registry, "_tasks", None)


def test_a_module_a_private_set_does_not_list_is_no_game(private_games, monkeypatch):
    """issue 38.9: a module left in a private set's games folder (not in set.json) is neither a hand-written game
    nor a task, though the folder is on the package's path."""
    stray = private_games / "games" / "sneaky.py"
    stray.write_text((resources.files("minatar_synth") / "games" / "ferry.py").read_text())
    try:
        monkeypatch.setenv("WSP_PRIVATE_SETS", str(private_games))
        monkeypatch.setattr(registry, "_tasks", None)
        tasks = registry.all_tasks()
        assert "sneaky" not in synth.available_games() and not [t for t in tasks if "sneaky" in t.id]
        assert len([t for t in tasks if t.id.startswith("mine.gen/")]) == 1
    finally:
        stray.unlink()
        monkeypatch.setattr(registry, "_tasks", None)


def row_of(game: str, trained: float, trivial: float = 1.0) -> dict:
    return {"game": game, "seed": int(game[4:]), "baselines": {"best_trivial": trivial},
            "trained": {"mean": trained, "stderr": 0.1, "gap_stderr": 0.1}}  # fmt: skip


def test_a_game_is_kept_only_when_no_public_program_takes_more_than_half_its_cap(monkeypatch):
    monkeypatch.setattr(generated, "CAP_FACTOR", 2.0)
    kept = generated.judge({**row_of("gen_1", 10.0), "public": {"program": "heat_gun", "mean": 10.0}})
    assert kept["kept"] and kept["cap"] == 20.0  # half the cap exactly: kept
    beaten = generated.judge({**row_of("gen_1", 10.0), "public": {"program": "heat_gun", "mean": 10.5}})
    assert not beaten["kept"] and beaten["rejected_because"] == ["public program heat_gun scores 10.50 > 0.5 x cap 20"]
    weak = generated.judge({**row_of("gen_1", 1.5), "public": None})
    assert not weak["kept"] and "best trivial" in weak["rejected_because"][0]


def test_a_measured_bound_sets_the_cap_and_the_public_rule_reads_it():
    row = {**row_of("gen_1", 10.0), "public": {"program": "heat_gun", "mean": 20.0}}
    assert not generated.judge(row)["kept"]  # 3 x 10 = 30: a public 20 is more than half
    bounded = generated.judge({**row, "bound": 44.43})
    assert bounded["kept"] and bounded["cap"] == 45.0  # synth.cap_rule of the bound's mean, not 3 x trained
    assert generated.cap_of(10.0, bound=0.0) is None


def test_the_public_family_drops_the_game_a_public_program_beats_most_then_judges_the_rest_again(monkeypatch):
    """gen_1's network beats gen_2 and gen_2's beats gen_1: dropping gen_2 (beaten by more) keeps gen_1, whose
    only threat was gen_2's network, no longer shipped. gen_3 fails the trivial rule and never counts."""
    monkeypatch.setattr(generated, "CAP_FACTOR", 2.0)
    rows = [row_of("gen_1", 10.0), row_of("gen_2", 10.0), row_of("gen_3", 1.0)]
    table = {"gen_1": {"breakout": 2.0, "gen_2": 11.0, "gen_3": 30.0},
             "gen_2": {"breakout": 1.0, "gen_1": 15.0, "gen_3": 30.0}}  # fmt: skip
    one, two, three = generated.public_family(rows, table, ["breakout"])
    assert one["kept"] and one["public"] == {"program": "breakout", "mean": 2.0}
    assert not two["kept"] and two["public"] == {"program": "gen_1", "mean": 15.0}
    assert not three["kept"] and three["public"] is None


def test_with_caps_from_the_bound_a_private_game_gets_the_cap_its_bound_gives(tmp_path, monkeypatch):
    """issue 48: where the family's caps come from the hindsight bound (`synth.CAP_SOURCE`, which calibrate_bound.py
    --ship turns on), a private build measures each game's bound (here a narrow one) and caps the game from it."""
    from wspbench.baselines import bound

    for name, value in {"TIMES": 0.0, "STANDARD_ERRORS": -1e9, "PUBLIC_SHARE": 1e9}.items():
        monkeypatch.setattr(generated, name, value)
    monkeypatch.setattr(synth, "CAP_SOURCE", "bound")
    for name, value in {"FIRST_WIDTH": 4, "MAX_WIDTH": 8, "SAMPLE": 2, "WIDER": ()}.items():
        monkeypatch.setattr(bound, name, value)
    out = tmp_path / "set"
    kept = generated.build("k3", out, count=1, budget=generated.Budget(steps=8192, checkpoints=0))
    row = json.loads((out / "generated.json").read_text())["games"][kept[0]]
    assert row["bound"] >= row["trained"]["mean"] and row["bound_search"]["width"] in (4, 8)
    assert row["cap"] == synth.cap_rule(row["bound"]) and row["cap_factor"] is None
    assert row["settings"]["bound"] == bound.settings()
    assert "hindsight bound" in json.loads((out / "generated.json").read_text())["rules"]["cap"]
