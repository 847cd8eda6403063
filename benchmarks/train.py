"""Train the PPO baseline (src/wspbench/tasks/ppo.py) for every game of the suite, one process per game, and
keep each network as data: `src/wspbench/tasks/trained/<game>.<seed>.npz` (the weights, in the task's
orientation) and `<game>.<seed>.json` (the budget, the training episodes, the learning curve, the seconds).
Tasks of one game share one network. A game already trained with this budget is skipped unless `--redo`;
`benchmarks/baselines.py` then grades each network, written out in the task's answer format, on the scoring
episodes.

    python benchmarks/train.py [--tasks all] [--steps 1000000] [--seed 0] [--workers 2] [--redo]
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core per game: threads would only fight
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import json  # noqa: E402
from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import Progress  # noqa: E402

from wspbench.tasks import get_task, select  # noqa: E402
from wspbench.tasks.ppo import TRAINED, Budget, train  # noqa: E402

FOLDER = Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / TRAINED


def train_one(task_id: str, budget: Budget) -> tuple[str, float | None, float]:
    task = get_task(task_id)
    weights, about = train(task, budget)
    stem = f"{task.game.name}.{budget.seed}"
    np.savez_compressed(FOLDER / f"{stem}.npz", **weights)
    (FOLDER / f"{stem}.json").write_text(json.dumps({"task": task_id, **about}, indent=1) + "\n")
    finished = [value for value in about["curve"][-10:] if value is not None]
    return task_id, (float(np.mean(finished)) if finished else None), about["seconds"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="all")
    parser.add_argument("--steps", type=int, default=Budget().steps)
    parser.add_argument("--seed", type=int, default=Budget().seed, help="the baseline is seed 0")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--redo", action="store_true")
    options = parser.parse_args()
    budget = Budget(steps=options.steps, seed=options.seed)
    FOLDER.mkdir(exist_ok=True)
    todo, games = [], set()
    for task in select(options.tasks):
        about = FOLDER / f"{task.game.name}.{budget.seed}.json"
        done = about.is_file() and json.loads(about.read_text())["budget"] == budget.describe()
        if task.game.name not in games and (options.redo or not done):
            todo.append(task.id)
        games.add(task.game.name)
    console = Console()
    with Progress(console=console) as progress, ProcessPoolExecutor(options.workers) as pool:
        bar = progress.add_task(f"training {len(todo)} games, {budget.steps:,} steps each", total=len(todo))
        for future in as_completed([pool.submit(train_one, task_id, budget) for task_id in todo]):
            task_id, late_return, seconds = future.result()
            late = "no episode finished late" if late_return is None else f"late training return {late_return:.2f}"
            progress.console.print(f"{task_id}: {late}, {seconds:.0f} s", markup=False)
            progress.advance(bar)


if __name__ == "__main__":
    main()
