"""Every synthetic and generated game's compiled twin plays exactly like its Python module (issue 39).

For each game (default: the 20 hand-written synthetic games and every generated one), four answers are graded
with the compiled engine and with `fast` (the Python module, episode by episode as the reference plays it):
the zero network, `sparse_program` and `random_dense_0` of tests/data/answers.json, and the game's reference
(its reference program, or a generated game's trained network). Every episode's return and length must be
equal. It also steps each twin beside its module with random actions (`compiled/differential.py`), comparing
rewards, generators and observations after every step. One row per game; exits 1 on any mismatch.

    python benchmarks/twin_conformance.py [--episodes 200] [--random-episodes 50] [--games ferry,gen_00100]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from wspbench.evaluation import Grading
from wspbench.evaluation.compiled.differential import first_difference
from wspbench.evaluation.engine import compiled_twin
from wspbench.tasks import get_task, select

ROOT = Path(__file__).parents[1]
ANSWERS = json.loads((ROOT / "tests" / "data" / "answers.json").read_text())
SHARED = ("zero", "sparse_program", "random_dense_0")


def answers_for(task) -> dict[str, str]:
    reference = task.offline_reply("reference")  # a generated game's: its calibrated network
    return {**{name: ANSWERS[name] for name in SHARED}, "reference": reference}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--random-episodes", type=int, default=50, help="episodes stepped with random actions")
    parser.add_argument("--games", default="", help="comma-separated game names (default: every synth and gen game)")
    options = parser.parse_args()
    tasks = [get_task(name) for name in options.games.split(",") if name] or select("synth") + select("gen")
    console = Console(width=120)
    table = Table(title=f"compiled twins vs their modules: 4 answers x {options.episodes} episodes per game")
    for column in ("task", "twin", "episodes compared", "steps compared", "mismatches", "python s", "compiled s"):
        table.add_column(column, justify="left" if column in ("task", "twin") else "right")
    totals = np.zeros(5)
    for task in tasks:
        game = task.binding
        twin = compiled_twin(game)
        if twin is None:
            console.print(f"[red]{task.id}: no compiled twin follows this module[/red]")
            totals[2] += 1
            continue
        episodes = task.scoring_episodes(options.episodes)
        mismatches, compared, steps, seconds = 0, 0, 0, [0.0, 0.0]
        for name, answer in answers_for(task).items():
            scores = []
            for i, engine in enumerate(("fast", "compiled")):
                started = time.perf_counter()
                scores.append(task.grade(answer, episodes, Grading(engine, 1)))
                seconds[i] += time.perf_counter() - started
            python, compiled = scores
            compared += len(python.values)
            steps += sum(python.lengths)
            if (python.values, python.lengths) != (compiled.values, compiled.lengths) or python.error:
                mismatches += 1
                console.print(f"[red]{task.id} {name}: {python.raw} {python.error} != {compiled.raw}[/red]")
        rng = np.random.default_rng(0)
        for episode in range(options.random_episodes):
            difference = first_difference(game, *twin, episode, 1000, rng)
            if difference:
                mismatches += 1
                console.print(f"[red]{difference}[/red]")
                break
        totals += (compared, steps, mismatches, *seconds)
        table.add_row(task.id, twin[0], str(compared), str(steps), str(mismatches), *(f"{s:.1f}" for s in seconds))
    table.add_row("all", "", *(f"{int(v)}" for v in totals[:3]), *(f"{s:.1f}" for s in totals[3:]))
    console.print(table)
    raise SystemExit(1 if totals[2] else 0)


if __name__ == "__main__":
    main()
