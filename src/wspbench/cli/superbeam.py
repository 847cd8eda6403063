"""`wsp chip8 asm/run/disasm` and `wsp superbeam grade/play`.

Exit codes, as in every `wsp` command: 0 done (graded), 1 the program or answer was rejected (assembly
error, crash, unusable network), 2 usage error (bad option value, a file that is missing, unreadable, not a
regular file, or cannot be written). Input files are read with a size bound (wspbench.inputs).
"""

from __future__ import annotations

import dataclasses
import json
import math
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from superbeam.assembler import AsmError, Program, assemble
from superbeam.chip8 import PROGRAM_ADDR, RAM_SIZE, Chip8, Chip8Error, Quirks
from superbeam.disassembler import disassemble
from wspbench.cli.app import app, console, errors, output_file, read_answer
from wspbench.evaluation import Grading
from wspbench.files import InputFileError, InputTooLarge, read_bounded

chip8_app = typer.Typer(help="CHIP-8 assembler, machine and disassembler.", no_args_is_help=True)
app.add_typer(chip8_app, name="chip8", help="CHIP-8 tools: assemble, run and disassemble programs.")
QUIRKS = [f.name for f in dataclasses.fields(Quirks)]
QUIRK_NAMES = ", ".join(QUIRKS)
MAX_ROM_BYTES = RAM_SIZE - PROGRAM_ADDR
MAX_SOURCE_BYTES = 1024 * 1024
MAX_FRAMES = 100_000


def fail(message: str, code: int) -> typer.Exit:
    """Print one error line on stderr (no markup: messages hold user text) and return the exit to raise."""
    errors.print(f"error: {message}", style="red", markup=False, highlight=False)
    return typer.Exit(code)


def read_input(path: Path | str, limit: int, what: str) -> bytes:
    """A bounded read: a missing or irregular file is a usage error (2), an oversized one is rejected (1)."""
    try:
        return read_bounded(path, limit, what)
    except InputTooLarge as e:
        raise fail(str(e), 1) from None
    except InputFileError as e:
        raise fail(str(e), 2) from None


@contextmanager
def writing(path: Path):
    """An output file that cannot be written is a usage error (2), with one line."""
    try:
        yield
    except (OSError, ValueError) as e:
        raise fail(f"cannot write {path}: {getattr(e, 'strerror', None) or e}", 2) from None


def _load(path: Path) -> Program:
    """A .asm file is assembled; any other file is a raw ROM without symbols."""
    if path.suffix.lower() != ".asm":
        return Program(read_input(path, MAX_ROM_BYTES, "ROM"), {}, {})
    text = read_input(path, MAX_SOURCE_BYTES, "source file").decode("utf-8", errors="replace")
    try:
        return assemble(text, str(path))
    except AsmError as e:
        raise fail(str(e), 1) from None
    except OSError as e:  # an INCLUDEd file
        raise fail(f"cannot read an included file: {e.strerror or e}", 2) from None


def screen_text(pixels) -> str:
    """The display as text, two pixel rows per line with half-block characters."""
    glyphs = {(0, 0): " ", (1, 0): "\u2580", (0, 1): "\u2584", (1, 1): "\u2588"}
    return "\n".join(
        "".join(glyphs[int(top), int(bottom)] for top, bottom in zip(pixels[y], pixels[y + 1], strict=False))
        for y in range(0, pixels.shape[0], 2)
    )


def save_png(pixels, path: Path, scale: int = 8) -> None:
    """Write the display ((32, 64) 0/1 array) as a black-and-white PNG, each pixel scale x scale."""
    import numpy as np
    from PIL import Image

    big = np.kron(pixels, np.ones((scale, scale), dtype=np.uint8)) * 255
    Image.fromarray(big.astype(np.uint8), mode="L").save(path)


@chip8_app.command()
def asm(
    source: Path = typer.Argument(..., help="Assembly source (.asm)."),
    out: Path = typer.Option(
        None, "--out", "-o", callback=output_file, help="ROM to write (default: SOURCE with .ch8)."
    ),
    sym: Path = typer.Option(None, callback=output_file, help="Also write the symbol table as JSON here."),
) -> None:
    """Assemble SOURCE into a ROM."""
    program = _load(source)
    out = out or source.with_suffix(".ch8")
    with writing(out):
        out.write_bytes(program.code)
    if sym:
        with writing(sym):
            sym.write_text(json.dumps(program.sym, indent=2) + "\n")
    console.print(
        f"{source} -> {out}: {len(program.code)} bytes at 0x{program.origin:03X}, {len(program.sym)} symbols",
        markup=False,
        highlight=False,
    )


