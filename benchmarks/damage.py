"""Choose the damage of every repair task and measure it: writes src/wspbench/tasks/reading/damages.json.

The network that is damaged is each game's network of seed `reading_set.REPAIR_SEED`, one that no other task
shows; `wspbench/baselines/reading_build.py` (`measure_damages`) says which games get repair tasks and how each
damage is chosen and measured. A private set (`wsp reading build`) is measured by the same function.

    python benchmarks/damage.py [--games breakout,ferry] [--workers 2]   # --games: measure these again, keep the rest
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from wspbench.baselines.reading_build import damages_file, measure_damages  # noqa: E402
from wspbench.games.minatar import all_games  # noqa: E402
from wspbench.networks import MINATAR_NETWORK  # noqa: E402
from wspbench.tasks.reading_set import DAMAGES_FILE, PUBLIC, REPAIR_SEED  # noqa: E402

OUT = Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / "reading" / DAMAGES_FILE


def measure(name: str) -> tuple[str, dict]:
    binding = next(game for game in all_games() if game.game == name)
    entry = measure_damages(binding, PUBLIC.network(name, REPAIR_SEED, MINATAR_NETWORK)[0])
    print(f"{name}: {sorted(entry.get('damages', {}))} in {entry.get('seconds', 0)} s", flush=True)
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
    data = damages_file(measured)
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {sum(len(e['damages']) for e in data['games'].values())} damages measured")


if __name__ == "__main__":
    main()
