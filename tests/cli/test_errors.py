"""Every `wsp` command with bad values: a clear message and exit code 0/1/2, never a traceback.

1 = the answer (or program) was rejected, 2 = usage error: unknown task, game or source, bad level or range, a
file that is missing, not a regular file or cannot be written.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from wspbench.cli import app

RUNNER = CliRunner()
WIDE = {"COLUMNS": "400"}
ANSWER = "Always right.\n```edits\nb3[3] = 9\n```\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Paths the cases below refer to by name."""
    root = tmp_path_factory.mktemp("cli")
    paths = {
        "dir": root / "a_dir",
        "missing": root / "missing.txt",
        "bad": root / "bad.txt",
        "good": root / "good.txt",
        "corrupt_run": root / "corrupt_run",
        "huge": root / "huge.txt",
        "huge_rom": root / "huge.ch8",
        "huge_asm": root / "huge.asm",
        "missing_asm": root / "missing.asm",
        "ok_asm": root / "ok.asm",
        "jsonl": root / "rows.jsonl",
    }
    paths["dir"].mkdir()
    paths["bad"].write_text("no weights here [/red] [bold")
    paths["good"].write_text(ANSWER)
    paths["corrupt_run"].mkdir()
    (paths["corrupt_run"] / "manifest.json").write_text("{not json")
    for name, size in (("huge", 5_000_000), ("huge_asm", 2_000_000)):
        with open(paths[name], "wb") as handle:
            handle.truncate(size)  # sparse: no disk used
    paths["huge_rom"].write_bytes(b"\x00\xe0" * 2000)
    paths["ok_asm"].write_text("loop:\n    JP loop\n")
    return {name: str(path) for name, path in paths.items()}


