"""Choose the damage of every repair task and measure it: writes src/wspbench/tasks/reading/damages.json.

The network that is damaged is each game's PPO network of seed `repair.TRAINED_SEED` (benchmarks/train.py), one
that no identify task shows. A game gets repair tasks when that network has learned something: its mean return
on TRAINING_EPISODES training episodes is positive and at least LEARNED times the best of the zero network and
the six constant-action networks (`baselines.constant_weights`) on the same episodes. Then, for each kind of
damage in `repair.DAMAGES`, the possible parameters (a pair of actions, a channel; for flip_units,
FLIPPED_UNITS layer-1 units drawn without replacement) are tried in an order drawn from numpy's default_rng(seed),
seed = crc32("<game>/<kind>"), at most MAX_TRIES of them, each played on the training episodes; the first whose
mean return falls by at least MIN_DROP of the trained network's is kept. Then the trained and the damaged network
play the SCORING_EPISODES first scoring episodes, whose returns the task normalises with; a damage is dropped if
the trained network's mean return is not above the damaged one's on every first n of them, n >= repair.MIN_EPISODES (so
that every score has a positive denominator). Scoring episodes never choose a damage or a game.

    python benchmarks/damage.py [--games breakout,ferry] [--workers 2]   # --games: measure these again, keep the rest
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from wspbench.games.minatar import all_games  # noqa: E402
from wspbench.tasks import baselines, repair  # noqa: E402
from wspbench.tasks.minatar import MinAtarTask  # noqa: E402
from wspbench.tasks.ppo import READING, trained_network  # noqa: E402

LEARNED = 1.5
TRAINING_EPISODES = 100
SCORING_EPISODES = 200
MAX_TRIES = 8
OUT = Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / READING / repair.DAMAGES_FILE
CHOICES = {
    "swap_actions": [list(pair) for pair in itertools.combinations(range(6), 2)],
    "zero_channel": [[channel] for channel in range(6)],
}


def choices(kind: str, seed: int) -> list[list[int]]:
    """The parameters to try for this kind of damage, in the seeded order."""
    generator = np.random.default_rng(seed)
    if kind == "flip_units":
        draws = (generator.choice(32, repair.FLIPPED_UNITS, replace=False) for _ in range(MAX_TRIES))
        return [sorted(int(unit) for unit in units) for units in draws]
    return [CHOICES[kind][i] for i in generator.permutation(len(CHOICES[kind]))[:MAX_TRIES]]


def mean_return(task: MinAtarTask, weights, episodes) -> tuple[float, list[float]]:
    score = task.score(weights, episodes, workers=1)
    return score.raw, list(score.values)


def measure(name: str) -> tuple[str, dict]:
    task = MinAtarTask(next(game for game in all_games() if game.game == name))
    trained = trained_network(task, repair.TRAINED_SEED, READING)[0]
    started = time.perf_counter()
    train_episodes = task.training_episodes(TRAINING_EPISODES)
    trained_train, _ = mean_return(task, trained, train_episodes)
    trivial = [task.network.zeros()] + [baselines.constant_weights(task.network, a) for a in range(6)]
    floor = max(mean_return(task, weights, train_episodes)[0] for weights in trivial)
    if trained_train <= 0 or trained_train < LEARNED * floor:
        return name, {
            "skipped": f"its trained network's mean return on training episodes is {trained_train:.4g}, the best "
            f"of the zero and constant-action networks {floor:.4g}"
        }
    _, trained_scoring = mean_return(task, trained, task.scoring_episodes(SCORING_EPISODES))
    entry = {"trained": trained_scoring, "trained_training_return": trained_train, "damages": {}, "skipped": {}}
    for kind in repair.DAMAGES:
        seed = zlib.crc32(f"{name}/{kind}".encode())
        order = choices(kind, seed)
        for tried, parameter in enumerate(order, start=1):
            damaged = repair.damage(trained, kind, parameter)
            damaged_train, _ = mean_return(task, damaged, train_episodes)
            drop = (trained_train - damaged_train) / trained_train
            if drop >= repair.MIN_DROP:
                _, damaged_scoring = mean_return(task, damaged, task.scoring_episodes(SCORING_EPISODES))
                gains = np.cumsum(np.subtract(trained_scoring, damaged_scoring))[repair.MIN_EPISODES - 1 :]
                if np.all(gains > 0):
                    entry["damages"][kind] = {
                        "parameter": parameter,
                        "seed": seed,
                        "tried": tried,
                        "training_drop": round(drop, 4),
                        "damaged": damaged_scoring,
                    }
                    break
        else:
            entry["skipped"][kind] = (
                f"none of {len(order)} seeded choices costs {repair.MIN_DROP:g} of the return on training episodes "
                f"and some return on every first n >= {repair.MIN_EPISODES} scoring episodes"
            )
    entry["seconds"] = round(time.perf_counter() - started, 1)
    print(f"{name}: {sorted(entry['damages'])} in {entry['seconds']} s", flush=True)
    return name, entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="", help="comma-separated game names (default: every MinAtar game)")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args()
    every = [game.game for game in all_games()]
    names = every if not args.games else args.games.split(",")
    with ProcessPoolExecutor(args.workers) as pool:
        measured = dict(pool.map(measure, names))
    if args.games and OUT.is_file():  # the other games keep what the file says of them
        old = json.loads(OUT.read_text())
        kept = {**old["games"], **{name: {"skipped": why} for name, why in old["skipped_games"].items()}}
        measured = {name: measured.get(name, kept.get(name)) for name in every if name in measured or name in kept}
    data = {
        "format": repair.DAMAGES_FORMAT,
        "trained_seed": repair.TRAINED_SEED,
        "min_drop": repair.MIN_DROP,
        "training_episodes": TRAINING_EPISODES,
        "scoring_episodes": SCORING_EPISODES,
        "max_tries": MAX_TRIES,
        "games": {name: entry for name, entry in measured.items() if "damages" in entry},
        "skipped_games": {name: entry["skipped"] for name, entry in measured.items() if "damages" not in entry},
    }
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {sum(len(e['damages']) for e in data['games'].values())} repair tasks")


if __name__ == "__main__":
    main()
