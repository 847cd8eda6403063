"""Screen hard-family seeds (issue 49) before any long training: each game's trivial players, the generic program
and a short PPO run, as shares of a narrow hindsight bound on a few calibration episodes.

A seed worth a 10M-step reference is one where the short PPO run already beats the trivial players clearly, and
where the generic program (`wspbench/baselines/generic.py`) stays far below the bound. The bound here is a narrow
beam (`--width`) on `--episodes` episodes: a lower estimate of the calibrated one, so every share printed is an
upper estimate of the share of the cap.

    python benchmarks/hard_screen.py [--seeds 100-105] [--steps 2000000] [--width 128] [--episodes 16]

One core; about a minute a seed at these settings (most of it PPO).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402 - after the thread setting
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from minatar_synth import generator  # noqa: E402
from wspbench.baselines import bound, generic  # noqa: E402
from wspbench.baselines.measured import constant_weights  # noqa: E402
from wspbench.baselines.ppo import Budget, train  # noqa: E402
from wspbench.evaluation import ONE_WORKER  # noqa: E402
from wspbench.games import synth  # noqa: E402
from wspbench.games.minatar import MinAtarGame  # noqa: E402
from wspbench.tasks.minatar import MinAtarTask  # noqa: E402

COLUMNS = ("zero", "constant", "generic", "ppo")  # each a share of the narrow bound


def screen(seed: int, folder: Path, steps: int, width: int, episodes: int) -> dict:
    started = time.process_time()
    design = generator.design(seed, "hard")
    name = generator.write(seed, folder, None, "hard").stem
    with synth.borrowed(folder, name):
        task = MinAtarTask(MinAtarGame(name, "hard"))
        chosen = list(task.calibration_episodes(episodes))

        def mean(weights) -> float:
            return float(np.mean(task.score(weights, chosen, ONE_WORKER).values))

        ceiling = float(np.mean([bound.search(task, e, width).value for e in chosen]))
        weights, _ = train(task, Budget(steps=steps, checkpoints=4, checkpoint_episodes=20))
        played = {
            "zero": mean(task.network.zeros()),
            "constant": max(mean(constant_weights(task.network, action)) for action in range(6)),
            "generic": mean(generic.program(design.layout, design.fire)),
            "ppo": mean(weights),
        }
    return {
        "game": name,
        "design": f"{design.layout}, fire {design.fire}, power {design.power}, bonus {design.bonus_value}",
        "bound": ceiling,
        **{player: value / ceiling for player, value in played.items()},
        "cpu_seconds": time.process_time() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="100-105")
    parser.add_argument("--steps", type=int, default=2_000_000)
    parser.add_argument("--width", type=int, default=128)
    parser.add_argument("--episodes", type=int, default=16)
    args = parser.parse_args()
    first, _, last = args.seeds.partition("-")
    folder = Path(tempfile.mkdtemp(prefix="wsp-hard-"))
    print(f"{'game':10s} {'design':34s} {'bound':>7s}" + "".join(f" {name:>7s}" for name in COLUMNS) + "   cpu s")
    for seed in range(int(first), int(last or first) + 1):
        row = screen(seed, folder, args.steps, args.width, args.episodes)
        print(
            f"{row['game']:10s} {row['design']:34s} {row['bound']:7.1f}"
            + "".join(f" {row[name]:7.3f}" for name in COLUMNS)
            + f" {row['cpu_seconds']:7.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
