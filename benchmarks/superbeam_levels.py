"""SUPERBEAM: how well the reference networks play, how fast a level runs, and the level proofs
replayed on the CHIP-8 machine.

    python benchmarks/superbeam_levels.py [--proof-seeds 500] [--no-proofs]

1. The hand-written reference network, the zero network (always noop) and an always-right network
   on the training levels (0..9) and the test levels (1000000..1000019), difficulty 0.5, scored by the
   `superbeam` task (wspbench/tasks/superbeam.py): levels won and mean progress.
2. Seconds per level: a full 600-frame episode (the zero network never finishes), features and
   network included, and the mean over the reference network's test levels.
3. The winnability proofs: for seeds 0..N-1 at difficulties 0.2, 0.5, 0.8 the search on the
   Python twin (superbeam.physics.solve) finds an action sequence, which is then replayed on the
   emulator and must win there too. (CI runs the search for all 1500 levels and replays a sample.)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from superbeam import physics
from superbeam.env import SuperBeamEnv
from superbeam.levels import generate
from wspbench.networks import SUPERBEAM_NETWORK
from wspbench.tasks import get_task
from wspbench.tasks.superbeam import TEST_LEVELS, TRAIN_LEVELS, reference_weights


def networks():
    zero = SUPERBEAM_NETWORK.zeros()
    right = SUPERBEAM_NETWORK.zeros()
    right["b2"][2] = 1.0
    return {"reference": reference_weights(), "zero": zero, "always-right": right}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proof-seeds", type=int, default=500)
    parser.add_argument("--no-proofs", action="store_true")
    args = parser.parse_args()

    task = get_task("superbeam")
    print("network        levels  won      mean progress  s/level")
    for name, w in networks().items():
        for label, levels in (("train", TRAIN_LEVELS), ("test", TEST_LEVELS)):
            result = task.score(w, levels)
            r, dt = result.metadata, result.seconds / len(levels)
            print(
                f"{name:14s} {label:6s}  {r['won']:2d}/{r['levels']:<3d}  {100 * r['mean_progress']:6.1f}%"
                f"        {dt:.3f}"
            )

    zero = networks()["zero"]
    times = []
    for _ in range(3):
        t = time.perf_counter()
        _, _, r = task.watch(zero, 0)
        times.append(time.perf_counter() - t)
    assert r["frames"] == 600
    print(
        f"\na 600-frame level (zero network, features + network every step): {min(times):.3f} s "
        f"(best of 3; target < 0.5 s)"
    )
    env = SuperBeamEnv(0)
    t = time.perf_counter()
    while not (env.won or env.dead or env.frames >= 600):
        env.step(0)
    print(
        f"the machine alone, 600 frames: {time.perf_counter() - t:.3f} s "
        f"({env.backend.executed / max(env.frames, 1):.0f} instructions per frame)"
    )

    if args.no_proofs:
        return
    print(f"\nproofs: seeds 0..{args.proof_seeds - 1} at difficulties 0.2, 0.5, 0.8")
    for d in (0.2, 0.5, 0.8):
        t = time.perf_counter()
        t_search = 0.0
        failures, lengths = [], []
        for seed in range(args.proof_seeds):
            level = generate(seed, d)
            t0 = time.perf_counter()
            actions = physics.solve(level)
            t_search += time.perf_counter() - t0
            if actions is None:
                failures.append((seed, "no sequence found"))
                continue
            env = SuperBeamEnv(level)
            info = {}
            for a in actions:
                _, _, term, trunc, info = env.step(a)
                if term or trunc:
                    break
            if not info.get("won"):
                failures.append((seed, "sequence did not win on the machine"))
            lengths.append(env.frames)
        print(
            f"  difficulty {d}: {args.proof_seeds - len(failures)}/{args.proof_seeds} won on the machine, "
            f"winning runs {np.mean(lengths):.0f} frames on average; search {t_search:.1f} s, "
            f"total {time.perf_counter() - t:.1f} s" + (f"; FAILURES {failures[:10]}" if failures else "")
        )


if __name__ == "__main__":
    main()
