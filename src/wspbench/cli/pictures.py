"""`wsp replay`, `wsp weights` and `wsp report`: every task through the registry (src/wspbench/tasks/)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import typer
from rich.table import Table

from wspbench.cli.app import answer_or_exit, app, console, errors, gif_file, output_file
from wspbench.report import REPLAY_BYTES, REPLAY_SECONDS, REPLAYS_PER_FAMILY


def known_task(task: str | None) -> str | None:
    """A typer callback: an unknown task is a usage error (exit 2)."""
    from wspbench.tasks import UnknownTask, get_task

    if task is None:
        return None
    try:
        return get_task(task).id
    except UnknownTask as error:
        raise typer.BadParameter(str(error)) from None


@contextmanager
def rejected_or_unwritable(out: Path):
    """An unusable answer exits 1; a task whose episodes cannot be shown or an output file that cannot be
    written exits 2; each with one line."""
    from wspbench.report.replay import UnusableAnswer

    try:
        yield
    except UnusableAnswer as error:
        errors.print(str(error), markup=False, style="red", soft_wrap=True)
        raise typer.Exit(1) from None
    except (ValueError, NotImplementedError) as error:  # not the answer's fault: the task cannot show it
        errors.print(f"cannot draw this task: {error}", markup=False, style="red", soft_wrap=True)
        raise typer.Exit(2) from None
    except OSError as error:
        errors.print(f"cannot write {out}: {error.strerror or error}", markup=False, style="red", soft_wrap=True)
        raise typer.Exit(2) from None


@app.command("replay")
def replay_command(
    task: str = typer.Argument(
        ..., callback=known_task, help="Task id: original/breakout, synth/ferry, superbeam, ... (see `wsp games`)."
    ),
    answer: str = typer.Argument(..., help="File with the reply (or weights JSON), or - for standard input."),
    out: Path = typer.Option(Path("replay.gif"), callback=gif_file, help="The GIF to write."),
    episodes: int = typer.Option(1, min=1, max=20, help="Episodes to play one after another."),
    seed: int = typer.Option(
        None,
        min=0,
        max=10**9,
        help="First episode id, then the next ones (default: the task's first held-out episodes, which a grade plays).",
    ),
    max_frames: int = typer.Option(
        1000, min=1, max=10_000, help="Frames kept per episode (the episode is still played out)."
    ),
    frame_ms: int = typer.Option(80, min=10, max=60_000, help="Milliseconds per frame."),
) -> None:
    """Animated GIF of the network playing graded episodes, with actions and probabilities."""
    from wspbench.report.replay import replay

    text = answer_or_exit(answer)
    with rejected_or_unwritable(out):
        summary = replay(task, text, out, episodes, seed, max_frames, frame_ms)
    table = Table(title=f"{task}: {out} ({summary.frames} frames, {summary.size[0]}x{summary.size[1]})")
    for column in ("episode", "value", "steps", "result"):
        table.add_column(column)
    for e in summary.episodes:
        table.add_row(e.label, f"{e.score:g}", str(e.length), e.outcome)
    console.print(table)


@app.command("weights")
def weights_command(
    answer: str = typer.Argument(..., help="File with the reply (or weights JSON), or - for standard input."),
    out: Path = typer.Option(Path("weights.png"), callback=output_file, help="The PNG to write."),
    task: str = typer.Option(
        None,
        callback=known_task,
        help="Read the answer as this task does (default: the first task whose parser accepts it).",
    ),
) -> None:
    """A picture of the weights: W1 as channel maps per hidden unit, the other tensors as heatmaps."""
    from wspbench.report.weights import weights_png

    text = answer_or_exit(answer)
    with rejected_or_unwritable(out):
        task_id, size = weights_png(text, out, task)
    if task:
        how = f"the answer read as {task_id} reads it"
    else:  # the first task of that network and format read it: name the network, not a task it may not be for
        from wspbench.tasks import get_task

        found = get_task(task_id)
        how = (
            f"read as the {found.answer_format} answer of a {found.network.describe()} network; "
            "--task TASK reads it as that task does"
        )
    console.print(f"wrote {out} ({size[0]}x{size[1]}; {how})", markup=False)


@contextmanager
def report_progress():
    """A bar per stage of `wsp report` on stderr, with the time spent and the time left (ETA); yields the
    callback `build_report` calls."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bars: dict[str, int] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=errors,  # not transient: where stderr is no terminal, its stages' final counts stay as a log
    ) as progress:

        def update(stage: str, done: int, total: int) -> None:
            if stage not in bars:
                bars[stage] = progress.add_task(stage, total=total)
            progress.update(bars[stage], completed=done, total=total)

        yield update


@app.command("report")
def report_command(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories written by `wsp run`."),
    out: Path = typer.Option(Path("report"), help="Folder for index.html, report.md, charts and replays."),
    replays: bool = typer.Option(True, help="Write replay GIFs of usable answers' first graded episode."),
    replays_per_family: int = typer.Option(
        REPLAYS_PER_FAMILY, min=0, help="Replays per model and task family (0: one for every usable answer)."
    ),
    replay_frames: int = typer.Option(200, min=1, max=10_000, help="Frames kept per replay."),
    replay_seconds: float = typer.Option(
        REPLAY_SECONDS, min=0.0, max=86_400.0, help="Seconds for all replays; the rest are skipped with a note."
    ),
    replay_bytes: int = typer.Option(REPLAY_BYTES, min=10_000, help="Bytes per replay GIF (later frames dropped)."),
    force: bool = typer.Option(
        False, "--force", help="Replace an earlier report in OUT (a non-empty OUT is refused without it)."
    ),
) -> None:
    """Static HTML and Markdown report: per-family means with 95% intervals, parse failures, tokens, cost,
    suites, and a few replays (one per model and family by default), bounded in frames, bytes and time."""
    from wspbench.report.report import build_report

    try:
        with report_progress() as progress:
            notice = lambda note: errors.print(note, style="yellow", markup=False)  # noqa: E731 - a skipped record
            files = build_report(
                run_dirs,
                out,
                replays,
                replay_frames,
                progress,
                replays_per_family or None,
                replay_seconds,
                replay_bytes,
                notice,
                force,
            )
    except (OSError, ValueError) as error:  # a missing or corrupt run directory, an unwritable folder
        errors.print(str(error), style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    console.print(f"wrote {files[0]} and {len(files) - 1} more files in {out}", markup=False)
