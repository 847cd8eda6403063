"""Probe each calibrated bound past the width where its doubling stopped (issue 48): a beam's mean is not monotone
in its width, so one doubling that adds less than `bound.GAIN` can be a plateau before a rise. For every game with
a line in `benchmarks/results/bound.jsonl`, the first `bound.SAMPLE` calibration episodes (the ones the doubling
was judged on) are searched again at each of PROBES times the calibrated width, at most MAX_PROBE_WIDTH, and the
best mean found is set beside the calibrated width's mean on the same episodes. A gain above `bound.GAIN` says the
game's bound, and a cap from it, is a low estimate there (docs/validity.md shows the probes).

    python benchmarks/bound_probe.py [--games synth] [--workers 2]   # one JSON line per game, resumable
    python benchmarks/bound_probe.py --report

Lines go to `benchmarks/results/bound_probe.jsonl`, each with the calibrated line's width and source it probed.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402 - after the thread setting
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from wspbench.baselines import bound  # noqa: E402
from wspbench.tasks import get_task, select  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_bound import RESULTS, latest  # noqa: E402 - a sibling script

PROBES = (2, 4)  # multiples of the calibrated width
MAX_PROBE_WIDTH = 4096
PROBED = RESULTS.parent / "bound_probe.jsonl"


def probe(row: dict) -> dict:
    task = get_task(row["task"])
    episodes = list(task.calibration_episodes(bound.SAMPLE))
    calibrated = row["ladder"][-1]  # the calibrated width's mean on these episodes
    found = []
    for width in sorted({min(row["width"] * factor, MAX_PROBE_WIDTH) for factor in PROBES} - {row["width"]}):
        started = time.process_time()
        mean = float(np.mean([bound.search(task, e, width).value for e in episodes]))
        found.append({"width": width, "mean": mean, "cpu_seconds": round(time.process_time() - started, 1)})
    best = max([calibrated["mean"], *(one["mean"] for one in found)])
    return {
        "task": row["task"],
        "source_sha256": row["source_sha256"],
        "width": row["width"],
        "mean": calibrated["mean"],
        "probes": found,
        "gain": best / calibrated["mean"] - 1 if calibrated["mean"] > 0 else 0.0,
    }


def report(lines: dict[str, dict]) -> None:
    above = [one for one in lines.values() if one["gain"] > bound.GAIN]
    for one in sorted(lines.values(), key=lambda one: -one["gain"]):
        probes = ", ".join(f"{p['mean']:.4g} at {p['width']:,}" for p in one["probes"]) or "none (at the widest)"
        print(f"{one['task']:22s} {one['mean']:9.4g} at {one['width']:5,}; {probes}; gain {one['gain']:+.3f}")
    cpu = sum(p["cpu_seconds"] for one in lines.values() for p in one["probes"]) / 3600
    print(f"{len(above)} of {len(lines)} games gain more than {bound.GAIN:.0%} past their width; {cpu:.2f} core-hours")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="synth,gen,original")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--results", type=Path, default=RESULTS, help="the calibration's lines")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    rows = latest(args.results)
    lines = [json.loads(line) for line in PROBED.read_text().splitlines() if line.strip()] if PROBED.is_file() else []
    probed = {(one["task"], one["source_sha256"], one["width"]): one for one in lines}
    keys = {task_id: (task_id, row["source_sha256"], row["width"]) for task_id, row in rows.items()}
    current = {task_id: probed[key] for task_id, key in keys.items() if key in probed}
    if args.report:
        report(current)
        return
    wanted = {task.id for task in select(args.games)}
    todo = [rows[task_id] for task_id, key in keys.items() if task_id in wanted and key not in probed]
    print(f"{len(todo)} games to probe", flush=True)
    with ProcessPoolExecutor(args.workers) as pool:
        for future in as_completed([pool.submit(probe, row) for row in todo]):
            one = future.result()
            with PROBED.open("a") as file:
                file.write(json.dumps(one) + "\n")
            print(f"{one['task']}: {one['mean']:.4g} at {one['width']:,}, gain {one['gain']:+.3f}", flush=True)


if __name__ == "__main__":
    main()
