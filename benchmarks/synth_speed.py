"""Grading speed of synthetic and generated games: `wsp grade` (compiled) against the seed grader, side by side.

For each game, its reference answer (a hand-written game's reference program; a generated game's trained network,
a dense answer of about 270,000 characters) is graded on N episodes, N sized so that the seed grader needs about
--seconds per game (measured on 200 episodes first, with 20% to spare):
  - as whole commands, one worker: the seed grader (`minatar_grader.grade_answer` from --seed-grader, by default
    ../shared/reference, in a fresh Python) and `wsp grade TASK FILE --episodes N --workers 1 --json` after a
    warm-up run (the compiled code cached), the faster of two runs;
  - in process: the seed grader's `grade_answer` and our `task.grade(..., Grading(engine="compiled", workers=1))`, warm;
    and how much of ours is parsing the answer (`task.read`).
The raw score and mean length must equal the seed grader's. It prints one row per game and the geometric means.

    python benchmarks/synth_speed.py [--games ferry,heat_gun,gen_00100] [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from wspbench.evaluation import Grading
from wspbench.tasks import get_task

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from grade_speed import load_seed_grader  # noqa: E402 - a sibling script

GAMES = "ferry,heat_gun,river_hop,pogo_jump,gen_00100,gen_00113,gen_00140,gen_00410"
WSP = str(Path(sys.executable).with_name("wsp"))
SEED_COMMAND = (
    "import sys; sys.path.insert(0, sys.argv[1]); import minatar_grader as g; "
    "print(g.grade_answer(sys.argv[2], 'synth', open(sys.argv[3]).read(), int(sys.argv[4]))[1]['raw_score'])"
)


def timed(command: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - started, output


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=GAMES)
    parser.add_argument("--seconds", type=float, default=20.0, help="the seed grader's time per game to size N")
    parser.add_argument("--seed-grader", default=str(ROOT.parent / "shared" / "reference"))
    options = parser.parse_args()
    seed = load_seed_grader(options.seed_grader)
    if seed is None:
        raise SystemExit(f"no seed grader in {options.seed_grader} (--seed-grader)")
    console = Console(width=160)
    console.print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    table = Table(title="seed grader vs wsp grade (compiled), 1 worker, same answers and episodes")
    columns = ("task", "answer chars", "episodes", "seed cmd s", "wsp grade s", "ratio", "seed in-proc s",
               "ours in-proc s", "of which parsing s", "ratio")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "task" else "right")
    whole, inside = [], []
    folder = Path(tempfile.mkdtemp())
    for name in options.games.split(","):
        task = get_task(name)
        answer = task.offline_reply("reference")  # a generated game's: its calibrated network
        path = folder / f"{name}.txt"
        path.write_text(answer)
        seed.grade_answer(task.game.name, "synth", answer, 5)  # warm: imports, the game module
        started = time.perf_counter()
        seed.grade_answer(task.game.name, "synth", answer, 200)
        per_episode = (time.perf_counter() - started) / 200
        episodes = max(100, math.ceil(1.2 * options.seconds / per_episode / 100) * 100)  # 20% to spare
        seed_seconds, seed_out = timed(
            [sys.executable, "-c", SEED_COMMAND, options.seed_grader, task.game.name, str(path), str(episodes)]
        )
        command = [WSP, "grade", task.id, str(path), "--episodes", str(episodes), "--workers", "1", "--json"]
        timed(command)  # warm: the compiled code is cached and the files are read once
        ours_seconds, ours_out = min(timed(command), timed(command))
        ours = json.loads(ours_out)
        if float(seed_out) != ours["raw"]:
            raise SystemExit(f"{task.id}: the seed grader's raw score {seed_out} != ours {ours['raw_score']}")
        started = time.perf_counter()
        _, theirs = seed.grade_answer(task.game.name, "synth", answer, episodes)
        seed_inside = time.perf_counter() - started
        task.grade(answer, range(episodes), Grading("compiled", 1))  # warm
        started = time.perf_counter()
        score = task.grade(answer, range(episodes), Grading("compiled", 1))
        ours_inside = time.perf_counter() - started
        started = time.perf_counter()
        task.read(answer)
        parsing = time.perf_counter() - started
        if (score.raw, score.mean_length) != (theirs["raw_score"], theirs["mean_episode_length"]):
            raise SystemExit(f"{task.id}: in process, the seed grader's {theirs} != ours {score.raw}")
        whole.append(seed_seconds / ours_seconds)
        inside.append(seed_inside / ours_inside)
        table.add_row(task.id, f"{len(answer):,}", str(episodes), f"{seed_seconds:.1f}", f"{ours_seconds:.2f}",
                      f"{whole[-1]:.1f}x", f"{seed_inside:.1f}", f"{ours_inside:.3f}", f"{parsing:.3f}",
                      f"{inside[-1]:.0f}x")  # fmt: skip
    console.print(table)
    console.print(
        f"geometric mean: whole commands {geometric_mean(whole):.1f}x, in process {geometric_mean(inside):.0f}x"
    )
    console.print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
