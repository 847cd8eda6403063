"""Every generated game grades identically in the seed grader and in `wsp grade` (issue 28): for each `gen/*` task
(or `--games`), each answer is graded by the seed grader (`minatar_grader.py` from --seed-grader, by default
../shared/reference; it reads a generated game as source synth, game gen_<seed>) and by our grader as `wsp grade`
grades it (`verifier.grade_answer`, engine auto, and the reference engine), and the results must be equal in every
field the seed grader returns (normalised and raw score, mean episode length, edit and non-zero counts). The
answers: the zero network, `sparse_program` and `random_dense_0` of tests/data/answers.json, and the game's
trained network (its reference, 270,000 characters of edits).

    python benchmarks/generated_conformance.py [--episodes 50] [--games gen_00100,gen_00101]
    python benchmarks/generated_conformance.py --episodes 20 --games SAMPLE --write tests/data/generated_expected.json

It prints one row per game (mismatches, seconds in the seed grader and in ours) and the totals; it exits 1 on any
mismatch. `--write` keeps the seed grader's results for a sample, which tests/games/test_generated.py checks
without the seed grader.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from wspbench.baselines.ppo import trained_answer
from wspbench.evaluation import Grading
from wspbench.tasks import get_task, select
from wspbench.verifier import grade_answer

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from grade_speed import load_seed_grader  # noqa: E402 - a sibling script

ANSWERS = json.loads((ROOT / "tests" / "data" / "answers.json").read_text())
COMPARED = ("normalized_score", "raw_score", "mean_episode_length", "edit_count", "nonzero_weights")
SHARED = ("zero", "sparse_program", "random_dense_0")  # from tests/data/answers.json


def answers_for(task) -> dict[str, str]:
    return {**{name: ANSWERS[name] for name in SHARED}, "trained": trained_answer(task)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--games", default="", help="comma-separated module names (default: every gen/* task)")
    parser.add_argument("--seed-grader", default=str(ROOT.parent / "shared" / "reference"))
    parser.add_argument("--write", type=Path, help="keep the seed grader's results for these games in this file")
    options = parser.parse_args()
    seed = load_seed_grader(options.seed_grader)
    if seed is None:
        raise SystemExit(f"no seed grader in {options.seed_grader} (--seed-grader)")
    tasks = [get_task(name) for name in options.games.split(",") if name] or select("gen")
    console = Console()
    table = Table(title=f"generated games, {options.episodes} episodes per answer: seed grader vs wsp grade")
    for column in ("task", "answers", "mismatches", "seed grader s", "wsp grade s", "reference engine s"):
        table.add_column(column, justify="left" if column == "task" else "right")
    kept, mismatches, totals = {}, 0, [0.0, 0.0, 0.0]
    for task in tasks:
        row_mismatches, seconds = 0, [0.0, 0.0, 0.0]
        for name, answer in answers_for(task).items():
            started = time.perf_counter()
            normalized, theirs = seed.grade_answer(task.game.name, "synth", answer, options.episodes)
            seconds[0] += time.perf_counter() - started
            expected = {**{key: theirs.get(key) for key in COMPARED}, "normalized_score": normalized}
            for i, engine in ((1, "auto"), (2, "reference")):
                started = time.perf_counter()
                ours = grade_answer(task, answer, options.episodes, Grading(engine=engine, workers=1))
                seconds[i] += time.perf_counter() - started
                if {key: ours.get(key) for key in COMPARED} != expected or ours["source"] != theirs["source"]:
                    row_mismatches += 1
                    console.print(f"[red]{task.id} {name} {engine}: {ours} != {theirs}[/red]")
            kept.setdefault(task.game.name, {})[name] = expected
        mismatches += row_mismatches
        totals = [a + b for a, b in zip(totals, seconds, strict=True)]
        table.add_row(task.id, str(len(SHARED) + 1), str(row_mismatches), *(f"{s:.1f}" for s in seconds))
    table.add_row("all", str(len(tasks) * (len(SHARED) + 1)), str(mismatches), *(f"{s:.1f}" for s in totals))
    console.print(table)
    console.print(f"wsp grade (auto) is {totals[0] / max(totals[1], 1e-9):.1f}x the seed grader's speed here")
    if options.write:
        data = {"episodes": options.episodes, "answers": list(SHARED) + ["trained"], "results": kept}
        options.write.write_text(json.dumps(data, indent=1) + "\n")
        console.print(f"wrote {options.write}")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
