"""The `wsp` command, run as a user runs it: grade, games, suite, --version, --help, run."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.cli.app import COMMAND_ORDER
from wspbench.tasks import all_tasks, get_task, suite

RUNNER = CliRunner()
WIDE = {"COLUMNS": "200"}
ANSWER = "Always right.\n```edits\nb3[3] = 9\n```\n"


def graded(args: list[str], text: str = ANSWER, code: int = 0) -> dict:
    """`wsp grade ... --json` on a reply from standard input: the Score's JSON, seconds left out."""
    result = RUNNER.invoke(app, ["grade", *args, "--json", "-"], input=text, env=WIDE)
    assert result.exit_code == code, result.output
    score = json.loads(result.stdout.strip().splitlines()[-1])
    assert score["format"] == "wspbench.score/1"
    score.pop("seconds")
    return score


def test_grade_json_from_stdin_matches_the_conformance_result(expected, answers):
    score = graded(["original/breakout", "--episodes", str(expected["episodes"])], answers["random_dense_0"])
    reference = expected["results"]["breakout"]["random_dense_0"]
    assert (score["normalized"], score["raw"], score["score_cap"], score["mean_length"]) == (
        reference["normalized_score"],
        reference["raw_score"],
        reference["score_cap"],
        reference["mean_episode_length"],
    )
    assert score["metadata"] == {"edit_count": reference["edit_count"], "nonzero_weights": reference["nonzero_weights"]}
    assert score["episodes"] == list(range(expected["episodes"])) and len(score["values"]) == expected["episodes"]


def test_the_three_spellings_of_a_task_grade_identically():
    game = "ferry"
    spellings = [[f"synth/{game}"], ["--game", game, "--source", "synth"], ["--game", game], ["-g", game], [game]]
    scores = [graded([*args, "--episodes", "4", "--workers", "1"]) for args in spellings]
    assert all(score == scores[0] for score in scores) and scores[0]["task"] == "synth/ferry"


def test_grade_table_from_a_file(tmp_path):
    path = tmp_path / "answer.txt"
    path.write_text(ANSWER)
    result = RUNNER.invoke(
        app, ["grade", "original/breakout", str(path), "--episodes", "5", "--engine", "reference"], env=WIDE
    )
    assert result.exit_code == 0, result.output
    for fact in ("original/breakout", "normalised score", "95% interval", "mean episode length", "edit count"):
        assert fact in result.stdout, fact
    score = graded(["original/breakout", "--episodes", "5", "--engine", "reference"])
    assert f"(± {score['half_width']:.4f})" in result.stdout
    assert f"episodes for ± 0.01 {score['episodes_for_0.01']:,}" in " ".join(result.stdout.replace("│", "").split())


def test_grade_reports_a_bad_answer_and_fails():
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", "--episodes", "3", "-"], input="no weights", env=WIDE)
    assert result.exit_code == 1
    assert "no ```edits block" in result.stdout
    score = graded(["breakout"], "no weights", code=1)
    assert score["error"] and score["normalized"] == 0.0 and score["episodes"] == []


def test_grade_reports_a_missing_file(tmp_path):
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", str(tmp_path / "absent.txt")], env=WIDE)
    assert result.exit_code == 2 and "there is no answer file" in result.output


def test_grade_rejects_unknown_engine():
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", "--engine", "warp", "-"], input=ANSWER)
    assert result.exit_code == 2


def test_grade_defaults_to_the_tasks_own_episodes():
    task = get_task("superbeam")
    score = graded(["superbeam"], task.offline_answer("zero"))
    assert score["episodes"] == task.scoring_episodes() and len(score["episodes"]) == task.default_episodes


def test_grade_superbeam_equals_superbeam_grade_on_the_test_levels(tmp_path):
    path = tmp_path / "net.txt"
    path.write_text(get_task("superbeam").offline_answer("reference"))
    score = graded(["superbeam", "--workers", "1"], path.read_text())
    old = RUNNER.invoke(app, ["superbeam", "grade", "--levels", "test", "--json", str(path)])
    assert old.exit_code == 0, old.output
    levels = json.loads(old.stdout)
    levels.pop("seconds")
    assert score == levels and score["normalized"] > 0


def test_games_lists_every_task():
    rows = json.loads(RUNNER.invoke(app, ["games", "--json"]).stdout)
    assert [row["id"] for row in rows] == [task.id for task in all_tasks()]
    assert {"original/freeway", "superbeam"} <= {row["id"] for row in rows}
    freeway = next(row for row in rows if row["id"] == "original/freeway")
    assert (freeway["score_cap"], freeway["max_steps"], freeway["family"]) == (100.0, 2501, "minatar")
    assert 0 < freeway["reference"] <= 1 and freeway["zero"] is not None  # measured by calibrate_synth.py
    assert all(
        set(row) >= {"id", "family", "score_cap", "max_steps", "zero", "reference", "description"} for row in rows
    )


def test_games_table_in_a_real_process():
    result = subprocess.run(
        [sys.executable, "-m", "wspbench.cli", "games"],
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "250", "PATH": ""},
    )
    for fact in ("original/freeway", "2,501", "synth/ferry", "superbeam"):
        assert fact in result.stdout, fact


def test_suite_and_version():
    shown = RUNNER.invoke(app, ["suite", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout) == suite().to_json()
    assert json.loads(shown.stdout)["tasks"] == len(all_tasks())
    version = RUNNER.invoke(app, ["--version"])
    assert version.exit_code == 0 and version.stdout.startswith("wspbench ")


def test_help_lists_the_commands_in_order():
    result = RUNNER.invoke(app, ["--help"], env=WIDE)
    assert result.exit_code == 0
    lines = [line.strip("│ ").split(" ")[0] for line in result.stdout.splitlines()]
    shown = [name for name in lines if name in COMMAND_ORDER]
    assert shown == [name for name in COMMAND_ORDER if name in shown] and shown[:3] == ["run", "grade", "games"]


@pytest.mark.parametrize("flag", ["-v", "--verbose"])
def test_verbose_logs_to_stderr(flag):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wspbench.cli",
            flag,
            "grade",
            "synth/ferry",
            "--episodes",
            "2",
            "--workers",
            "1",
            "--json",
            "-",
        ],
        input=ANSWER,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "INFO" in done.stderr and "synth/ferry" in done.stderr
    assert json.loads(done.stdout)["task"] == "synth/ferry"


def test_offline_reference_run_and_leaderboard(tmp_path):
    for model in ("reference", "zero"):
        result = RUNNER.invoke(
            app,
            [
                "run",
                "--model",
                model,
                "--tasks",
                "original/breakout,original/seaquest",
                "--episodes",
                "3",
                "--workers",
                "1",
                "--out",
                str(tmp_path / model),
            ],
            env=WIDE,
        )
        assert result.exit_code == 0, result.output
        assert "original/seaquest" in result.stdout
    shown = RUNNER.invoke(app, ["runs", "show", str(tmp_path / "reference")], env=WIDE)
    assert shown.exit_code == 0 and "original/breakout" in shown.stdout
    board = RUNNER.invoke(app, ["runs", "compare", str(tmp_path / "zero"), str(tmp_path / "reference")], env=WIDE)
    assert board.exit_code == 0
    assert board.stdout.index("reference") < board.stdout.index("zero")