CASES = [
    # wsp grade
    (["grade", "--source", "synthetic", "-g", "A", "{good}"], 2, "unknown task 'A'"),
    (["grade", "--source", "synthetic", "-g", "ferry", "{good}"], 2, "there is no task 'synthetic/ferry'"),
    (["grade", "--source", "original", "-g", "ferry", "{good}"], 2, "ferry is synth/ferry"),
    (["grade", "--source", "synth", "{good}"], 2, "--source needs --game"),
    (["grade", "-g", "Breakout", "{good}"], 2, "did you mean original/breakout?"),
    (["grade", "-g", "no_such_game", "{good}"], 2, "unknown task 'no_such_game'"),
    (["grade", "no_such_game", "{good}"], 2, "unknown task 'no_such_game'"),
    (["grade", "original__freeway", "{good}"], 2, "did you mean original/freeway?"),
    (["grade", "minatar/original/freeway", "{good}"], 2, "unknown task"),
    (["grade", "breakout"], 2, "missing"),
    (["grade", "-g", "breakout", "breakout", "{good}"], 2, "not both"),
    (["grade", "-g", "ferry", "--episodes", "2", "{bad}"], 1, "no ```edits block"),
    (["grade", "superbeam", "{bad}"], 1, "no JSON object"),
    (["grade", "superbeam", "--json", "{bad}"], 1, '"normalized": 0.0'),
    (["grade", "-g", "breakout", "--episodes", "0", "{good}"], 2, "--episodes"),
    (["grade", "-g", "breakout", "--episodes", "100001", "{good}"], 2, "--episodes"),
    (["grade", "-g", "breakout", "--workers", "0", "{good}"], 2, "--workers"),
    (["grade", "-g", "breakout", "{dir}"], 2, "is not a regular file"),
    (["grade", "-g", "breakout", "{missing}"], 2, "there is no answer file"),
    (["grade", "-g", "breakout", "{huge}"], 1, "more than 4,000,000 bytes"),
    (["grade", "-g", "breakout", "--json", "{huge}"], 1, '"error": "'),
    (["grade", "superbeam", "--json", "{huge}"], 1, "more than 800,000 bytes"),
    # wsp verify, wsp games
    (["verify", "--workers", "0"], 2, "--workers"),
    (["games", "extra"], 2, "No such command 'extra'"),
    (["suite", "extra"], 2, "unexpected extra argument"),
    (["--verbose=x", "games"], 2, "--verbose"),
    # wsp run (option validation only)
    (["run", "--model", "zero", "--protocol", "x"], 2, "unknown protocol 'x' (protocols: one-shot, feedback, agent)"),
    (
        ["run", "--model", "zero", "--protocol", "oneshot"],
        2,
        "Invalid value for --protocol: unknown protocol 'oneshot' (protocols: one-shot, feedback, agent; did you mean "
        "one-shot?)",
    ),
    (["run", "--model", "zero", "--tasks", "nope"], 2, "no task matches"),
    (["run", "--model", "zero", "--temperature", "nan"], 2, "--temperature"),
    (["run", "--model", "zero", "--timeout", "inf"], 2, "finite"),
    (["run", "--model", "zero", "--rounds", "0"], 2, "--rounds"),
    (["run", "--model", "zero", "--workers", "100000"], 2, "--workers"),
    # wsp runs show/compare, report
    (["runs", "show", "{missing}"], 2, "not a run directory"),
    (["runs", "show", "{corrupt_run}"], 2, "manifest"),
    (["runs", "compare", "{missing}"], 2, "not a run directory"),
    (["report", "{missing}"], 2, "not a run directory"),
    (["report", "{corrupt_run}"], 2, ""),
    # wsp replay, weights
    (["replay", "nope", "{good}"], 2, "unknown task 'nope'"),
    (["replay", "original/breakout", "{dir}"], 2, "is not a regular file"),
    (["replay", "original/breakout", "{bad}"], 1, "no ```edits block"),
    (["replay", "original/breakout", "{huge}"], 1, "more than"),
    (["replay", "original/breakout", "{good}", "--episodes", "0"], 2, "--episodes"),
    (["replay", "original/breakout", "{good}", "--max-frames", "3", "--out", "{dir}"], 2, "is not a regular file"),
    (["replay", "original/breakout", "{good}", "--out", "{good}.xyz"], 2, "does not end in .gif"),
    (["weights", "{good}", "--task", "nope"], 2, "unknown task"),
    (["weights", "{bad}", "--out", "{dir}/w.png"], 1, "no ```edits block"),
    (["weights", "{good}", "--out", "{dir}"], 2, "is not a regular file"),
    (["weights", "{good}", "--out", "{good}/w.png"], 2, "cannot write"),
    (["replay", "original/breakout", "{good}", "--max-frames", "3", "--out", "{good}/r.gif"], 2, "cannot write"),
    # wsp export jsonl
    (["export", "jsonl", "{dir}"], 2, "is not a regular file"),
    (["export", "jsonl", "{good}/rows.jsonl"], 2, "cannot write"),
    (["export", "jsonl", "{jsonl}", "--tasks", "nope"], 2, "no task matches"),
    (["export", "jsonl", "{jsonl}", "--episodes", "0"], 2, "--episodes"),
    (["export", "harbor", "{good}", "--tasks", "original/breakout"], 2, "is not a folder"),
    # wsp superbeam grade/play
    (["superbeam", "grade", "{bad}", "--json"], 1, '"normalized": 0.0'),
    (["superbeam", "grade", "{bad}"], 1, "score 0"),
    (["superbeam", "grade", "{huge}", "--json"], 1, "more than"),
    (["superbeam", "grade", "{good}", "--difficulty", "2"], 2, "--difficulty"),
    (["superbeam", "grade", "{good}", "--difficulty", "nan"], 2, "--difficulty"),
    (["superbeam", "grade", "{good}", "--levels", "5..1"], 2, "--levels"),
    (["superbeam", "grade", "{good}", "--levels", "abc"], 2, "--levels"),
    (["superbeam", "grade", "{dir}"], 2, "is not a regular file"),
    (["superbeam", "play", "--level", "abc"], 2, "--level"),
    (["superbeam", "play", "--difficulty", "-1"], 2, "--difficulty"),
    (["superbeam", "play", "--weights", "{bad}"], 1, "no JSON object"),
    (["superbeam", "play", "--weights", "{dir}"], 2, "is not a regular file"),
    (["superbeam", "play", "--weights", "{missing}"], 2, "there is no weights file"),
    (["superbeam", "play", "--level", "classic", "--no-show", "--gif", "{dir}"], 2, "is not a regular file"),
    (["superbeam", "play", "--level", "classic", "--no-show", "--gif", "{good}/p.gif"], 2, "cannot write"),
    # wsp chip8 asm/run/disasm
    (["chip8", "run", "{missing}"], 2, "there is no ROM"),
    (["chip8", "run", "{dir}"], 2, "is not a regular file"),
    (["chip8", "run", "{huge_rom}"], 1, "more than 3,584 bytes"),
    (["chip8", "run", "{ok_asm}", "--key", "99"], 2, "--key"),
    (["chip8", "run", "{ok_asm}", "--frames", "-5"], 2, "--frames"),
    (["chip8", "run", "{ok_asm}", "--frames", "1", "--png", "{dir}"], 2, "is not a regular file"),
    (["chip8", "run", "{ok_asm}", "--frames", "1", "--png", "{good}/s.png"], 2, "cannot write"),
    (["chip8", "asm", "{missing_asm}"], 2, "there is no source file"),
    (["chip8", "asm", "{huge_asm}"], 1, "more than 1,048,576 bytes"),
    (["chip8", "asm", "{ok_asm}", "--out", "{dir}"], 2, "is not a regular file"),
    (["chip8", "disasm", "{dir}"], 2, "is not a regular file"),
]


