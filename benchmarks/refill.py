"""Refill the rows of W1 that a reading network never uses, so that no row keeps its random initial value
(docs/reading.md, "Floors"): PPO leaves the row of an input that is never on exactly as it drew it, so the map of
untouched rows is a map of where the game puts its objects, and the public code plus the training seed draws them.

For each network in `src/wspbench/tasks/reading/` (`<game>.<seed>.npz`), the inputs that are ever on are
collected while it plays, as the grader plays it, the episodes its tasks grade: SCORING_EPISODES scoring and
TRAINING_EPISODES training episodes, and for the network that repair damages (seed `repair.TRAINED_SEED`) every
damaged copy on the same episodes. Every other row of W1 is refilled: each entry drawn from the trained rows'
entries in its column, times exp(N(-JITTER^2, JITTER)) (so that no value is a copy; its mean square is 1, so the
refilled rows are no larger than the others: exp(N(0, JITTER)) made them 8% larger in mean square, which told
them apart), from numpy's default_rng seeded by
HMAC-SHA256(key, "<game>.<seed>"). An input that is never on contributes exactly 0, so every episode played
gives the same return before and after, which this script checks. A few inputs are on in these episodes but
were never on in training, so their rows still hold the initial values: they are redrawn the same way, which
can change a return, so `benchmarks/damage.py` measures the repair tasks' damages and returns again afterwards.
The network is written back with a `refill` record in its json. The key is not stored anywhere.

    python benchmarks/refill.py --key SECRET [--games breakout,ferry] [--workers 2] && python benchmarks/damage.py
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from wspbench.evaluation.engine import play_reference
from wspbench.games.minatar import all_games
from wspbench.networks import MINATAR_NETWORK
from wspbench.tasks.minatar import MinAtarTask
from wspbench.tasks.ppo import READING, initial
from wspbench.tasks.repair import TRAINED_SEED, damage, load_damages

FOLDER = Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / READING
SCORING_EPISODES, TRAINING_EPISODES = 200, 100
JITTER = 0.2


def used_inputs(binding, networks: list[dict], episodes: list[int]) -> np.ndarray:
    """Which of the 600 inputs are ever on while these networks play these episodes."""
    seen = np.zeros(600, dtype=bool)

    def observe(screen, logits, action, value):
        seen[:] |= screen.reshape(-1) != 0

    for weights in networks:
        play_reference(binding, weights, episodes, observe=observe)
    return seen


def refilled(weights: dict, redraw: np.ndarray, generator: np.random.Generator) -> dict:
    """A copy of `weights` whose rows of W1 marked in `redraw` hold values drawn like the others' (the module
    docstring says how)."""
    out = {name: np.array(tensor, copy=True) for name, tensor in weights.items()}
    w1, unused = out["W1"], np.flatnonzero(redraw)
    for column in range(w1.shape[1]):
        pool = w1[~redraw, column]
        drawn = pool[generator.integers(len(pool), size=len(unused))]
        w1[unused, column] = drawn * np.exp(generator.normal(-(JITTER**2), JITTER, size=len(unused)))
    return out


def returns(task: MinAtarTask, weights: dict, episodes: list[int]) -> list[float]:
    return list(task.score(weights, episodes, workers=1).values)


def refill_one(path: Path, key: bytes) -> str:
    game, seed = path.name.split(".")[0], int(path.name.split(".")[1])
    binding = next(b for b in all_games() if b.game == game)
    task = MinAtarTask(binding)
    with np.load(path) as arrays:
        weights = {name: arrays[name] for name in arrays.files}
    damages = load_damages()["games"].get(game, {}).get("damages", {}) if seed == TRAINED_SEED else {}
    damaged = [damage(weights, kind, entry["parameter"]) for kind, entry in damages.items()]
    episodes = task.scoring_episodes(SCORING_EPISODES) + task.training_episodes(TRAINING_EPISODES)
    used = used_inputs(binding, [weights, *damaged], episodes)
    start = initial(MINATAR_NETWORK.sizes, 0.01, np.random.default_rng(seed))[0]  # as ppo.train draws it
    untrained = (weights["W1"] == start).all(axis=1)
    digest = hmac.new(key, f"{game}.{seed}".encode(), hashlib.sha256).digest()
    generator = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    unchanged = refilled(weights, ~used, generator)  # the unused rows only: every return must stay the same
    for before, after in [(weights, unchanged)] + [
        (d, damage(unchanged, kind, entry["parameter"]))
        for d, (kind, entry) in zip(damaged, damages.items(), strict=True)
    ]:
        if returns(task, before, episodes) != returns(task, after, episodes):
            raise RuntimeError(f"{path.name}: refilling unused rows changed a return")
    new = refilled(unchanged, untrained & used, generator) if (untrained & used).any() else unchanged
    np.savez_compressed(path, **new)
    about_path = path.with_suffix(".json")
    about = json.loads(about_path.read_text())
    about["refill"] = {
        "rows": int((~used).sum()),
        "used_rows_at_initial_values": int((untrained & used).sum()),
        "episodes": {"scoring": SCORING_EPISODES, "training": TRAINING_EPISODES},
        "networks_played": 1 + len(damaged),
        "rule": "benchmarks/refill.py: unused rows of W1 drawn from the used rows' column values times "
        f"exp(N(-{JITTER}^2, {JITTER})), from a secret key; every return checked unchanged",
    }
    about_path.write_text(json.dumps(about, indent=1) + "\n")
    return (
        f"{path.name}: {int((~used).sum())} unused rows refilled (returns unchanged on {len(episodes)} episodes), "
        f"{int((untrained & used).sum())} used rows at their initial values redrawn"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--key", default=os.environ.get("WSP_REFILL_KEY"), help="the secret (or WSP_REFILL_KEY)")
    parser.add_argument("--games", default=None, help="comma-separated games (default: all)")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    options = parser.parse_args()
    if not options.key:
        parser.error("a --key is needed: the refilled values must not be derivable from the public code")
    games = None if options.games is None else set(options.games.split(","))
    paths = [p for p in sorted(FOLDER.glob("*.npz")) if games is None or p.name.split(".")[0] in games]
    with ProcessPoolExecutor(options.workers) as pool:
        for line in pool.map(refill_one, paths, [options.key.encode()] * len(paths)):
            print(line, flush=True)


if __name__ == "__main__":
    main()
