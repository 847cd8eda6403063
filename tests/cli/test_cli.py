"""The `wsp` command, run as a user runs it: grade, games, suite, --version, --help, run."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wspbench.baselines import measured
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
    assert f"episodes for ± 0.01 (95%) {score['episodes_for_0.01']:,}" in " ".join(
        result.stdout.replace("│", "").split()
    )


def test_grade_reports_a_bad_answer_and_fails():
    result = RUNNER.invoke(app, ["grade", "-g", "breakout", "--episodes", "3", "-"], input="no weights", env=WIDE)
    assert result.exit_code == 1
    assert "no ```edits block" in result.stdout
    score = graded(["breakout"], "no weights", code=1)
    assert score["error"] and score["normalized"] == score["unclipped"] == 0.0 and score["episodes"] == []


def test_grade_shows_a_score_above_its_cap():
    """synth/firefighter's reference returns 59, 57 and 53 on the first three episodes, above the cap of 55: the
    normalised score says 1, the unclipped one (raw / cap) by how much, in the table and in --json."""
    reference = get_task("synth/firefighter").offline_answer("reference")
    args = ["synth/firefighter", "--episodes", "3", "--workers", "1"]
    score = graded(args, reference)
    assert (score["values"], score["score_cap"], score["normalized"]) == ([59.0, 57.0, 53.0], 55.0, 1.0)
    assert score["unclipped"] == 1.0242424242424242  # 56.333... / 55
    result = RUNNER.invoke(app, ["grade", *args, "-"], input=reference, env=WIDE)
    assert result.exit_code == 0, result.output
    shown = " ".join(result.stdout.replace("│", "").split())
    assert "normalised score 1.00000 unclipped (raw / cap) 1.02424 (above the cap)" in shown


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
    assert (freeway["score_cap"], freeway["max_steps"], freeway["family"]) == (100.0, 2501, "original")
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


def test_piped_tables_are_never_cut():
    """Standard output that is not a terminal (here captured, and $COLUMNS narrow): whole ids, no ellipsis, each
    row on one line; for `wsp games` and for the wide `wsp baselines` table."""
    games = RUNNER.invoke(app, ["games"], env={"COLUMNS": "80"})
    assert games.exit_code == 0 and "…" not in games.stdout
    lines = games.stdout.splitlines()
    for task in all_tasks():
        assert any(line.startswith(f"│ {task.id} ") and task.facts.description in line for line in lines), task.id
    board = RUNNER.invoke(app, ["baselines"], env={"COLUMNS": "80"})
    assert board.exit_code == 0 and "…" not in board.stdout
    rows = [line for line in board.stdout.splitlines() if line.startswith("│ ")]
    writing = [line for line in rows if line.count("│") == 13]  # twelve columns, each row whole on one line
    reading = [line for line in rows if line.count("│") == 4]  # the reading floors: family, tasks, floors
    tasks, families = measured.load()["tasks"], measured.family_means(measured.load()["tasks"])
    assert len(writing) == len(tasks) + len(families) and len(writing) + len(reading) == len(rows)  # and the means
    assert {line.split("│")[1].strip() for line in reading} == {"identify", "identify-choice", "repair"}
    piped = subprocess.run(
        [sys.executable, "-m", "wspbench.cli", "games"],
        capture_output=True,
        text=True,
        check=True,
        env=_env(COLUMNS="60"),
    )
    assert "…" not in piped.stdout and "│ identify-choice/treasure_dive/1 " in piped.stdout


def test_help_shows_text_as_written():
    """No rich markup in help: `wspbench[ray]` stays whole, flags show no `<bool>`; `--tasks` names the reading
    families."""
    grade = " ".join(RUNNER.invoke(app, ["grade", "--help"]).stdout.split())
    assert "pip install 'wspbench[ray]'" in grade and "<bool>" not in grade
    assert "<bool>" not in RUNNER.invoke(app, ["--help"]).stdout
    run = " ".join(RUNNER.invoke(app, ["run", "--help"]).stdout.split()).replace("- ", "-")  # click breaks at "-"
    assert all(family in run for family in ("identify/*", "identify-choice/*", "repair/*"))


@pytest.mark.parametrize(
    ("task_id", "args"),
    [
        ("synth/ferry", ["--protocol", "feedback", "--rounds", "3", "--episodes", "50"]),
        ("original/breakout", []),
        ("identify-choice/ferry/3", []),
        ("superbeam", ["--protocol", "feedback"]),
    ],
)
def test_prompt_prints_the_messages_a_model_gets(task_id, args):
    """`task.messages` under the RunConfig that `wsp run` with these options builds (harness/protocols.py)."""
    from wspbench.protocols import make

    options = dict(zip(args[::2], args[1::2], strict=True))
    rounds = int(options["--rounds"]) if "--rounds" in options else None
    protocol = make(options.get("--protocol", "one-shot"), rounds=rounds, episodes=int(options.get("--episodes", 1000)))
    expected = get_task(task_id).messages(protocol)
    shown = RUNNER.invoke(app, ["prompt", task_id, *args, "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout) == expected
    text = RUNNER.invoke(app, ["prompt", task_id, *args])
    assert text.stdout == "".join(f"--- {m['role']} ---\n{m['content']}\n" for m in expected)


def test_prompt_refuses_a_protocol_the_task_has_not():
    result = RUNNER.invoke(app, ["prompt", "identify/asterix/4", "--protocol", "feedback"])
    assert result.exit_code == 2 and "runs under one-shot" in result.output


def _table(stdout: str) -> dict[str, str]:
    """A two-column table's rows as {metric: value}."""
    cells = [[cell.strip() for cell in line.strip("│").split("│")] for line in stdout.splitlines() if "│" in line]
    return {row[0]: row[1] for row in cells if len(row) == 2}


