"""The generic program (`wspbench/baselines/generic.py`) on every shipped generated game: issue 49's floor.

For each `gen` game, on its calibration episodes (the ones its cap was set on): the generic program's mean return
as a share of the cap, beside the game's trained network and its best public program (`generated.json`), per
layout and scoring. With `--grid`, a few settings are tried and the best mean share is shown (how its numbers
were chosen; the scoring episodes are never played).

    python benchmarks/generic_program.py [--episodes 200] [--games gen] [--grid]

One core; about 20 CPU seconds for the 106 games at 200 episodes.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402 - after the thread setting
import itertools  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from dataclasses import replace  # noqa: E402

import numpy as np  # noqa: E402

from wspbench.baselines import generic  # noqa: E402
from wspbench.evaluation import ONE_WORKER  # noqa: E402
from wspbench.statistics import normalize  # noqa: E402
from wspbench.tasks import select  # noqa: E402
from wspbench.tasks.minatar import generated_calibration  # noqa: E402

GRID = {"decay": (0.8, 0.9), "vote": (2.0, 4.0), "hunt": (0.0, 0.5, 1.0), "fire_bias": (0.3, 0.8)}


def shares(tasks, episodes: int, settings: generic.Settings) -> dict[str, float]:
    """The generic program's normalised mean on each game's calibration episodes."""
    found = {}
    for task in tasks:
        weights = generic.for_game(task.game.name, settings)
        raw = float(np.mean(task.score(weights, task.calibration_episodes(episodes), ONE_WORKER).values))
        found[task.id] = normalize(raw, task.game.score_cap)
    return found


def show(found: dict[str, float], tasks) -> None:
    rows = generated_calibration()
    groups = defaultdict(list)
    for task in tasks:
        row = rows[task.game.name]
        cap, mechanics = task.game.score_cap, row["mechanics"]
        entry = (found[task.id], row["trained"]["mean"] / cap, row["public"]["mean"] / cap)
        groups["all"].append(entry)
        groups[f"layout {mechanics['layout']}"].append(entry)
        groups[f"scoring {mechanics['scoring']}"].append(entry)
    print(f"{'games':18s} {'n':>4s} {'generic':>8s} {'trained':>8s} {'public':>8s}  (mean share of the cap)")
    for name, entries in groups.items():
        values = np.array(entries)
        print(f"{name:18s} {len(values):4d} " + " ".join(f"{v:8.3f}" for v in values.mean(axis=0)))
    above = sum(share > 0.3 for share in found.values())
    print(f"games where the generic program scores above 0.3 of the cap: {above} of {len(found)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--games", default="gen")
    parser.add_argument("--grid", action="store_true")
    args = parser.parse_args()
    tasks = select(args.games)
    started = time.process_time()
    best = generic.Settings()
    if args.grid:
        scored = []
        for values in itertools.product(*GRID.values()):
            settings = replace(best, **dict(zip(GRID, values, strict=True)))
            mean = float(np.mean(list(shares(tasks, args.episodes, settings).values())))
            scored.append((mean, settings))
            print(f"{mean:.4f} {settings}", flush=True)
        best = max(scored, key=lambda pair: pair[0])[1]
        print(f"best: {best}")
    show(shares(tasks, args.episodes, best), tasks)
    print(f"{time.process_time() - started:.1f} CPU s")


if __name__ == "__main__":
    main()
