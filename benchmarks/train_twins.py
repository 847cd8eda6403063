"""PPO training throughput on synthetic and generated games: their Python modules against their compiled twins.

The same trainer (`src/wspbench/baselines/ppo.py`) and budget run on each game twice in one process, one core:
once with `Task.environments` stepping the Python modules in lockstep (the trainer before the twins) and once
with the compiled twin's batch (`compiled/batch.py`). It prints environment steps per second for each, the ratio
and the medians. The twins are compiled first, so no timing includes compilation.

    python benchmarks/train_twins.py [--games gen/00100,synth/ferry] [--updates 8]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # one core, as each game trains on one
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import statistics  # noqa: E402
import time  # noqa: E402

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from wspbench.baselines.ppo import Budget, train  # noqa: E402
from wspbench.evaluation import engine  # noqa: E402
from wspbench.evaluation.compiled.engine import warm_up  # noqa: E402
from wspbench.tasks import get_task  # noqa: E402

GAMES = "gen/00100,gen/00113,gen/00140,gen/00410,synth/ferry,synth/heat_gun,synth/river_hop,synth/pogo_jump"


def steps_per_second(task, budget: Budget, compiled: bool) -> float:
    twin = engine.compiled_twin
    if not compiled:
        engine.compiled_twin = lambda game: None  # `Task.environments` then steps the Python modules
    try:
        started = time.perf_counter()
        _, about = train(task, budget)
        return about["steps"] / (time.perf_counter() - started)
    finally:
        engine.compiled_twin = twin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=GAMES)
    parser.add_argument("--updates", type=int, default=8, help="PPO updates per run (environments x rollout steps)")
    options = parser.parse_args()
    warm_up()
    console = Console(width=120)
    console.print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    shape = Budget()
    budget = Budget(steps=options.updates * shape.environments * shape.rollout, checkpoints=0)  # checkpoints off
    table = Table(title=f"PPO steps per second, one core, {budget.steps:,} steps per run")
    for column in ("task", "python modules", "compiled twins", "ratio"):
        table.add_column(column, justify="left" if column == "task" else "right")
    python, compiled = [], []
    for name in options.games.split(","):
        task = get_task(name)
        python.append(steps_per_second(task, budget, False))
        compiled.append(steps_per_second(task, budget, True))
        table.add_row(task.id, f"{python[-1]:,.0f}", f"{compiled[-1]:,.0f}", f"{compiled[-1] / python[-1]:.1f}x")
    table.add_row("median", f"{statistics.median(python):,.0f}", f"{statistics.median(compiled):,.0f}", "")
    console.print(table)
    console.print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
