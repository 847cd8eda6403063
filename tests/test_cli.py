"""The `wsp` command, run as a user runs it."""

import json
import subprocess
import sys

from typer.testing import CliRunner

from wspbench.cli import app

RUNNER = CliRunner()
ANSWER = "Always right.\n```edits\nb3[3] = 9\n```\n"


def test_grade_json_from_stdin_matches_the_conformance_result(expected):
    result = RUNNER.invoke(app, ["grade", "--game", "breakout", "--episodes", "100", "--json", "-"],
                           input=ANSWER)
    assert result.exit_code == 0, result.output
    graded = json.loads(result.stdout.strip().splitlines()[-1])
    reference = expected["results"]["breakout"]["always_right"]
    assert {key: graded[key] for key in reference} == reference


def test_grade_table_from_a_file(tmp_path):
    path = tmp_path / "answer.txt"
    path.write_text(ANSWER)
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", "--episodes", "5", "--engine", "reference", str(path)])
    assert result.exit_code == 0, result.output
    assert "normalised score" in result.stdout and "mean episode length" in result.stdout


def test_grade_reports_a_bad_answer_and_fails():
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", "--episodes", "3", "-"], input="no weights")
    assert result.exit_code == 1
    assert "no ```edits block" in result.stdout


def test_grade_reports_a_missing_file(tmp_path):
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", str(tmp_path / "absent.txt")], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "there is no answer file" in result.output


def test_grade_rejects_unknown_engine():
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", "--engine", "warp", "-"], input=ANSWER)
    assert result.exit_code == 2


def test_games_lists_caps():
    result = subprocess.run([sys.executable, "-m", "wspbench.cli", "games"], capture_output=True, text=True,
                            check=True, env={"COLUMNS": "200", "PATH": ""})
    assert "freeway" in result.stdout and "100" in result.stdout and "synth" in result.stdout


def test_offline_reference_run_and_leaderboard(tmp_path):
    for model in ("reference", "zero"):
        result = RUNNER.invoke(app, ["run", "--model", model, "--tasks", "original/breakout,original/seaquest",
                                     "--episodes", "3", "--workers", "1", "--out", str(tmp_path / model)],
                               env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        assert "original/seaquest" in result.stdout
    shown = RUNNER.invoke(app, ["runs", "show", str(tmp_path / "reference")], env={"COLUMNS": "200"})
    assert shown.exit_code == 0 and "original/breakout" in shown.stdout
    board = RUNNER.invoke(app, ["runs", "compare", str(tmp_path / "zero"), str(tmp_path / "reference")],
                          env={"COLUMNS": "200"})
    assert board.exit_code == 0
    assert board.stdout.index("reference") < board.stdout.index("zero")
