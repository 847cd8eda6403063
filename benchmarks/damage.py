"""Choose the damage of every repair task and measure it: writes src/wspbench/tasks/reading/damages.json.

The networks that are damaged are each game's networks of seeds `reading_set.repair_seeds`, one per round of
`repair.ROUNDS`, which no other task shows; `wspbench/baselines/reading_build.py` (`measure_damages`) says which
networks get repair tasks and how each damage is chosen and measured. A private set (`wsp reading build`) is
measured by the same function.

    python benchmarks/damage.py [--games breakout,ferry] [--rounds 1,2] [--workers 2]   # measure these again,
                                                                                         # keep the rest
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
from wspbench.tasks import repair  # noqa: E402
from wspbench.tasks.reading_set import DAMAGES_FILE, PUBLIC, repair_seeds  # noqa: E402

OUT = Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / "reading" / DAMAGES_FILE


def stored() -> dict[str, dict]:
    """The entries the file has now, measured or skipped, by network."""
    if not OUT.is_file():
        return {}
    old = json.loads(OUT.read_text())
    return {**old["networks"], **{name: {"skipped": why} for name, why in old["skipped_networks"].items()}}


def measure(name: str, rounds: list[int] | None, old: dict[str, dict]) -> dict[str, dict]:
    """A game's networks' entries, round by round (a round skips the kinds that earlier rounds chose)."""
    binding = next(game for game in all_games() if game.game == name)

    def entry_of(index: int, seed: int, kinds: list[str]) -> dict:
        stem = f"{name}.{seed}"
        if rounds is not None and index not in rounds and stem in old:
            return old[stem]
        entry = measure_damages(binding, PUBLIC.network(name, seed, MINATAR_NETWORK)[0], kinds)
        print(f"{stem}: {sorted(entry.get('damages', {}))} in {entry.get('seconds', 0)} s", flush=True)
        return entry

    return {f"{name}.{seed}": entry for seed, entry, _ in repair.walk_rounds(name, repair_seeds(name), entry_of)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="", help="comma-separated game names (default: every MinAtar game)")
    parser.add_argument("--rounds", default="", help="comma-separated rounds (default: all)")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args()
    names = [game.game for game in all_games()] if not args.games else args.games.split(",")
    rounds = [int(index) for index in args.rounds.split(",")] if args.rounds else None
    old = stored()
    with ProcessPoolExecutor(args.workers) as pool:
        found = list(pool.map(measure, names, [rounds] * len(names), [old] * len(names)))
    measured = {**old, **{stem: entry for entries in found for stem, entry in entries.items()}}
    data = damages_file(dict(sorted(measured.items())))
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {sum(len(e['damages']) for e in data['networks'].values())} damages measured")


if __name__ == "__main__":
    main()
