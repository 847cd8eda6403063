"""The `wsp` application object and what every command shares: consoles, progress bars, answer files,
option checks. The commands live in the modules beside this one, by topic."""

from __future__ import annotations

import math
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console

from wspbench.answers.edits import MAX_ANSWER_CHARS
from wspbench.inputs import InputFileError, InputTooLarge, output_file, read_bounded

app = typer.Typer(help="wspbench: weight-space programming benchmarks.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
console = Console()
errors = Console(stderr=True)

MAX_ANSWER_FILE_BYTES = 4 * MAX_ANSWER_CHARS  # UTF-8: a longer file has more characters than any parser reads
MAX_EPISODES = 100_000
MAX_WORKERS = 1024
ENGINES = ("auto", "compiled", "fast", "reference")  # wspbench/evaluation/engine.py checks the same names


@contextmanager
def progress_bar(label: str, total: int):
    """A rich progress bar on stderr; yields the callback the engine calls with finished episodes."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=errors, transient=True) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda done: progress.advance(bar, done)


def read_answer(path: str) -> str:
    """An answer file (a regular file), or standard input for `-`, read with a size bound.

    A file that cannot be read is a usage error (exit 2); one over the bound raises InputTooLarge, which
    callers report as a rejected answer (exit 1)."""
    try:
        data = read_bounded(path, MAX_ANSWER_FILE_BYTES, "answer file")
    except InputTooLarge:
        raise
    except InputFileError as error:
        raise typer.BadParameter(str(error), param_hint="ANSWER") from None
    return data.decode("utf-8", errors="replace")


def finite(value: float | None) -> float | None:
    """A typer callback: NaN and infinities are usage errors."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, not {value}")
    return value


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise typer.BadParameter(f"choose one of {', '.join(ENGINES)}")
    return engine


def gif_file(path: Path) -> Path:
    """A typer callback: a replay is written as a GIF, so its path must end in .gif."""
    output_file(path)
    if path.suffix.lower() != ".gif":
        raise typer.BadParameter(f"{path} does not end in .gif (a replay is a GIF)")
    return path


def answer_or_exit(path: str) -> str:
    """`read_answer` for commands without a result table: a file over the bound is a rejected answer (1)."""
    try:
        return read_answer(path)
    except InputTooLarge as error:
        errors.print(f"{error}: an answer has at most {MAX_ANSWER_CHARS:,} characters", markup=False)
        raise typer.Exit(1) from None


@contextmanager
def rejected_or_unwritable(out: Path):
    """An unusable answer exits 1; an output file that cannot be written exits 2; each with one line."""
    from wspbench.report.answers import UnusableAnswer

    try:
        yield
    except (UnusableAnswer, ValueError) as error:
        errors.print(str(error), markup=False, style="red")
        raise typer.Exit(1) from None
    except OSError as error:
        errors.print(f"cannot write {out}: {error.strerror or error}", markup=False, style="red")
        raise typer.Exit(2) from None