def test_episodes_for_says_when_no_count_of_the_tasks_episodes_would_do():
    """SUPERBEAM has 20 levels: a reply that wins some needs thousands for ± 0.01, which do not exist; an
    identify task has one question, which shows no spread."""
    superbeam = get_task("superbeam")
    result = RUNNER.invoke(
        app, ["grade", "superbeam", "-", "--workers", "1"], input=superbeam.offline_answer("reference")
    )
    assert result.exit_code == 0, result.output
    assert _table(result.stdout)["episodes for ± 0.01 (95%)"] == "n/a (more than the 20 the task has)"
    identify = get_task("identify/asterix/4")
    result = RUNNER.invoke(app, ["grade", identify.id, "-"], input=identify.offline_answer("reference"))
    assert result.exit_code == 0, result.output
    assert _table(result.stdout)["episodes for ± 0.01 (95%)"] == "n/a (one episode shows no spread)"


def test_games_shows_the_measured_superbeam_baselines():
    from wspbench.baselines import measured

    rows = {row["id"]: row for row in json.loads(RUNNER.invoke(app, ["games", "--json"]).stdout)}
    measured = measured.of_task("superbeam")
    assert (rows["superbeam"]["zero"], rows["superbeam"]["reference"]) == (
        measured["zero"]["score"],
        measured["reference"]["score"],
    )
    table = RUNNER.invoke(app, ["games"]).stdout
    assert any(line.startswith("│ superbeam ") and "0.850" in line for line in table.splitlines())


def test_weights_names_the_network_it_read_not_a_task(tmp_path):
    out = tmp_path / "w.png"
    guessed = RUNNER.invoke(app, ["weights", "-", "--out", str(out)], input=ANSWER)
    assert guessed.exit_code == 0, guessed.output
    said = " ".join(guessed.stdout.split())
    assert "the edits answer of a 600 -> 32 -> 32 -> 6" in said and "original/" not in said
    named = RUNNER.invoke(app, ["weights", "-", "--out", str(out), "--task", "synth/ferry"], input=ANSWER)
    assert "the answer read as synth/ferry reads it" in " ".join(named.stdout.split())
    superbeam = RUNNER.invoke(
        app, ["weights", "-", "--out", str(out)], input=get_task("superbeam").offline_answer("reference")
    )
    assert "the json answer of a 8 -> 16 -> 6" in " ".join(superbeam.stdout.split())


def _env(**extra: str) -> dict[str, str]:
    """This process's environment (the sources under test on PYTHONPATH), with `extra`."""
    import os

    return {**os.environ, **extra}


