"""How much headroom a generated game's cap leaves above what PPO finds with much more compute (issue 40).

A generated game's cap is CAP_FACTOR x the mean of its calibration network (`wspbench/baselines/generated.py`).
Here a sample of games is trained for `--steps` (20M by default) with the calibration's PPO settings otherwise,
and each network's mean return on the calibration episodes is set against the cap: a careful user who trains
that long should still score below 0.9 on most games, or a score near 1 says little about programming.

    python benchmarks/generated_headroom.py [--games 10] [--steps 20000000] [--out DIR] [--calibration FILE ...]

The sample is every k-th game of the shipped family (k = family size // --games), so it spreads over the seeds.
Each trained network goes to `<out>/trained/`, each result to `<out>/headroom.jsonl` (a game already there is
skipped: the run resumes). `--calibration` names calibration results (benchmarks/calibrate_generated.py's
results.jsonl) whose trained means are shown beside (the calibration network), with the suite-7 1M-step means of
`minatar_synth/generated.json`. One core.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
from dataclasses import replace  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from wspbench.baselines import generated  # noqa: E402
from wspbench.baselines.ppo import train  # noqa: E402
from wspbench.networks import save_network  # noqa: E402
from wspbench.tasks import select  # noqa: E402
from wspbench.tasks.minatar import generated_calibration  # noqa: E402


def sample(count: int) -> list[str]:
    games = sorted(generated_calibration())
    return games[:: max(1, len(games) // count)][:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--steps", type=int, default=20_000_000)
    parser.add_argument("--out", type=Path, default=Path("/tmp/wspbench-headroom"))
    parser.add_argument("--calibration", type=Path, nargs="*", default=[])
    parser.add_argument("--only", help="train only these games (comma-separated), of the sample")
    options = parser.parse_args()
    (options.out / "trained").mkdir(parents=True, exist_ok=True)
    results = options.out / "headroom.jsonl"
    done = {}
    if results.is_file():
        for line in results.read_text().splitlines():
            row = json.loads(line)
            done[row["game"]] = row
    budget = replace(generated.BUDGET, steps=options.steps)
    chosen = sample(options.games)
    for game in chosen if options.only is None else [g for g in chosen if g in options.only.split(",")]:
        if game in done and done[game]["steps"] == options.steps:
            continue
        task = select(f"gen/{game[4:]}")[0]
        weights, about = train(task, budget)
        save_network(options.out / "trained", f"{game}.0", weights, {"task": task.id, **about})
        values = task.score(weights, task.calibration_episodes(generated.CALIBRATION), workers=1).values
        row = {"game": game, "steps": options.steps, "mean": round(float(np.mean(values)), 3),
               "seconds": about["seconds"], "steps_per_second": round(about["steps"] / about["seconds"])}  # fmt: skip
        with results.open("a") as file:
            file.write(json.dumps(row) + "\n")
        done[game] = row
        print(json.dumps(row), flush=True)
    calibrated = {}
    for path in options.calibration:
        for line in path.read_text().splitlines():
            row = json.loads(line)
            calibrated[row["game"]] = row["trained"]["mean"]
    suite7 = generated_calibration()
    print(f"| game | 1M (suite 7) | calibration | {options.steps / 1e6:g}M | {options.steps / 1e6:g}M / calibration |")
    print("| --- | --- | --- | --- | --- |")
    for game in chosen:
        first, now, long = suite7[game]["trained"]["mean"], calibrated.get(game), done.get(game, {}).get("mean")
        ratio = f"{long / now:.2f}" if long is not None and now else "-"
        now, long = "-" if now is None else now, "-" if long is None else long
        print(f"| {game} | {first:.2f} | {now} | {long} | {ratio} |")


if __name__ == "__main__":
    main()
