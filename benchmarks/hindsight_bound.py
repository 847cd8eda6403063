"""The hindsight bound on a sample of games: the doubling check, its cost, and the per-episode check (issue 48).

For each game, the beam (`wspbench/baselines/bound.py`) plays the same calibration episodes at width W, 2W, 4W...
until doubling the width adds less than GAIN to the mean (or MAX_WIDTH is reached). On the same episodes it plays
the reference program (`wsp grade`'s engine) and, for a hand-written synthetic game, the scripted player, and
counts the episodes where the bound is below either: the search is too weak there. Every found play is replayed
in the reference game (`bound.replay`), so a bound is always a return some action sequence really gets.

    python benchmarks/hindsight_bound.py [--games synth/ferry,gen/00100,...] [--episodes 8] [--width 64]
                                         [--max-width 2048] [--out FILE.jsonl]

Costs are CPU seconds of the search (`Found.cpu_seconds`), so they hold on a busy machine. One core.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from wspbench.baselines.bound import replay, search
from wspbench.tasks import get_task

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_synth import has_scripted_player, scripted_returns  # noqa: E402 - a sibling script

GAIN = 0.02  # doubling the width must add less than this share of the mean
SAMPLE = ("synth/ferry", "synth/heat_gun", "synth/river_hop", "gen/00100", "gen/00410", "gen/00124")


def measure(task_id: str, count: int, width: int, max_width: int) -> dict:
    task = get_task(task_id)
    episodes = task.calibration_episodes(count)
    reference = list(task.grade(task.offline_answer("reference"), episodes).values)
    scripted = scripted_returns(task.game.name, episodes) if has_scripted_player(task.game.name) else None
    ladder, best = [], None
    while True:
        found = [search(task, episode, width) for episode in episodes]
        for f in found:
            if replay(task, f.episode, f.actions) != (f.value, f.length):
                raise SystemExit(f"{task_id} episode {f.episode}: the found play does not replay to its return")
        mean = float(np.mean([f.value for f in found]))
        ladder.append({"width": width, "mean": mean, "cpu_seconds": sum(f.cpu_seconds for f in found)})
        print(f"  {task_id}: width {width:5d}  mean {mean:8.3f}  cpu {ladder[-1]['cpu_seconds']:7.1f} s", flush=True)
        converged = best is not None and mean - best["mean"] < GAIN * max(abs(best["mean"]), 1e-9)
        if best is None or mean > best["mean"]:
            best = {"width": width, "mean": mean, "values": [f.value for f in found]}
        if converged or width * 2 > max_width:
            break
        width *= 2
    below = {
        name: int(sum(b < p for b, p in zip(best["values"], values, strict=True)))
        for name, values in (("reference", reference), ("scripted", scripted))
        if values is not None
    }
    return {
        "task": task_id,
        "episodes": len(episodes),
        "cap": task.binding.spec.score_cap,
        "bound": best["mean"],
        "width": best["width"],
        "converged": converged,
        "ladder": ladder,
        "reference": float(np.mean(reference)),
        "scripted": None if scripted is None else float(np.mean(scripted)),
        "episodes_below": below,
        "cpu_seconds_per_episode_at_width": ladder[-1]["cpu_seconds"] / len(episodes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(SAMPLE))
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--max-width", type=int, default=2048)
    parser.add_argument("--out", default=None, help="append one JSON line per game")
    args = parser.parse_args()
    started = time.process_time()
    print("game              cap     bound (width)   fraction of the bound: reference, scripted   below: ref, scr")
    for task_id in args.games.split(","):
        row = measure(task_id, args.episodes, args.width, args.max_width)
        scripted = "-" if row["scripted"] is None else f"{row['scripted'] / row['bound']:.3f}"
        print(
            f"{task_id:16s} {row['cap']:7.1f} {row['bound']:9.2f} ({row['width']:4d}{'' if row['converged'] else '+'})"
            f"   {row['reference'] / row['bound']:.3f}, {scripted}"
            f"   {row['episodes_below'].get('reference', '-')}, {row['episodes_below'].get('scripted', '-')}",
            flush=True,
        )
        if args.out:
            with open(args.out, "a") as file:
                file.write(json.dumps(row) + "\n")
    print(f"search and players: {time.process_time() - started:.0f} CPU seconds in all")


if __name__ == "__main__":
    main()
