"""How much headroom a generated game's cap leaves above what PPO finds with much more compute (issue 40).

A generated game's cap is CAP_FACTOR x the mean of its calibration network (`wspbench/baselines/generated.py`).
Here a sample of games is trained for `--steps` (20M by default) with the calibration's PPO settings otherwise,
and each network's mean return on the calibration episodes is set against the cap: a careful user who trains
that long should still score below 0.9 on most games, or a score near 1 says little about programming.

    python benchmarks/generated_headroom.py [--steps 20000000] [--out DIR] [--calibration FILE ...] [--only GAMES]

The sample (SAMPLE) is every 10th game of suite 7's family, so it spreads over the seeds; `--only` trains a part
of it, so that several processes can share the work.
Each trained network goes to `<out>/trained/`, each result to `<out>/headroom.jsonl` (a game already there is
skipped: the run resumes). `--calibration` names calibration results (benchmarks/calibrate_generated.py's
results.jsonl files) whose trained means are shown beside. Each game is written as the calibration writes it
(`generated.written`, placeholder cap), so the sample stays playable whatever the family keeps. One core per process.
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
from wspbench.evaluation import ONE_WORKER
from wspbench.games import synth  # noqa: E402
from wspbench.networks import save_network  # noqa: E402

# Every 10th game of suite 7's family of 104 (sorted by seed), drawn before its recalibration and kept fixed so
# that the sample does not follow the games the new rules keep.
SAMPLE = ("gen_00100", "gen_00112", "gen_00128", "gen_00140", "gen_00153", "gen_00165", "gen_00407", "gen_00420",
          "gen_00431", "gen_00446")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
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
    chosen = list(SAMPLE)
    for game in chosen if options.only is None else [g for g in chosen if g in options.only.split(",")]:
        if game in done and done[game]["steps"] == options.steps:
            continue
        seed = int(game.removeprefix(synth.GENERATED))
        with generated.written(seed, options.out) as (task, _):
            weights, about = train(task, budget)
            values = task.score(weights, task.calibration_episodes(generated.CALIBRATION), ONE_WORKER).values
        save_network(options.out / "trained", f"{game}.0", weights, {"task": f"gen/{seed:05d}", **about})
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
    long = f"{options.steps / 1e6:g}M"
    print(f"| game | calibration ({generated.BUDGET.steps / 1e6:g}M) | {long} | {long} / calibration |")
    print("| --- | --- | --- | --- |")
    for game in chosen:
        now, after = calibrated.get(game), done.get(game, {}).get("mean")
        ratio = f"{after / now:.2f}" if after is not None and now else "-"
        print(f"| {game} | {'-' if now is None else now} | {'-' if after is None else after} | {ratio} |")


if __name__ == "__main__":
    main()
