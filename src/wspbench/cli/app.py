"""The `wsp` application object and what every command shares: consoles, progress bars, answer files,
option checks, `--version` and `--verbose`. The commands live in the modules beside this one, by topic.

Nothing heavy is imported here (numpy, minatar, the games): `wsp --help` loads this module and the command
modules, so each command imports what it needs when it runs.
"""

from __future__ import annotations

import logging
import math
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from wspbench.evaluation import ENGINES
from wspbench.files import InputFileError, InputTooLarge, check_output_file, read_bounded
from wspbench.harness.settings import RunSettings

# `wsp --help` lists the commands in this order (what a user does first comes first); others follow.
COMMAND_ORDER = (
    "run",
    "grade",
    "games",
    "prompt",
    "suite",
    "verify",
    "runs",
    "report",
    "replay",
    "weights",
    "export",
    "superbeam",
    "chip8",
    "baselines",
    "warmup",
)


class OrderedCommands(TyperGroup):
    """Lists commands in COMMAND_ORDER, whatever module registered them first."""

    def list_commands(self, ctx) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: i for i, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: rank.get(name, len(rank)))


app = typer.Typer(
    help="wspbench: weight-space programming benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: `wspbench[ray]` stays as written, and flags show no `<bool>`
    cls=OrderedCommands,
)


class Output(Console):
    """Standard output. On a terminal, rich's usual width; elsewhere (a pipe, a file) a table gets the width its
    content needs, whatever $COLUMNS says, so that `wsp games | grep` sees whole ids and no cell is cut with an
    ellipsis, and no line ends in the spaces that pad it to the width."""

    def print(self, *objects, **options) -> None:
        if self.is_terminal:
            return super().print(*objects, **options)
        tables = [item for item in objects if isinstance(item, Table)]
        chosen, wide = self._width, self.options.update_width(UNBOUNDED)
        if tables:
            self.width = max(self.width, *(self.measure(table, options=wide).maximum for table in tables))
        try:
            with self.capture() as captured:
                super().print(*objects, **options)
        finally:
            self._width = chosen  # back to rich's own choice ($COLUMNS, else the terminal's or 80)
        self.file.write("\n".join(line.rstrip() for line in captured.get().split("\n")))
        self.file.flush()


UNBOUNDED = 1_000_000
console = Output()
errors = Console(stderr=True, soft_wrap=True)  # error lines hold paths: never broken across lines
log = logging.getLogger(__name__)


def option(name: str, *flags: str, **extra):
    """The option of a run setting (`wsp run`, `wsp prompt`), declared by its one owner: the protocol's name, a
    protocol's setting (`wspbench/protocols/`: its bounds, its help and each protocol's default; left out, the
    protocol's own applies) or another setting of a run (`harness/settings.py` RunSettings); `flags` name it
    otherwise, `extra` adds a callback or other help."""
    from wspbench import protocols

    if name == "protocol":
        text = f"{', '.join(protocols.names())} (docs/agent.md)."
        return typer.Option(protocols.OneShot.name, *flags, help=text, **extra)
    if name in protocols.SETTINGS:
        setting, text = protocols.options()[name]
        bounds = {key: value for key, value in (("min", setting.low), ("max", setting.high)) if value is not None}
        default = protocols.RUN_EPISODES if name == "episodes" else None
        flags = flags or (f"--{name.replace('_', '-')}", *setting.flags)
        return typer.Option(default, *flags, help=extra.pop("help", text), **bounds, **extra)
    (one,) = [f for f in fields(RunSettings) if f.name == name]
    bounds = {key: one.metadata[key] for key in ("min", "max") if one.metadata[key] is not None}
    return typer.Option(one.default, *flags, help=extra.pop("help", one.metadata["help"]), **bounds, **extra)


def chosen_protocol(name: str):
    """The protocol --protocol names, or a usage error naming the option (with the likeliest name)."""
    from wspbench import protocols

    try:
        return protocols.get(name)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--protocol") from None


