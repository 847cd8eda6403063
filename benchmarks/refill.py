"""Refill the rows of W1 that the public set's reading networks never use (`src/wspbench/tasks/reading/`), so
that no row keeps its random initial value: `wspbench/baselines/reading_build.py` says how and why (`refill`); this
script runs it on the shipped networks, seeded by HMAC-SHA256(key, "<game>.<seed>"), and writes each network back
with a `refill` record in its json. The network that repair damages is played with each damaged copy of
`damages.json`. The key is not stored anywhere. Afterwards `benchmarks/damage.py` measures the damages again (a
redrawn row that is used can change a return).

    python benchmarks/refill.py --key SECRET [--games breakout,ferry] [--seeds 1,3] [--workers 2]
    python benchmarks/damage.py
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from wspbench.baselines.reading_build import refill
from wspbench.games.minatar import all_games
from wspbench.tasks.reading_set import PUBLIC

FOLDER = Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / "reading"


def refill_one(path: Path, key: bytes) -> str:
    game, seed = path.name.split(".")[0], int(path.name.split(".")[1])
    binding = next(b for b in all_games() if b.game == game)
    with np.load(path) as arrays:
        weights = {name: arrays[name] for name in arrays.files}
    damages = PUBLIC.damages().get("networks", {}).get(f"{game}.{seed}", {}).get("damages", {})
    new, record = refill(binding, weights, seed, key, f"{game}.{seed}", damages)
    np.savez_compressed(path, **new)
    about_path = path.with_suffix(".json")
    about = json.loads(about_path.read_text())
    about["refill"] = record
    about_path.write_text(json.dumps(about, indent=1) + "\n")
    return (
        f"{path.name}: {record['rows']} unused rows refilled (returns unchanged), "
        f"{record['used_rows_at_initial_values']} used rows at their initial values redrawn"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--key", default=os.environ.get("WSP_REFILL_KEY"), help="the secret (or WSP_REFILL_KEY)")
    parser.add_argument("--games", default=None, help="comma-separated games (default: all)")
    parser.add_argument("--seeds", default=None, help="comma-separated seeds (default: all)")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    options = parser.parse_args()
    if not options.key:
        parser.error("a --key is needed: the refilled values must not be derivable from the public code")
    games = None if options.games is None else set(options.games.split(","))
    seeds = None if options.seeds is None else set(options.seeds.split(","))
    paths = [
        p
        for p in sorted(FOLDER.glob("*.npz"))
        if (games is None or p.name.split(".")[0] in games) and (seeds is None or p.name.split(".")[1] in seeds)
    ]
    with ProcessPoolExecutor(options.workers) as pool:
        for line in pool.map(refill_one, paths, [options.key.encode()] * len(paths)):
            print(line, flush=True)


if __name__ == "__main__":
    main()
