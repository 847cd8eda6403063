"""`wsp chip8 asm/run/disasm`: build, run and inspect CHIP-8 programs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from superbeam.assembler import AsmError, Program, assemble_file
from superbeam.chip8 import Chip8, Chip8Error, Quirks
from superbeam.disassembler import disassemble

chip8_app = typer.Typer(help="CHIP-8 assembler, machine and disassembler.", no_args_is_help=True)
console = Console()
QUIRKS = [f.name for f in dataclasses.fields(Quirks)]


def _load(path: Path) -> Program:
    """A .asm file is assembled; any other file is a raw ROM without symbols."""
    try:
        if path.suffix.lower() == ".asm":
            return assemble_file(path)
        return Program(path.read_bytes(), {}, {})
    except AsmError as e:
        console.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from None
    except OSError as e:
        console.print(f"[red]error:[/] cannot read {path}: {e.strerror}")
        raise typer.Exit(1) from None


def screen_text(pixels: np.ndarray) -> str:
    """The display as text, two pixel rows per line with half-block characters."""
    glyphs = {(0, 0): " ", (1, 0): "\u2580", (0, 1): "\u2584", (1, 1): "\u2588"}
    return "\n".join(
        "".join(glyphs[int(top), int(bottom)] for top, bottom in zip(pixels[y], pixels[y + 1]))
        for y in range(0, pixels.shape[0], 2)
    )


def save_png(pixels: np.ndarray, path: Path, scale: int = 8) -> None:
    """Write the display as a black-and-white PNG, each pixel scale x scale."""
    from PIL import Image

    big = np.kron(pixels, np.ones((scale, scale), dtype=np.uint8)) * 255
    Image.fromarray(big.astype(np.uint8), mode="L").save(path)


@chip8_app.command()
def asm(
    source: Path = typer.Argument(..., help="Assembly source (.asm)."),
    out: Path = typer.Option(None, "--out", "-o", help="ROM to write (default: SOURCE with .ch8)."),
    sym: Path = typer.Option(None, help="Also write the symbol table as JSON here."),
) -> None:
    """Assemble SOURCE into a ROM."""
    program = _load(source)
    out = out or source.with_suffix(".ch8")
    out.write_bytes(program.code)
    if sym:
        sym.write_text(json.dumps(program.sym, indent=2) + "\n")
    console.print(f"[green]{source}[/] -> [bold]{out}[/]: {len(program.code)} bytes at "
                  f"0x{program.origin:03X}, {len(program.sym)} symbols")


@chip8_app.command()
def run(
    rom: Path = typer.Argument(..., help="A .asm source or a raw ROM."),
    frames: int = typer.Option(60, help="60 Hz frames to run."),
    key: list[int] = typer.Option([], help="Hold this key (0..15) throughout; repeatable."),
    quirk: list[str] = typer.Option([], help=f"Turn on a quirk: {', '.join(QUIRKS)}; repeatable."),
    png: Path = typer.Option(None, help="Save the final screen as a PNG here."),
    show: bool = typer.Option(True, help="Print the final screen in the terminal."),
) -> None:
    """Run a program headless for some frames, then show its screen and registers."""
    unknown = set(quirk) - set(QUIRKS)
    if unknown:
        console.print(f"[red]error:[/] unknown quirk {', '.join(sorted(unknown))}; "
                      f"choose from {', '.join(QUIRKS)}")
        raise typer.Exit(1)
    program = _load(rom)
    machine = Chip8(program.code, quirks=Quirks(**{q: True for q in quirk}))
    machine.set_keys(key)
    try:
        for _ in range(frames):
            machine.run_frame()
    except Chip8Error as e:
        file, line = program.lines.get(e.addr, ("", 0))
        where = f" ({file}:{line})" if file else ""
        console.print(f"[red]error in frame {machine.frames + 1}:[/] {e}{where}")
        raise typer.Exit(1) from None
    pixels = machine.display()
    if show:
        console.print(Panel(screen_text(pixels), title=f"{rom.name} after {frames} frames",
                            expand=False))
    table = Table(show_header=False, box=None)
    table.add_row(*(f"V{i:X}={v}" for i, v in enumerate(machine.regs()[:8])))
    table.add_row(*(f"V{i + 8:X}={v}" for i, v in enumerate(machine.regs()[8:])))
    table.add_row(f"I=0x{machine.I:03X}", f"PC=0x{machine.pc:03X}", f"DT={machine.dt}",
                  f"ST={machine.st}", f"SP={len(machine.stack)}",
                  f"instr={machine.executed}")
    console.print(table)
    if png:
        save_png(pixels, png)
        console.print(f"saved [bold]{png}[/]")


@chip8_app.command()
def disasm(rom: Path = typer.Argument(..., help="A .asm source or a raw ROM.")) -> None:
    """Print a program as assembly (labels included when it is a .asm source)."""
    program = _load(rom)
    console.print(disassemble(program.code, program.origin, program.labels),
                  markup=False, highlight=False, end="")


# --------------------------------------------------------------------------------------------------
# `wsp superbeam grade/play`: the SUPERBEAM weights task.

superbeam_app = typer.Typer(help="SUPERBEAM: grade written networks, play levels, make GIFs.",
                            no_args_is_help=True)


def _levels(spec: str) -> list:
    """train, test, classic, a range A..B (inclusive) or a comma list of seeds."""
    from superbeam.task import TEST_LEVELS, TRAIN_LEVELS
    spec = spec.strip().lower()
    if spec == "train":
        return list(TRAIN_LEVELS)
    if spec == "test":
        return list(TEST_LEVELS)
    try:
        if ".." in spec:
            a, b = (int(p) for p in spec.split("..", 1))
            if b < a or b - a > 100_000:
                raise ValueError
            return list(range(a, b + 1))
        return [p if p == "classic" else int(p) for p in spec.split(",") if p]
    except ValueError:
        console.print(f"[red]error:[/] --levels must be train, test, A..B or a comma list, got {spec!r}")
        raise typer.Exit(2) from None


@superbeam_app.command()
def grade(
    answer: Path = typer.Argument(..., help="A model's answer (text with a ```json block) or a weights .json file."),
    levels: str = typer.Option("train", help="train (0..9), test (1000000..1000019), A..B, or seeds a,b,c."),
    difficulty: float = typer.Option(0.5, help="Level difficulty, 0..1."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Score a written network on SUPERBEAM levels."""
    from rich.progress import Progress

    from superbeam.task import MAX_ANSWER_CHARS, grade as grade_answer

    seeds = _levels(levels)
    try:
        with answer.open("r", errors="replace") as f:
            text = f.read(MAX_ANSWER_CHARS + 1)
    except OSError as e:
        console.print(f"[red]error:[/] cannot read {answer}: {e.strerror}")
        raise typer.Exit(1) from None
    if as_json:
        result = grade_answer(text, seeds, difficulty)
        print(json.dumps(result, indent=1))
        return
    with Progress(console=console, transient=True) as bar:
        job = bar.add_task("playing", total=len(seeds))
        result = grade_answer(text, seeds, difficulty, progress=lambda r: bar.advance(job))
    if result["error"]:
        console.print(f"[red]unusable answer:[/] {result['error']}\nscore 0")
        raise typer.Exit(1)
    table = Table(title=f"SUPERBEAM, {answer.name}, difficulty {difficulty:g}")
    for col in ("level", "result", "progress", "coins", "frames", "inputs at the end"):
        table.add_column(col)
    for r in result["detail"]:
        where = "" if r["won"] or not r["where"] else " ".join(f"{k}={v:g}" for k, v in r["where"].items())
        table.add_row(str(r["seed"]), "[green]won[/]" if r["won"] else f"[red]{r['cause']}[/]",
                      f"{100 * r['progress']:.0f}%", str(r["coins"]), str(r["frames"]), where)
    console.print(table)
    console.print(f"won [bold]{result['won']}/{result['levels']}[/], mean progress "
                  f"{100 * result['mean_progress']:.1f}%, score {result['score']:.3f}")