def version() -> str:
    """The installed package's version (pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("wspbench")
    except PackageNotFoundError:
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        console.print(f"wspbench {version()}", markup=False, highlight=False)
        raise typer.Exit()


@app.callback()
def main(
    verbose: int = typer.Option(
        0,
        "--verbose",
        "-v",
        count=True,
        show_default=False,
        help="Log what happens on stderr (-v: steps such as the engine used, -vv: details).",
    ),
    show_version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """wspbench: weight-space programming benchmarks."""
    if verbose:  # wspbench's own messages; other libraries (numba...) stay at warnings
        logging.basicConfig(
            level=logging.WARNING,
            force=True,
            format="%(levelname)s %(name)s: %(message)s",
            handlers=[logging.StreamHandler(errors.file)],
        )
        logging.getLogger("wspbench").setLevel(logging.DEBUG if verbose > 1 else logging.INFO)
    _check_private_sets()


def _check_private_sets() -> None:
    """A folder in WSP_PRIVATE_SETS that is not a private set is a usage error naming it (exit 2), never a
    silent empty set: the library (`tasks/registry.py`) only warns, so that one bad folder cannot stop a batch."""
    from wspbench.tasks import private_sets_problem

    problem = private_sets_problem()
    if problem:
        errors.print(problem, style="red", markup=False)
        raise typer.Exit(2)


@contextmanager
def progress_bar(label: str, total: int):
    """A rich progress bar on stderr; yields the callback the engine calls with finished episodes. Where stderr
    is not a terminal there is nothing to redraw, so nothing is drawn (rich would leave a blank line)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not errors.is_terminal:
        yield lambda done: None
        return
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
    ) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda done: progress.advance(bar, done)


def read_answer(path: str, task=None) -> str:
    """The text of an answer file (or standard input for `-`), invalid UTF-8 replaced, read with a bound: 4 bytes
    (UTF-8's most) per character that `task` reads (no task: the most that any task reads).
    A file that cannot be read is a usage error (exit 2); one over the bound raises InputTooLarge, which
    callers report as a rejected answer (exit 1)."""
    try:
        data = read_bounded(path, 4 * answer_chars(task), "answer file")
    except InputTooLarge:
        raise
    except InputFileError as error:
        raise typer.BadParameter(str(error), param_hint="ANSWER") from None
    return data.decode("utf-8", errors="replace")


def answer_chars(task=None) -> int:
    """The longest reply `task` reads, or without a task the longest any task reads."""
    from wspbench.tasks import all_tasks

    return task.max_answer_chars if task is not None else max(t.max_answer_chars for t in all_tasks())


def finite(value: float | None) -> float | None:
    """A typer callback: NaN and infinities are usage errors."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, not {value}")
    return value


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise typer.BadParameter(f"choose one of {', '.join(ENGINES)}")
    return engine


def connected_executor(name: str, address: str | None):
    """The executor of --executor/--ray-address, connected now (an unreachable cluster is a usage error
    before anything is paid for or graded)."""
    from wspbench.evaluation.executors import ExecutorError, resolve_executor

    try:
        executor = resolve_executor(name, address)
    except ExecutorError as error:
        raise typer.BadParameter(str(error), param_hint="--executor") from None
    try:
        executor.connect()
    except ExecutorError as error:  # infrastructure, not the command line: one line, exit 2
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    return executor


def output_file(path: Path | None) -> Path | None:
    """A typer callback for an output option: the path must not be a folder, a FIFO or a device."""
    try:
        return None if path is None else check_output_file(path)
    except InputFileError as error:
        raise typer.BadParameter(str(error)) from None


def gif_file(path: Path) -> Path:
    """A typer callback: a replay is written as a GIF, so its path must end in .gif."""
    output_file(path)
    if path.suffix.lower() != ".gif":
        raise typer.BadParameter(f"{path} does not end in .gif (a replay is a GIF)")
    return path


def answer_or_exit(path: str, task=None) -> str:
    """`read_answer` for commands without a result table: a file over the bound is a rejected answer (1)."""
    try:
        return read_answer(path, task)
    except InputTooLarge as error:
        errors.print(f"{error}: an answer has at most {answer_chars(task):,} characters", markup=False)
        raise typer.Exit(1) from None
