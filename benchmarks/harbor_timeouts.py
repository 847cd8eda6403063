"""Measure how long each task takes to grade and write the table `wsp export harbor` sizes its verifier
timeouts from (src/wspbench/export/harbor_timeouts.json), so that exports are reproducible:

    python benchmarks/harbor_timeouts.py [--tasks all] [--measure-episodes 2] [--out PATH]

For each task of the registry selector the reference (or zero) answer is graded with one process; the
table holds the worst case of one scoring episode in seconds (the measured time per decision times the
game's step limit), rounded up to 4 significant digits. Re-run it when the engine or a game's speed
changes, and commit the table.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from wspbench.export.harbor import TIMEOUTS_TABLE, measure_grading
from wspbench.tasks import select


def round_up(value: float, digits: int = 4) -> float:
    if value <= 0:
        return 0.0
    scale = 10 ** (digits - 1 - math.floor(math.log10(value)))
    return math.ceil(value * scale) / scale


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="all")
    parser.add_argument("--measure-episodes", type=int, default=2)
    parser.add_argument("--out", type=Path, default=TIMEOUTS_TABLE)
    args = parser.parse_args()
    old = json.loads(args.out.read_text())["worst_episode_s"] if args.out.is_file() else {}
    known = {task.id for task in select("all")}
    table = {task_id: seconds for task_id, seconds in old.items() if task_id in known}  # tasks that are gone go
    for task in select(args.tasks):
        table[task.id] = round_up(measure_grading(task, args.measure_episodes))
        print(f"{task.id:28s} {table[task.id]:10.4g} s per worst-case episode", flush=True)
    document = {
        "about": "Worst-case seconds of one scoring episode, one process; written by "
        "benchmarks/harbor_timeouts.py, read by wsp export harbor (unless --measure).",
        "measure_episodes": args.measure_episodes,
        "worst_episode_s": dict(sorted(table.items())),
    }
    args.out.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {args.out} ({len(table)} tasks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