@chip8_app.command()
def run(
    rom: Path = typer.Argument(..., help="A .asm source or a raw ROM."),
    frames: int = typer.Option(60, min=0, max=MAX_FRAMES, help="60 Hz frames to run."),
    key: list[int] = typer.Option([], min=0, max=15, help="Hold this key (0..15) throughout; repeatable."),
    quirk: list[str] = typer.Option([], help=f"Turn on a quirk: {QUIRK_NAMES}; repeatable."),
    png: Path = typer.Option(None, callback=output_file, help="Save the final screen as a PNG here."),
    show: bool = typer.Option(True, help="Print the final screen in the terminal."),
) -> None:
    """Run a program headless for some frames, then show its screen and registers."""
    unknown = set(quirk) - set(QUIRKS)
    if unknown:
        raise fail(f"unknown quirk {', '.join(sorted(unknown))}; choose from {', '.join(QUIRKS)}", 2)
    program = _load(rom)
    machine = Chip8(program.code, quirks=Quirks(**{q: True for q in quirk}))
    machine.set_keys(key)
    try:
        for _ in range(frames):
            machine.run_frame()
    except Chip8Error as e:
        file, line = program.lines.get(e.addr, ("", 0))
        where = f" ({file}:{line})" if file else ""
        raise fail(f"in frame {machine.frames + 1}: {e}{where}", 1) from None
    pixels = machine.display()
    if show:
        console.print(Panel(screen_text(pixels), title=Text(f"{rom.name} after {frames} frames"), expand=False))
    table = Table(show_header=False, box=None)
    table.add_row(*(f"V{i:X}={v}" for i, v in enumerate(machine.regs()[:8])))
    table.add_row(*(f"V{i + 8:X}={v}" for i, v in enumerate(machine.regs()[8:])))
    table.add_row(
        f"I=0x{machine.I:03X}",
        f"PC=0x{machine.pc:03X}",
        f"DT={machine.dt}",
        f"ST={machine.st}",
        f"SP={len(machine.stack)}",
        f"instr={machine.executed}",
    )
    console.print(table)
    if png:
        with writing(png):
            save_png(pixels, png)
        console.print(f"saved {png}", markup=False, highlight=False)


@chip8_app.command()
def disasm(rom: Path = typer.Argument(..., help="A .asm source or a raw ROM.")) -> None:
    """Print a program as assembly (labels included when it is a .asm source)."""
    program = _load(rom)
    console.print(disassemble(program.code, program.origin, program.labels), markup=False, highlight=False, end="")


# --------------------------------------------------------------------------------------------------
# `wsp superbeam grade/play`: the SUPERBEAM task (wspbench/tasks/superbeam.py), through the registry.

superbeam_app = typer.Typer(help="SUPERBEAM: grade written networks, play levels, make GIFs.", no_args_is_help=True)
app.add_typer(superbeam_app, name="superbeam", help="SUPERBEAM: grade a JSON network on levels, or watch one play.")