@pytest.mark.parametrize("args, code, message", CASES, ids=[" ".join(c[0])[:70] for c in CASES])
def test_bad_values_give_a_message_and_an_exit_code(files, args, code, message):
    result = RUNNER.invoke(app, [arg.format(**files) for arg in args], env=WIDE)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == code, result.output
    assert message in result.output
    assert "Traceback" not in result.output


FIFO_SCRIPT = textwrap.dedent("""
    import json, sys
    from typer.testing import CliRunner
    from wspbench.cli import app
    fifo = sys.argv[1]
    commands = [["grade", "-g", "breakout", fifo], ["superbeam", "grade", fifo], ["superbeam", "play", "--weights",
                fifo], ["chip8", "run", fifo], ["chip8", "disasm", fifo], ["replay", "original/breakout", fifo],
                ["weights", fifo]]
    for args in commands:
        result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
        print(json.dumps([result.exit_code, "not a regular file" in result.output]))
""")


def test_a_fifo_is_not_read(tmp_path):
    """A FIFO with no writer would block a plain open() forever: every command refuses it at once."""
    fifo = tmp_path / "answer.fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-c", FIFO_SCRIPT, str(fifo)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [[2, True]] * 7


def test_grade_json_reports_an_unknown_game_as_a_usage_error():
    result = RUNNER.invoke(app, ["grade", "-g", "ferry", "--source", "original", "--json", "-"], input=ANSWER, env=WIDE)
    assert result.exit_code == 2 and "normalized" not in result.output


def test_grade_infers_the_source_from_the_game():
    result = RUNNER.invoke(
        app, ["grade", "-g", "ferry", "--episodes", "2", "--workers", "1", "--json", "-"], input=ANSWER, env=WIDE
    )
    assert result.exit_code == 0, result.output
    graded = json.loads(result.stdout.strip().splitlines()[-1])
    assert graded["task"] == "synth/ferry" and graded["error"] is None


def test_a_real_process_prints_no_traceback(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "wspbench.cli", "grade", "--source", "synthetic", "-g", "A", "-"],
        input=ANSWER,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **WIDE},
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr and "unknown task" in done.stderr


TYPOS = [
    ["grade", "original/brekout", "{good}"],
    ["grade", "-g", "brekout", "{good}"],
    ["run", "--model", "zero", "--tasks", "original/brekout"],
    ["run", "--model", "zero", "--tasks", "original/*,original/brekout"],
    ["export", "jsonl", "{jsonl}", "--tasks", "original/brekout"],
    ["replay", "original/brekout", "{good}"],
    ["weights", "{good}", "--task", "original/brekout"],
]


@pytest.mark.parametrize("args", TYPOS, ids=[" ".join(a)[:60] for a in TYPOS])
def test_a_typo_gets_a_suggestion_not_the_suite(files, args):
    """`wsp grade original/brekout` printed 83 lines with all 170 ids; now one close id and where to look."""
    result = RUNNER.invoke(app, [arg.format(**files) for arg in args], env=WIDE)
    assert result.exit_code == 2, result.output
    output = " ".join(result.output.split())
    assert "did you mean original/breakout?" in output and "`wsp games` lists the" in output
    assert "repair/" not in output and "identify" not in output and len(result.output.splitlines()) <= 6
