"""Train the PPO baseline (src/wspbench/baselines/ppo.py) for every game of the suite, one process per game, and
keep each network as data: `<out>/<game>.<seed>.npz` (the weights, in the task's orientation) and
`<game>.<seed>.json` (the budget, the training episodes, the learning curve, the seconds, the steps per
second). Tasks of one game share one network. A game already trained with this budget is skipped unless
`--redo`. The learning curves of every network in `--out` are drawn into one PNG, a panel per game
(`--picture`, default docs/training_curves.png); `benchmarks/baselines.py` then grades each shipped network,
written out in the task's answer format, on the scoring episodes.

    python benchmarks/train.py [--tasks all] [--steps 10000000] [--seed 0] [--entropy 0.01] [--mask-idle-actions]
                               [--shaping] [--workers 2] [--out DIR] [--redo]

The default `--out` is the trained baseline's shipped folder, `src/wspbench/baselines/trained/` (seed 0); the reading
tasks' networks (seeds 0 to 2, 1M steps of the earlier trainer) are in `src/wspbench/tasks/reading/`.
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

from wspbench.baselines.ppo import TRAINED, Budget, train  # noqa: E402
from wspbench.networks import save_network  # noqa: E402
from wspbench.tasks import get_task, select  # noqa: E402

FOLDER = Path(__file__).parents[1] / "src" / "wspbench" / "baselines" / TRAINED


def train_one(task_id: str, budget: Budget, out: Path) -> tuple[str, float | None, float]:
    task = get_task(task_id)
    weights, about = train(task, budget)
    about["steps_per_second"] = round(about["steps"] / about["seconds"])
    stem = f"{task.game.name}.{budget.seed}"
    save_network(out, stem, weights, {"task": task_id, **about})
    finished = [value for value in about["curve"] if value is not None][-10:]  # freeway ends 1 update in 20
    return task_id, (float(np.mean(finished)) if finished else None), about["seconds"]


def draw_curves(out: Path, seed: int, picture: Path) -> Path:
    """One panel per game trained with this seed: the mean return of the training episodes that ended in each
    update, against environment steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = sorted(out.glob(f"*.{seed}.json"))
    columns = 5
    rows = max(1, -(-len(runs) // columns))
    figure, axes = plt.subplots(rows, columns, figsize=(3 * columns, 2.2 * rows), squeeze=False)
    for axis in axes.flat:
        axis.set_visible(False)
    for axis, path in zip(axes.flat, runs, strict=False):
        about = json.loads(path.read_text())
        batch = about["budget"]["environments"] * about["budget"]["rollout"]
        points = [((i + 1) * batch / 1e6, v) for i, v in enumerate(about["curve"]) if v is not None]
        axis.set_visible(True)
        axis.plot([p[0] for p in points], [p[1] for p in points], linewidth=1)
        rate = about.get("steps_per_second") or about["steps"] / about["seconds"]
        axis.set_title(f"{path.name.split('.')[0]}  ({rate:,.0f} steps/s)", fontsize=8)
        axis.tick_params(labelsize=7)
    figure.supxlabel("environment steps (millions)", fontsize=8)
    figure.supylabel("mean training return per update", fontsize=8)
    figure.tight_layout()
    figure.savefig(picture, dpi=90)
    plt.close(figure)
    return picture


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="all")
    parser.add_argument("--steps", type=int, default=Budget().steps)
    parser.add_argument("--seed", type=int, default=Budget().seed, help="the baseline is seed 0")
    parser.add_argument("--entropy", type=float, default=Budget().entropy, help="the entropy bonus's weight")
    parser.add_argument(
        "--mask-idle-actions", action="store_true", help="never sample the actions that do nothing in the game"
    )
    parser.add_argument("--shaping", action="store_true", help="train on rewards shaped by the task's potential")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--out", type=Path, default=FOLDER, help="where the networks go (default: shipped)")
    parser.add_argument("--picture", type=Path, default=Path(__file__).parents[1] / "docs" / "training_curves.png")
    parser.add_argument("--redo", action="store_true")
    parser.add_argument("--only-picture", action="store_true", help="draw the curves of the networks in --out")
    options = parser.parse_args()
    if options.only_picture:
        print(f"learning curves: {draw_curves(options.out, options.seed, options.picture)}")
        return
    budget = Budget(
        steps=options.steps,
        seed=options.seed,
        entropy=options.entropy,
        mask_idle_actions=options.mask_idle_actions,
        shaping=options.shaping,
    )
    options.out.mkdir(parents=True, exist_ok=True)
    todo, games = [], set()
    for task in select(options.tasks):
        about = options.out / f"{task.game.name}.{budget.seed}.json"
        done = about.is_file() and json.loads(about.read_text())["budget"] == budget.describe()
        if task.game.name not in games and (options.redo or not done):
            todo.append(task.id)
        games.add(task.game.name)
    console = Console()
    with Progress(console=console) as progress, ProcessPoolExecutor(options.workers) as pool:
        bar = progress.add_task(f"training {len(todo)} games, {budget.steps:,} steps each", total=len(todo))
        futures = [pool.submit(train_one, task_id, budget, options.out) for task_id in todo]
        for future in as_completed(futures):
            task_id, late_return, seconds = future.result()
            late = "no episode finished late" if late_return is None else f"late training return {late_return:.2f}"
            progress.console.print(f"{task_id}: {late}, {seconds:.0f} s", markup=False)
            progress.advance(bar)
    console.print(f"learning curves: {draw_curves(options.out, budget.seed, options.picture)}", markup=False)


if __name__ == "__main__":
    main()