@superbeam_app.command()
def play(
    level: str = typer.Option("0", help="A level seed, or 'classic'."),
    weights: Path = typer.Option(None, help="Network weights (.json or an answer); default: the reference network."),
    difficulty: float = typer.Option(0.5, help="Level difficulty, 0..1."),
    gif: Path = typer.Option(None, help="Write the episode as an animated GIF here."),
    show: bool = typer.Option(True, help="Print the final screen."),
) -> None:
    """Let a network play one level; show the result (and save a GIF)."""
    from superbeam.task import AnswerError, load_weights, play_level, reference_weights

    try:
        net = reference_weights() if weights is None else load_weights(weights)
    except (AnswerError, OSError) as e:
        console.print(f"[red]error:[/] {e}")
        raise typer.Exit(1) from None
    lv = level if level.strip().lower() == "classic" else int(level)
    screens: list = []
    r = play_level(net, lv, difficulty, record=screens)
    if show:
        console.print(Panel(screen_text(screens[-1]), title=f"SUPERBEAM level {level}", expand=False))
    outcome = "[green]won[/]" if r["won"] else f"[red]{r['cause']}[/]"
    console.print(f"{outcome}: progress {100 * r['progress']:.0f}%, coins {r['coins']}, {r['frames']} frames")
    if gif:
        save_gif(screens, gif)
        console.print(f"saved [bold]{gif}[/] ({len(screens)} pictures)")


def save_gif(screens, path: Path, scale: int = 6, ms_per_picture: int = 67) -> None:
    """Write screens ((32, 64) 0/1 arrays) as an animated GIF, one picture per env step."""
    from PIL import Image

    pictures = [Image.fromarray((np.kron(s, np.ones((scale, scale), dtype=np.uint8)) * 255).astype(np.uint8),
                                mode="L") for s in screens]
    pictures[0].save(path, save_all=True, append_images=pictures[1:], duration=ms_per_picture, loop=0)
