"""Training throughput on one core: the PPO trainer before batched environments (16 Python environments a
step, loaded from git at BEFORE) and now (`src/wspbench/baselines/ppo.py` on `Task.environments`), on the same
games in one run, end to end (environments, forward passes, updates), with the limit the matrix work sets.

The limit: the floating-point operations of one environment step (the rollout's policy and critic forward
passes, then `epochs` forward and backward passes of both over the step's sample) over this core's measured
rate on the largest product the trainer computes (a minibatch times W1).

    python benchmarks/train_speed.py [--games original/breakout synth/ferry] [--updates 4]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # one core, as each game trains on one
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import importlib.util  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from wspbench.baselines.ppo import Budget, train  # noqa: E402
from wspbench.tasks import get_task  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "ee1c2a6"  # the last commit with the trainer that stepped each environment in Python


def old_trainer():
    """The trainer as it was at BEFORE, or None outside a git checkout that has that commit."""
    shown = subprocess.run(["git", "show", f"{BEFORE}:src/wspbench/baselines/ppo.py"], cwd=ROOT, capture_output=True)
    if shown.returncode:
        return None
    path = Path(tempfile.mkdtemp()) / "ppo_before.py"
    path.write_bytes(shown.stdout)
    spec = importlib.util.spec_from_file_location("ppo_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def steps_per_second(trainer, budget_type, task, updates: int, environments: int, rollout: int, **more) -> float:
    """Warm up (numba's compiled games load), then time whole updates; the first, measuring rollout counts too."""
    sizes = {"environments": environments, "rollout": rollout, **more}
    trainer(task, budget_type(steps=2 * environments * rollout, **sizes))
    budget = budget_type(steps=updates * environments * rollout, **sizes)
    started = time.perf_counter()
    trainer(task, budget)
    return budget.steps / (time.perf_counter() - started)


def limit(budget: Budget, sizes: tuple[int, ...]) -> tuple[float, float]:
    """Steps per second the matrix work allows on this core, and the core's measured GFLOP/s."""
    forward = sum(2 * a * b for a, b in zip(sizes[:-1], sizes[1:], strict=True))  # the policy
    forward += forward - 2 * sizes[-2] * sizes[-1] + 2 * sizes[-2]  # the critic (one output)
    flops = forward + budget.epochs * 3 * forward  # a backward pass costs about two forward passes
    rows = budget.environments * budget.rollout // budget.minibatches
    x = np.random.default_rng(0).random((rows, sizes[0]), dtype=np.float32)
    w = np.ones((sizes[0], sizes[1]), np.float32)
    x @ w
    repeats, started = 0, time.perf_counter()
    while time.perf_counter() - started < 1.0:
        x @ w
        repeats += 1
    rate = 2 * rows * sizes[0] * sizes[1] * repeats / (time.perf_counter() - started)
    return rate / flops, rate / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["original/breakout", "synth/ferry"])
    parser.add_argument("--updates", type=int, default=12, help="updates timed per trainer (the new one's size)")
    options = parser.parse_args()
    new = Budget()
    old = old_trainer()
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); one core per trainer")
    print(f"before: {BEFORE}, 16 environments x 128 steps; now: {new.environments} x {new.rollout}, "
          f"{new.epochs} epochs of {new.minibatches} minibatches")  # fmt: skip
    for task_id in options.games:
        task = get_task(task_id)
        # no checkpoints: in a short run they would be most of the time (a 10M-step run scores 10 x 100 episodes)
        now = steps_per_second(train, Budget, task, options.updates, new.environments, new.rollout, checkpoints=0)
        line = f"{task_id}: now {now:,.0f} steps/s"
        if old is not None:
            before = steps_per_second(old.train, old.Budget, task, 8 * options.updates, 16, 128)  # as many steps
            line += f", before {before:,.0f} steps/s ({now / before:.1f}x)"
        most, gflops = limit(new, task.network.sizes)
        line += f"; matrix limit {most:,.0f} steps/s ({gflops:.0f} GFLOP/s measured), {now / most:.0%} of it"
        print(line, flush=True)
    if old is None:
        print(f"(no `before` column: this is not a git checkout holding commit {BEFORE})", file=sys.stderr)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
