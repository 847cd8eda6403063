"""Grading speed: the reference engine against the fast engine on the same work, in one process.

For each original game it grades a few conformance answers (long episodes included: `always_up` on
freeway, `always_right` on seaquest) and prints seconds for
  - the seed grader itself (`shared/reference/minatar_grader.py`, when --seed-grader points at it),
  - our reference engine (the per-episode loop, one process),
  - our fast engine with one worker, and with the default (all cores),
checks that every result is identical, and prints the speed-ups and their geometric mean over games.

    python benchmarks/grade_speed.py [--episodes 1000] [--seed-grader ../shared/reference]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from wspbench.evaluation import default_workers
from wspbench.grading import grade_answer
from wspbench.tasks import MinAtarTask

ANSWERS = json.loads((Path(__file__).parents[1] / "tests" / "data" / "answers.json").read_text())
WORK = {
    "asterix": ["zero", "random_dense_0", "sparse_program"],
    "breakout": ["zero", "random_dense_0", "breakout_tracker"],
    "freeway": ["zero", "random_dense_0", "always_up"],
    "seaquest": ["zero", "random_dense_0", "always_right"],
    "space_invaders": ["zero", "random_dense_0", "sparse_program"],
}
COMPARED = ("normalized_score", "raw_score", "mean_episode_length", "edit_count", "nonzero_weights")


def timed(function):
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result


def load_seed_grader(folder: str | None):
    if not folder:
        return None
    path = Path(folder) / "minatar_grader.py"
    spec = importlib.util.spec_from_file_location("seed_minatar_grader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--games", default=",".join(WORK))
    parser.add_argument("--seed-grader", default=None, help="folder holding the seed's minatar_grader.py")
    options = parser.parse_args()
    seed_grader = load_seed_grader(options.seed_grader)
    workers = default_workers()
    console = Console()
    table = Table(title=f"{options.episodes} episodes per answer; fast engine with 1 and {workers} workers")
    columns = ["game", "answer", "mean length"] + (["seed grader s"] if seed_grader else []) + [
        "reference s", "fast 1w s", f"fast {workers}w s", "ref/fast 1w", f"ref/fast {workers}w"]
    for column in columns:
        table.add_column(column, justify="left" if column in ("game", "answer") else "right")
    per_game = {}
    for game in options.games.split(","):
        task = MinAtarTask(game)
        totals = {"reference": 0.0, "fast1": 0.0, "fastN": 0.0}
        for name in WORK[game]:
            answer = ANSWERS[name]
            row_seed = []
            if seed_grader:
                seconds, (score, meta) = timed(lambda: seed_grader.grade_answer(game, "original", answer, options.episodes))
                row_seed = [f"{seconds:.1f}"]
            t_ref, reference = timed(lambda: grade_answer(task, answer, options.episodes, engine="reference", workers=1))
            t_one, fast_one = timed(lambda: grade_answer(task, answer, options.episodes, engine="fast", workers=1))
            t_all, fast_all = timed(lambda: grade_answer(task, answer, options.episodes, engine="fast", workers=workers))
            for other in (fast_one, fast_all) + ((meta,) if seed_grader else ()):
                assert all(other[key] == reference[key] for key in COMPARED if key in other), (game, name)
            totals["reference"] += t_ref
            totals["fast1"] += t_one
            totals["fastN"] += t_all
            table.add_row(game, name, f"{reference['mean_episode_length']:.1f}", *row_seed, f"{t_ref:.1f}",
                          f"{t_one:.1f}", f"{t_all:.1f}", f"{t_ref / t_one:.1f}x", f"{t_ref / t_all:.1f}x")
        per_game[game] = (totals["reference"] / totals["fast1"], totals["reference"] / totals["fastN"])
        table.add_row(game, "[b]all[/b]", "", *([""] if seed_grader else []), f"{totals['reference']:.1f}",
                      f"{totals['fast1']:.1f}", f"{totals['fastN']:.1f}", f"[b]{per_game[game][0]:.1f}x[/b]",
                      f"[b]{per_game[game][1]:.1f}x[/b]", end_section=True)
    console.print(table)
    for index, label in ((0, "1 worker"), (1, f"{workers} workers")):
        mean = math.exp(sum(math.log(ratios[index]) for ratios in per_game.values()) / len(per_game))
        console.print(f"geometric mean over games, reference engine / fast engine ({label}): {mean:.1f}x")
    console.print("all results identical across engines" + (" and the seed grader" if seed_grader else ""))


if __name__ == "__main__":
    main()