def finite(value: float | None) -> float | None:
    """A typer callback: NaN is a usage error (typer's range check lets it through)."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, not {value}")
    return value


def check_level(level: str) -> str:
    """A typer callback: an integer seed or 'classic'."""
    text = level.strip().lower()
    if text == "classic":
        return text
    try:
        int(text)
    except ValueError:
        raise typer.BadParameter(f"must be an integer seed or 'classic', not {level!r:.40}") from None
    return text


def superbeam_task(difficulty: float | None = None):
    """The registry's SUPERBEAM task, or the same task on levels of another difficulty (not the suite's task:
    its scores are for exploring)."""
    from wspbench.tasks import get_task

    task = get_task("superbeam")
    return task if difficulty is None else task.at_difficulty(difficulty)


def _levels(spec: str, task) -> list[int]:
    """train (the feedback rounds' levels), test (the scored ones), a range A..B (inclusive) or a comma list."""
    text = spec.strip().lower()
    if text == "train":
        return task.training_episodes(None)
    if text == "test":
        return task.scoring_episodes()
    try:
        if ".." in text:
            a, b = (int(p) for p in text.split("..", 1))
            if b < a or b - a > 100_000:
                raise ValueError
            return list(range(a, b + 1))
        seeds = [int(p) for p in text.split(",") if p.strip()]
        if not seeds:
            raise ValueError
        return seeds
    except ValueError:
        raise typer.BadParameter(
            f"must be train, test, A..B or a comma list of seeds, not {spec!r:.60}", param_hint="--levels"
        ) from None


@superbeam_app.command()
def grade(
    answer: Path = typer.Argument(..., help="A model's answer (text with a ```json block) or a weights .json file."),
    levels: str = typer.Option(
        "test",
        help="test (1000000..1000019, the held-out levels that `wsp grade` and "
        "`wsp run` score), train (0..9), A..B, or seeds a,b,c.",
    ),
    difficulty: float = typer.Option(
        None,
        min=0.0,
        max=1.0,
        callback=finite,
        show_default=False,
        help="Level difficulty, 0..1; default: the task's. Another difficulty is not the suite's task.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON (the shape of `wsp grade --json`)."),
) -> None:
    """Score a written network on SUPERBEAM levels (exit 1 when the answer is unusable, with --json too)."""
    from rich.progress import Progress

    task = superbeam_task(difficulty)
    seeds = _levels(levels, task)
    try:
        text = read_answer(str(answer), task)
    except InputTooLarge as e:
        score = task.rejected(f"{e}: an answer has at most {task.max_answer_chars:,} characters")
    else:
        with Progress(console=errors, transient=True, disable=as_json or not errors.is_terminal) as bar:
            job = bar.add_task("playing", total=len(seeds))
            score = task.grade(text, seeds, Grading(progress=lambda n: bar.advance(job, n)))
    if as_json:
        print(json.dumps(score.to_json()))
        raise typer.Exit(1 if score.error else 0)
    if score.error:
        console.print(Text("unusable answer: ", style="red") + Text(f"{score.error}\nscore 0"))
        raise typer.Exit(1)
    table = Table(title=Text(f"SUPERBEAM, {answer.name}, difficulty {task.difficulty:g}"))
    for col in ("level", "result", "progress", "coins", "frames", "inputs at the end"):
        table.add_column(col)
    for r in score.metadata["detail"]:
        where = "" if r["won"] or not r["where"] else " ".join(f"{k}={v:g}" for k, v in r["where"].items())
        table.add_row(
            str(r["seed"]),
            "[green]won[/]" if r["won"] else f"[red]{r['cause']}[/]",
            f"{100 * r['progress']:.0f}%",
            str(r["coins"]),
            str(r["frames"]),
            where,
        )
    console.print(table)
    console.print(
        f"won [bold]{score.metadata['won']}/{score.metadata['levels']}[/], mean progress "
        f"{100 * score.metadata['mean_progress']:.1f}%, score {score.normalized:.3f}"
    )


@superbeam_app.command()
def play(
    level: str = typer.Option("0", callback=check_level, help="A level seed (an integer), or 'classic'."),
    weights: Path = typer.Option(None, help="Network weights (.json or an answer); default: the reference network."),
    difficulty: float = typer.Option(
        None, min=0.0, max=1.0, callback=finite, show_default=False, help="Level difficulty, 0..1; default: the task's."
    ),
    gif: Path = typer.Option(None, callback=output_file, help="Write the episode as an animated GIF here."),
    show: bool = typer.Option(True, help="Print the final screen."),
) -> None:
    """Let a network play one level as it is scored; show the result (and save a GIF)."""
    from wspbench.tasks import AnswerError

    task = superbeam_task(difficulty)
    text = (
        task.offline_answer("reference")
        if weights is None
        else read_input(weights, 4 * task.max_answer_chars, "weights file").decode("utf-8", errors="replace")
    )
    try:
        net = task.parse(text)
    except AnswerError as e:
        raise fail(str(e), 1) from None
    screens: list = []
    _, _, r = task.watch(net, level if level == "classic" else int(level), lambda step: screens.append(step.screen))
    if show:
        console.print(Panel(screen_text(screens[-1]), title=f"SUPERBEAM level {level}", expand=False))
    outcome = "[green]won[/]" if r["won"] else f"[red]{r['cause']}[/]"
    console.print(f"{outcome}: progress {100 * r['progress']:.0f}%, coins {r['coins']}, {r['frames']} frames")
    if gif:
        with writing(gif):
            save_gif(screens, gif)
        console.print(f"saved {gif} ({len(screens)} pictures)", markup=False, highlight=False)


def save_gif(screens, path: Path, scale: int = 6, ms_per_picture: int = 67) -> None:
    """Write screens ((32, 64) 0/1 arrays) as an animated GIF, one picture per decision."""
    import numpy as np
    from PIL import Image

    pictures = [
        Image.fromarray((np.kron(s, np.ones((scale, scale), dtype=np.uint8)) * 255).astype(np.uint8), mode="L")
        for s in screens
    ]
    pictures[0].save(path, save_all=True, append_images=pictures[1:], duration=ms_per_picture, loop=0)
