"""`wsp grade`, `wsp games` and `wsp verify`."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from wspbench.grading import find_task, grade_answer

from wspbench.cli.app import (MAX_ANSWER_CHARS, MAX_EPISODES, MAX_WORKERS, InputTooLarge, app,
                              check_engine, console, progress_bar,
                              read_answer)

def grade_table(name: str, result: dict) -> Table:
    """One graded answer as a two-column table (or its error)."""
    table = Table(title=name)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("task", f"{result['source']}/{result['game']}")
    table.add_row("episodes", str(result["episodes"]))
    if "error" in result:
        table.add_row("normalised score", "0")
        table.add_row("error", Text(result["error"], style="red"))
        return table
    for label, value in (
        ("normalised score", f"{result['normalized_score']:.5f}"),
        ("raw score (mean return)", f"{result['raw_score']:.3f}"),
        ("score cap", f"{result['score_cap']:g}"),
        ("mean episode length", f"{result['mean_episode_length']:.2f}"),
        ("edits applied", str(result["edit_count"])),
        ("non-zero weights", str(result["nonzero_weights"])),
        ("seconds", f"{result['seconds']:.2f}"),
    ):
        table.add_row(label, value)
    return table


@app.command()
def grade(
    answer: str = typer.Argument(..., help="File with the model's reply, or - for standard input."),
    game: str = typer.Option(..., "--game", "-g", help="Game name, e.g. breakout (see `wsp games`)."),
    source: str = typer.Option(None, help="original (the minatar package) or synth (minatar_synth); default: "
                                          "the game's source (game names are unique)."),
    episodes: int = typer.Option(1000, min=1, max=MAX_EPISODES, help="Episodes to play (episode e uses seeds "
                                                                     "1729+e, 7919+e)."),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes to use (default: all cores)."),
    engine: str = typer.Option("auto", callback=check_engine, help="auto (default: compiled for original games, "
                               "fast for synthetic ones), compiled, fast or reference."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Grade an answer (a reply with an ```edits block) on a MinAtar task.

    Exit codes: 0 graded, 1 answer rejected, 2 usage error (unknown game or source, unreadable file)."""
    try:
        task = find_task(game, source)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--game/--source") from None
    try:
        text = read_answer(answer)
    except InputTooLarge as error:
        result = {"normalized_score": 0.0, "game": task.game, "source": task.source, "episodes": episodes,
                  "parse_success": 0.0, "error": f"{error}: an answer has at most {MAX_ANSWER_CHARS:,} characters"}
    else:
        with progress_bar(task.task_id, episodes) as advance:
            result = grade_answer(task, text, episodes, engine=engine, workers=workers, progress=advance)
    if as_json:
        print(json.dumps(result))
    else:
        console.print(grade_table("stdin" if answer == "-" else answer, result))
    if "error" in result:
        raise typer.Exit(1)


@app.command()
def games() -> None:
    """List the games: source, score cap, maximum length, description, calibrated scores."""
    from wspbench.games import minatar_original, synth
    from wspbench.tasks import MAX_STEPS

    calibration = json.loads((resources.files("minatar_synth") / "calibration.json").read_text())
    table = Table(caption="zero: the all-zero network; reference: the shipped program (normalised, "
                          "from benchmarks/calibrate_synth.py)")
    for column in ("game", "source", "cap", "max length", "zero", "reference", "description"):
        table.add_column(column, justify="left" if column in ("game", "source", "description") else "right")
    from wspbench.games.minatar import all_games

    for task in all_games():
        if task.source == "original":
            description = minatar_original.ORIGINAL_DESCRIPTIONS[task.game]
            max_steps = minatar_original.ORIGINAL_MAX_STEPS.get(task.game, MAX_STEPS)
        else:
            description = synth.description(task.game)
            max_steps = synth.environment_class(task.game).max_steps
        measured = calibration.get(task.game, {})
        scores = [f"{measured[key]:.3f}" if key in measured else "-" for key in ("zero", "reference")]
        table.add_row(task.game, task.source, f"{task.score_cap:g}", str(max_steps), *scores, description)
    console.print(table)


@app.command()
def verify(
    trajectory: Path = typer.Option(None, help="Trajectory JSON (default: /logs/trajectory.json, "
                                               "else /logs/agent/trajectory.json)."),
    reward: Path = typer.Option(Path("/logs/verifier/reward.json"), help="Where to write the reward."),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes to use (default: all cores)."),
) -> None:
    """Harbor verifier: grade the trajectory's last assistant message (WEIGHT_SPACE_* variables).

    Exit codes: 0 graded, 1 answer rejected, 2 bad WEIGHT_SPACE_* settings (each with a reward file), 3 no
    reward file could be written or the verifier failed (one line on stderr says why)."""
    from wspbench.verifier import main as run_verifier

    result, code = run_verifier(trajectory, reward, workers=workers)
    try:
        console.print_json(json.dumps(result))
    except OSError:  # a closed standard output does not change the reward already written
        pass
    raise typer.Exit(code)


