"""How well the PPO networks play, graded as the grader grades (sampled actions, the scoring episodes), against
the quality goals for the trainer, the trivial baselines of `src/wspbench/baselines/baselines.json` and the score
measured there for the shipped network (`shipped`).

Goals: a raw return of at least GOALS on the original games, and on every game at least 1.5x the best trivial
baseline (zero network, best constant action, best random network). Reads the networks of `--folder`
(default: the shipped ones, `src/wspbench/baselines/trained/`) with their training json (budget, seconds).

    python benchmarks/trained_quality.py [--folder DIR] [--seed 0] [--tasks 'original/*,synth/*'] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from wspbench.baselines import measured
from wspbench.tasks import get_task, select

GOALS = {"breakout": 20, "freeway": 50, "space_invaders": 60, "asterix": 8, "seaquest": 8}  # raw returns
MARGIN = 1.5  # trained over the best trivial baseline
FOLDER = Path(__file__).parents[1] / "src" / "wspbench" / "baselines" / "trained"


def trivial_best(entry: dict) -> float:
    """The best normalised score of the zero network, a constant action and the random networks."""
    return max(entry["zero"]["score"], entry["constant"]["score"], entry.get("random", {}).get("best", 0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", default="original/*,synth/*")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    options = parser.parse_args()
    shipped = measured.load().get("tasks", {})
    rows = []
    print(f"{'task':28} {'steps':>11} {'steps/s':>8} {'raw':>8} {'score':>7} {'shipped':>8} {'trivial':>8} "
          f"{'ratio':>6}  goal")  # fmt: skip
    for task in select(options.tasks):
        stored = options.folder / f"{task.game.name}.{options.seed}.npz"
        if not stored.is_file():
            print(f"{task.id:28} (no network)")
            continue
        about = json.loads(stored.with_suffix(".json").read_text())
        with np.load(stored) as arrays:
            weights = {name: arrays[name].astype(task.network.dtype) for name in task.network.shapes}
        score = get_task(task.id).score(weights)
        trivial = trivial_best(shipped[task.id]) if task.id in shipped else None
        before = shipped.get(task.id, {}).get("trained", {}).get("score")  # the shipped network's measured score
        ratio = score.normalized / trivial if trivial else float("inf")
        goal = GOALS.get(task.game.name)
        met = ratio >= MARGIN and (goal is None or score.raw >= goal)
        rate = about.get("steps_per_second") or about["steps"] / about["seconds"]
        rows.append({"task": task.id, "steps": about["steps"], "steps_per_second": round(rate), "raw": score.raw,
                     "score": score.normalized, "interval": list(score.interval()), "shipped_trained": before,
                     "trivial_best": trivial,
                     "goal_raw": goal, "met": met, "kept_at": about.get("kept", {}).get("steps")})  # fmt: skip
        trivial_text = "n/a" if trivial is None else f"{trivial:.4f}"
        before_text = "n/a" if before is None else f"{before:.4f}"
        goal_text = ("" if goal is None else f"raw >= {goal}, ") + f"{MARGIN}x trivial: {'met' if met else 'NOT met'}"
        print(f"{task.id:28} {about['steps']:>11,} {rate:>8,.0f} {score.raw:>8.2f} {score.normalized:>7.4f} "
              f"{before_text:>8} {trivial_text:>8} {ratio:>6.1f}  {goal_text}", flush=True)  # fmt: skip
    met = sum(row["met"] for row in rows)
    print(f"goals met on {met} of {len(rows)} games")
    if options.json:
        options.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
