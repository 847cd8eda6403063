"""`wsp replay`, `wsp weights` and `wsp report`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from wspbench.cli.app import (MAX_WORKERS, answer_or_exit, app,
                              console, errors, gif_file, output_file, rejected_or_unwritable)

def check_family(family: str | None) -> str | None:
    from wspbench.report.answers import FAMILIES

    if family is not None and family not in FAMILIES:
        raise typer.BadParameter(f"choose one of {', '.join(FAMILIES)}")
    return family



@app.command("replay")
def replay_command(
    task: str = typer.Argument(..., help="Task id: original/breakout, synth/ferry, superbeam, ..."),
    answer: str = typer.Argument(..., help="File with the reply (or weights JSON), or - for standard input."),
    out: Path = typer.Option(Path("replay.gif"), callback=gif_file, help="The GIF to write."),
    episodes: int = typer.Option(1, min=1, max=20, help="Episodes (SUPERBEAM: levels) to play one after another."),
    seed: int = typer.Option(None, min=0, max=10**9, help="First episode index (seeds 1729+e, 7919+e; default 0), or for SUPERBEAM "
                                        "the first level (default: the first held-out level)."),
    max_frames: int = typer.Option(1000, min=1, max=10_000, help="Frames kept per episode (the episode is still "
                                                                 "played out)."),
    frame_ms: int = typer.Option(80, min=10, max=60_000, help="Milliseconds per frame."),
) -> None:
    """Animated GIF of the network playing the graded episodes, with actions and probabilities."""
    from wspbench.export.catalog import task_info
    from wspbench.report.replay import replay

    try:
        task_info(task, 1)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="TASK") from None
    text = answer_or_exit(answer)
    with rejected_or_unwritable(out):
        summary = replay(task, text, out, episodes, seed, max_frames, frame_ms)
    table = Table(title=f"{task}: {out} ({summary.frames} frames, {summary.size[0]}x{summary.size[1]})")
    for column in ("episode", "return", "steps", "result"):
        table.add_column(column)
    for e in summary.episodes:
        table.add_row(e.label, f"{e.score:g}", str(e.length), e.result.get("outcome", ""))
    console.print(table)


@app.command("weights")
def weights_command(
    answer: str = typer.Argument(..., help="File with the reply (or weights JSON), or - for standard input."),
    out: Path = typer.Option(Path("weights.png"), callback=output_file, help="The PNG to write."),
    family: str = typer.Option(None, callback=check_family, help="minatar or superbeam (default: from the "
                                                                  "answer's format)."),
) -> None:
    """A picture of the weights: W1 as channel maps per hidden unit, the other tensors as heatmaps."""
    from wspbench.report.weights import weights_png

    text = answer_or_exit(answer)
    with rejected_or_unwritable(out):
        kind, size = weights_png(text, out, family)
    console.print(f"wrote {out} ({kind} network, {size[0]}x{size[1]})", markup=False)


@app.command("report")
def report_command(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories written by `wsp run`."),
    out: Path = typer.Option(Path("report"), help="Folder for index.html, report.md, charts and replays."),
    replays: bool = typer.Option(True, help="Write a replay GIF of each usable answer's first graded episode."),
    replay_frames: int = typer.Option(200, min=1, max=10_000, help="Frames kept per replay."),
    regrade: bool = typer.Option(True, help="Grade answers again when a record lacks per-episode returns "
                                            "(needed for the MinAtar confidence intervals)."),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes for grading again (default: all "
                                                                   "cores)."),
) -> None:
    """Static HTML and Markdown report with 95% intervals, parse failures, tokens, cost and replays."""
    from wspbench.report.report import build_report

    try:
        files = build_report(run_dirs, out, replays, replay_frames, regrade, workers)
    except (OSError, ValueError) as error:  # a missing or corrupt run directory, an unwritable folder
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    console.print(f"wrote {files[0]} and {len(files) - 1} more files in {out}", markup=False)


