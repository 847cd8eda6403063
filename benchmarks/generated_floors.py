"""An attack on the generated family (issue 28): can a generated game be scored without writing a network for it?

The generated games share one library of mechanics and one channel layout (player, danger, reward, ...), and the
hand-written reference programs of the 25 other MinAtar games are public. So the floor measured here is the best
of those 25 programs, each played unchanged on each generated game: a model that only picks a public program
(and knows which one suits, which the maximum grants it for free) scores this without programming anything.

    python benchmarks/generated_floors.py [--episodes 100] [--tasks gen] [--write]

Per generated game, on its first `--episodes` scoring episodes: every public program's normalised score, the best
one, and the game's reference (its trained network). It prints the means over the family and the games where a
public program comes within 0.05 of the reference or beats it. `--write` keeps the results in
`src/wspbench/baselines/baselines.json` (section "generated_floors"), which docs/baselines.md and `wsp baselines`
show.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from rich.progress import track  # noqa: E402

from wspbench.tasks import select  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from baselines import DATA, locked  # noqa: E402 - a sibling script

FORMAT = "wspbench.generated-floors/1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--tasks", default="gen")
    parser.add_argument("--write", action="store_true", help="keep the results in baselines.json")
    options = parser.parse_args()
    programs = {task.game.name: task.offline_answer("reference") for task in select("original/*,synth/*")}
    started = time.perf_counter()
    rows = {}
    for task in track(select(options.tasks), description="public programs on generated games"):
        episodes = task.scoring_episodes(options.episodes)
        scores = {name: task.grade(answer, episodes, workers=1).normalized for name, answer in programs.items()}
        best = max(scores, key=scores.get)
        reference = task.grade(task.offline_answer("reference"), episodes, workers=1).normalized
        rows[task.id] = {"best": best, "score": scores[best], "reference": reference, "programs": scores}
    seconds = time.perf_counter() - started
    count = len(rows)
    floor = sum(row["score"] for row in rows.values()) / count
    reference = sum(row["reference"] for row in rows.values()) / count
    close = [task for task, row in rows.items() if row["score"] >= row["reference"] - 0.05]
    print(f"{count} generated games, {options.episodes} episodes each, {len(programs)} programs, {seconds:.0f} s")
    print(f"mean of the best public program per game: {floor:.4f}; mean reference (trained network): {reference:.4f}")
    print(f"games where a public program comes within 0.05 of the reference or beats it: {len(close)}")
    for task in close:
        row = rows[task]
        print(f"  {task}: {row['best']} {row['score']:.4f} vs reference {row['reference']:.4f}")
    if not options.write:
        return
    with locked():  # benchmarks/baselines.py may be writing the file
        data = json.loads(DATA.read_text())
        data["generated_floors"] = {
            "format": FORMAT,
            "episodes": options.episodes,
            "programs": sorted(programs),
            "mean_best_program": floor,
            "mean_reference": reference,
            "tasks": rows,
        }
        DATA.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
