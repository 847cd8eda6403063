"""Grading speed of every engine against the seed grader, on the same answers, with identical results.

For each original game it grades answers with short and long episodes (`always_up` on freeway and
`always_right` on seaquest play long ones) and prints, per answer, the mean episode length and µs per
environment step for
  - the seed grader itself (`minatar_grader.py` from --seed-grader, by default ../shared/reference when it
    exists; skipped otherwise),
  - our `reference` engine (one process), `fast` and `compiled` with 1 worker and with all cores,
then the speed-ups over the seed grader (over `reference` without it) and their geometric means over the
games. Every result must equal the reference engine's (and the seed grader's) exactly, or it stops.
The compiled code is loaded before the timings; `--compile-time` first measures the compiled engine's first
call with an empty cache and a cached start, each in a fresh process.

    python benchmarks/grade_speed.py [--episodes 1000] [--games breakout,freeway] [--compile-time]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from wspbench.evaluation import Grading, default_workers
from wspbench.tasks import get_task
from wspbench.verifier import grade_answer

ROOT = Path(__file__).parents[1]
ANSWERS = json.loads((ROOT / "tests" / "data" / "answers.json").read_text())
WORK = {
    "asterix": ["zero", "random_dense_0", "sparse_program"],
    "breakout": ["zero", "random_dense_0", "breakout_tracker"],
    "freeway": ["zero", "random_dense_0", "always_up"],
    "seaquest": ["zero", "random_dense_0", "always_right"],
    "space_invaders": ["zero", "random_dense_0", "sparse_program"],
}
COMPARED = ("normalized_score", "raw_score", "mean_episode_length", "edit_count", "nonzero_weights")
COMPILED_DIR = ROOT / "src" / "wspbench" / "evaluation" / "compiled"
START = (
    "import time; t = time.perf_counter(); from wspbench.evaluation.compiled.engine import warm_up; warm_up(); "
    "print(time.perf_counter() - t)"
)


def load_seed_grader(folder: str | None):
    path = Path(folder) / "minatar_grader.py" if folder else None
    if path is None or not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("seed_minatar_grader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_times(console: Console) -> None:
    """First call with an empty on-disk cache, then a cached start, each in a fresh interpreter."""
    for cached in COMPILED_DIR.glob("__pycache__/*.nb[ic]"):
        cached.unlink()
    for label in ("first call, empty cache", "cached start"):
        output = subprocess.run([sys.executable, "-c", START], capture_output=True, text=True, check=True).stdout
        console.print(f"compiled engine, {label}: {float(output.split()[-1]):.2f} s (import numba and load or compile)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--games", default=",".join(WORK))
    parser.add_argument("--workers", type=int, default=default_workers(), help="'all cores' (default: all)")
    parser.add_argument(
        "--seed-grader",
        default=str(ROOT.parent / "shared" / "reference"),
        help="folder holding the seed's minatar_grader.py (skipped when absent)",
    )
    parser.add_argument("--skip", default="", help="comma-separated runs to skip, e.g. reference,fast1,fastN")
    parser.add_argument("--compile-time", action="store_true", help="measure compile and cached-start times first")
    options = parser.parse_args()
    console = Console(width=200)
    if options.compile_time:
        compile_times(console)
    seed_grader = load_seed_grader(options.seed_grader)
    workers = options.workers
    from wspbench.evaluation.compiled.engine import warm_up

    warm_up()  # the compiled code's load (or first compilation) is measured by --compile-time, not here
    runs = [("seed", None, 1)] if seed_grader else []
    runs += [
        ("reference", "reference", 1),
        ("fast1", "fast", 1),
        ("fastN", "fast", workers),
        ("compiled1", "compiled", 1),
        ("compiledN", "compiled", workers),
    ]
    runs = [run for run in runs if run[0] not in options.skip.split(",")]
    baseline = runs[0][0]
    table = Table(
        title=f"{options.episodes} episodes per answer, µs per step; N = {workers} workers; ratios against {baseline}"
    )
    for column in (
        ["game", "answer", "mean length"]
        + [name for name, _, _ in runs]
        + [f"{baseline}/compiled1", f"{baseline}/compiledN"]
    ):
        table.add_column(column, justify="left" if column in ("game", "answer") else "right")
    per_game = {}
    for game in options.games.split(","):
        task = get_task(f"original/{game}")
        totals = {name: 0.0 for name, _, _ in runs}
        for name in WORK[game]:
            answer = ANSWERS[name]
            seconds, results = {}, {}
            for run, engine, count in runs:
                started = time.perf_counter()
                if engine is None:
                    score, metadata = seed_grader.grade_answer(game, "original", answer, options.episodes)
                    results[run] = {**metadata, "normalized_score": score}
                else:
                    results[run] = grade_answer(task, answer, options.episodes, Grading(engine=engine, workers=count))
                seconds[run] = time.perf_counter() - started
                totals[run] += seconds[run]
            first = results[runs[0][0]]
            for run, result in results.items():
                assert all(result.get(key) == first.get(key) for key in COMPARED), (game, name, run)
            steps = options.episodes * first["mean_episode_length"]
            table.add_row(
                game,
                name,
                f"{first['mean_episode_length']:.1f}",
                *[f"{seconds[run] / steps * 1e6:.2f}" for run, _, _ in runs],
                f"{seconds[baseline] / seconds['compiled1']:.1f}x",
                f"{seconds[baseline] / seconds['compiledN']:.1f}x",
            )
        per_game[game] = (totals[baseline] / totals["compiled1"], totals[baseline] / totals["compiledN"])
        table.add_row(
            game,
            "[b]all[/b]",
            "",
            *["" for _ in runs],
            f"[b]{per_game[game][0]:.1f}x[/b]",
            f"[b]{per_game[game][1]:.1f}x[/b]",
            end_section=True,
        )
    console.print(table)
    for index, label in ((0, "1 worker"), (1, f"{workers} workers")):
        mean = math.exp(sum(math.log(ratios[index]) for ratios in per_game.values()) / len(per_game))
        console.print(f"geometric mean over games, {baseline} / compiled ({label}): {mean:.1f}x")
    console.print("all results identical across engines" + (" and the seed grader" if seed_grader else ""))


if __name__ == "__main__":
    main()
