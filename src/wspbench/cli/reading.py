"""`wsp reading build`: a private set of identify and repair tasks, from a secret key.

Exit codes: 0 built, 2 a usage error (no key, an unknown game, OUT not empty).
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from wspbench import words
from wspbench.cli.app import app, console, errors, progress_bar

reading_app = typer.Typer(help="Private reading sets: networks nobody outside can have seen.", no_args_is_help=True)
app.add_typer(reading_app, name="reading", help="Private sets of identify and repair tasks (networks from a key).")


@reading_app.command()
def build(
    out: Path = typer.Option(..., "--out", help="an empty or absent folder for the set"),
    key: str = typer.Option(
        None, "--key", envvar="WSP_READING_KEY", help="the secret the set is drawn from (or WSP_READING_KEY)"
    ),
    name: str = typer.Option("private", help="the set's name: its task ids start with it"),
    games: str = typer.Option("", help="comma-separated games (default: all 25 MinAtar games)"),
    steps: int = typer.Option(1_000_000, min=4096, help="PPO environment steps per network"),
    identify: int = typer.Option(1, min=0, max=8, help="identify networks per original game"),
    choice: int = typer.Option(1, min=0, max=8, help="identify-choice networks per game"),
    workers: int = typer.Option(os.cpu_count() or 1, min=1, max=64, help="games trained at once"),
) -> None:
    """Train, refill and measure a private set of identify, identify-choice and repair networks into OUT.

    Each game gets IDENTIFY (original games only) + CHOICE + 1 networks. Measured at the default 1M steps, one
    network of each kind: 88 to 327 s per original game (freeway's long episodes) and 121 to 150 s per
    synthetic one on one core, training, refill and damages together; all 25 games about 60 core-minutes
    (docs/reading.md). The same key builds the same set; the key is not written anywhere (prefer
    WSP_READING_KEY to --key: a command line is visible to other users). Load the set with WSP_PRIVATE_SETS=OUT
    (os.pathsep between several): its tasks are <name>.identify/<hex>, <name>.identify-choice/<hex> and
    <name>.repair/<hex> in every command, outside the public suite.
    """
    from dataclasses import replace

    from wspbench.baselines.reading_build import BUDGET
    from wspbench.baselines.reading_build import build as build_set

    if not key:
        errors.print("wsp reading build needs --key (or WSP_READING_KEY): the set must not be derivable from the code")
        raise typer.Exit(2)
    from wspbench.games.minatar import all_games

    chosen = [game.strip() for game in games.split(",") if game.strip()] or None
    count = len(chosen) if chosen else len(all_games())

    def done(line: str) -> None:
        console.print(line, markup=False)
        advance(1)

    try:
        with progress_bar(f"training, refilling and measuring {words.count(count, 'game')}", count) as advance:
            made = build_set(key, out, name, chosen, replace(BUDGET, steps=steps), (identify, choice), workers, done)
    except ValueError as error:
        errors.print(f"wsp reading build: {error}", markup=False)
        raise typer.Exit(2) from None
    from wspbench.tasks import set_tasks

    tasks = set_tasks(made)
    console.print(f"{words.count(len(tasks), 'task')} in {out}; use them with WSP_PRIVATE_SETS={out}", markup=False)