def test_compiling_the_engine_says_so_once_and_warm_runs_say_nothing(tmp_path):
    """A cold numba cache (here an empty NUMBA_CACHE_DIR): one line on stderr before compiling; stopped there.
    With the cache built (`wsp warmup`), neither `wsp warmup` nor a grade prints it."""
    from wspbench.evaluation.compiled.batch import warm_up
    from wspbench.evaluation.compiled.engine import COMPILING

    cold = subprocess.Popen(
        [sys.executable, "-m", "wspbench.cli", "warmup"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(NUMBA_CACHE_DIR=str(tmp_path)),
    )
    try:
        assert cold.stderr.readline().strip() == COMPILING
    finally:
        cold.kill()
        cold.wait()
    assert "first run only, about" in COMPILING and "wsp warmup" in COMPILING
    warm_up()  # this test process's cache, which the commands below share
    shown = {}
    for args in (["warmup"], ["grade", "original/breakout", "-", "--episodes", "2", "--workers", "1"]):
        done = subprocess.run(
            [sys.executable, "-m", "wspbench.cli", *args], input=ANSWER, capture_output=True, text=True, env=_env()
        )
        assert done.returncode == 0 and "compiling" not in done.stderr, done.stderr
        shown[args[0]] = done.stdout
    assert "loaded from the cache" in shown["warmup"] and "original/breakout" in shown["grade"]


def test_wsp_games_selects_tasks_as_wsp_run_does():
    from wspbench.tasks import select

    for selector in ("gen", "repair/*", "original/breakout,synth/ferry"):
        listed = CliRunner().invoke(app, ["games", "--tasks", selector, "--json"])
        assert listed.exit_code == 0, listed.output
        assert [row["id"] for row in json.loads(listed.output)] == [task.id for task in select(selector)]
    table = " ".join(CliRunner().invoke(app, ["games", "--tasks", "original/breakout"]).output.split())
    assert "cap: the raw score (mean return) that normalises to 1; steps: an episode's longest" in table
    wrong = CliRunner().invoke(app, ["games", "--tasks", "original/breakot"])
    assert wrong.exit_code == 2 and "did you mean original/breakout" in wrong.output


@pytest.mark.parametrize("width", [80, 120, 200])
def test_wsp_games_shows_every_id_whole_in_a_terminal(width):
    """issue 52: at 80 columns every id read `original…`, and at 120 `identify-choice/asterix/1` and `/3` looked
    the same. Now no cell is cut: the descriptions (then the families, which the ids begin with) make room."""
    from rich.console import Console

    from wspbench.cli.grading import game_rows, games_table

    rows = game_rows("all")
    terminal = Console(width=width, force_terminal=True, color_system=None, record=True, file=io.StringIO())
    terminal.print(games_table(rows, width))
    lines = terminal.export_text().splitlines()
    assert "…" not in "\n".join(lines) and max(map(len, lines)) <= width
    cells = {cell.strip() for line in lines for cell in line.replace("│", "|").split("|")}
    shown = {row["id"] for row in rows} & {cell.split()[0] for cell in cells if cell}
    assert shown == {row["id"] for row in rows}  # every id, whole, in a cell of its own
    assert ("description" in lines[1]) == (width >= 200) and ("family" in lines[1]) == (width >= 120)


def test_wsp_games_shows_the_bound_a_game_has_as_optimal(monkeypatch):
    """issue 48: a game's hindsight bound, where `benchmarks/calibrate_bound.py --publish` wrote one, is shown
    beside its cap (`optimal`); a game without one shows none, and a private set's game never the public one's."""
    from wspbench.cli.grading import game_rows
    from wspbench.tasks import minatar

    monkeypatch.setattr(minatar, "bound_calibration", lambda: {"ferry": {"mean": 21.5}})
    rows = {row["id"]: row for row in game_rows("synth/ferry,synth/heat_gun,identify/asterix/4")}
    assert rows["synth/ferry"]["optimal"] == 21.5
    assert rows["synth/heat_gun"]["optimal"] is None and rows["identify/asterix/4"]["optimal"] is None
    assert minatar.MinAtarTask(minatar.MinAtarGame("ferry", "synth"), private_set=Path("elsewhere")).optimal() is None
    from wspbench.report.report import baseline_cells

    cap = get_task("synth/ferry").facts.score_cap
    assert baseline_cells("synth/ferry")[-1] == f"{21.5 / cap:.4f}"  # reports: the bound over the cap, unclipped
    assert baseline_cells("synth/heat_gun")[-1] == baseline_cells("no/such/task")[-1] == "-"
