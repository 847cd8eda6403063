"""The `wsp` command: parses arguments, calls the library, prints tables. No logic of its own."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from superbeam.cli import chip8_app
from wspbench.evaluation import ENGINES
from wspbench.grading import grade_answer
from wspbench.tasks import MinAtarTask, all_minatar_tasks

app = typer.Typer(help="wspbench: weight-space programming benchmarks.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
app.add_typer(chip8_app, name="chip8", help="CHIP-8 tools: assemble, run and disassemble programs.")
console = Console()
errors = Console(stderr=True)

MAX_ANSWER_FILE_BYTES = 16 * 1024 * 1024


@contextmanager
def progress_bar(label: str, total: int):
    """A rich progress bar on stderr; yields the callback the engine calls with finished episodes."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=errors, transient=True) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda done: progress.advance(bar, done)


def read_answer(path: str) -> str:
    """An answer file, or standard input for `-`, read with a size bound."""
    stream = sys.stdin.buffer if path == "-" else open(path, "rb")
    with stream:
        data = stream.read(MAX_ANSWER_FILE_BYTES + 1)
    if len(data) > MAX_ANSWER_FILE_BYTES:
        raise typer.BadParameter(f"{path} is larger than {MAX_ANSWER_FILE_BYTES:,} bytes")
    return data.decode("utf-8", errors="replace")


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise typer.BadParameter(f"choose one of {', '.join(ENGINES)}")
    return engine


def grade_table(name: str, result: dict) -> Table:
    """One graded answer as a two-column table (or its error)."""
    table = Table(title=name)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("task", f"{result['source']}/{result['game']}")
    table.add_row("episodes", str(result["episodes"]))
    if "error" in result:
        table.add_row("normalised score", "0")
        table.add_row("error", f"[red]{result['error']}[/red]")
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


def examples_table(rows: list[tuple[str, dict]]) -> Table:
    table = Table(title="Example answers shipped with wspbench")
    for column in ("game", "answer", "normalised", "raw score", "mean length", "non-zero", "seconds"):
        table.add_column(column, justify="left" if column in ("game", "answer") else "right")
    for name, result in rows:
        if "error" in result:
            table.add_row(result["game"], name, "0", f"[red]{result['error']}[/red]", "", "", "")
        else:
            table.add_row(result["game"], name, f"{result['normalized_score']:.4f}", f"{result['raw_score']:.2f}",
                          f"{result['mean_episode_length']:.1f}", str(result["nonzero_weights"]),
                          f"{result['seconds']:.1f}")
    return table


@app.command()
def grade(
    answer: str = typer.Argument(..., help="File with the model's reply, or - for standard input."),
    game: str = typer.Option(..., "--game", "-g", help="Game name, e.g. breakout."),
    source: str = typer.Option("original", help="original (the minatar package) or synth (minatar_synth)."),
    episodes: int = typer.Option(1000, min=1, help="Episodes to play (episode e uses seeds 1729+e, 7919+e)."),
    workers: int = typer.Option(None, min=1, help="Processes to use (default: all cores)."),
    engine: str = typer.Option("fast", callback=check_engine, help="fast (batched, default) or reference."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Grade an answer (a reply with an ```edits block) on a MinAtar task."""
    task = MinAtarTask(game, source)
    text = read_answer(answer)
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
    """List the games with their score caps."""
    from wspbench.games import minatar_original, synth

    table = Table()
    for column in ("game", "source", "cap", "description"):
        table.add_column(column, justify="right" if column == "cap" else "left")
    for task in all_minatar_tasks():
        if task.source == "original":
            description = minatar_original.ORIGINAL_DESCRIPTIONS[task.game]
        else:
            description = synth.description(task.game)
        table.add_row(task.game, task.source, f"{task.score_cap:g}", description)
    console.print(table)


@app.command()
def examples(
    episodes: int = typer.Option(50, min=1, help="Episodes per example."),
    workers: int = typer.Option(None, min=1, help="Processes to use (default: all cores)."),
) -> None:
    """Grade the example answers shipped with wspbench (offline): each game's program and the zero network."""
    folder = resources.files("wspbench") / "examples"
    zero = (folder / "zero.txt").read_text()
    rows = []
    tasks = [task for task in all_minatar_tasks() if task.source == "original"]
    with progress_bar("examples", episodes * 2 * len(tasks)) as advance:
        for task in tasks:
            example = folder / f"{task.game}.txt"
            for name, text in (("zero.txt", zero), (f"{task.game}.txt", example.read_text())):
                rows.append((name, grade_answer(task, text, episodes, workers=workers, progress=advance)))
    console.print(examples_table(rows))


@app.command()
def verify(
    trajectory: Path = typer.Option(None, help="Trajectory JSON (default: /logs/trajectory.json, "
                                               "else /logs/agent/trajectory.json)."),
    reward: Path = typer.Option(Path("/logs/verifier/reward.json"), help="Where to write the reward."),
    workers: int = typer.Option(None, min=1, help="Processes to use (default: all cores)."),
) -> None:
    """Harbor verifier: grade the trajectory's last assistant message (WEIGHT_SPACE_* variables)."""
    from wspbench.verifier import verify as run_verifier

    result = run_verifier(trajectory, reward, workers=workers)
    console.print_json(json.dumps(result))


if __name__ == "__main__":
    app()
