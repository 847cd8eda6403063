"""Probe each calibrated bound past the width where its doubling stopped (issue 48): a beam's mean is not monotone
in its width, so one doubling that adds less than `bound.GAIN` can be a plateau before a rise. For every game whose
line was searched before `bound.PROBES` joined the budget rule (settings BEFORE_PROBES), the first `bound.SAMPLE`
calibration episodes (the ones the doubling was judged on) are searched again at each of PROBES times the calibrated
width, and the best mean found is set beside the calibrated width's mean on the same episodes. A gain above
`bound.GAIN` says the game's bound was a low estimate (docs/validity.md shows the probes).

Today's rule (`bound.calibrate`) takes the probes into the doubling, so a line whose probes gain little is what
today's rule gives (the same width, the same plays): `--adopt` appends it again under today's settings, its probes
in its ladder, so that only the games whose probes gained are searched again (`calibrate_bound.py`).

    python benchmarks/bound_probe.py [--games synth] [--workers 2]   # one JSON line per game, resumable
    python benchmarks/bound_probe.py --report
    python benchmarks/bound_probe.py --adopt [--results FILE]

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

PROBES, MAX_PROBE_WIDTH = bound.PROBES, bound.MAX_WIDTH
PROBED = RESULTS.parent / "bound_probe.jsonl"
BEFORE_PROBES = {  # the settings of the lines searched before the probes joined the budget rule
    **{key: value for key, value in bound.settings().items() if key != "probes"},
    "max_width": 1024,
}


def before_probes(path: Path) -> dict[str, dict]:
    """The last line of each game in `path` searched under BEFORE_PROBES, by task id."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
    return {row["task"]: row for row in rows if row["settings"] == BEFORE_PROBES}


def adopted(row: dict, probed: dict) -> dict | None:
    """`row` under today's settings where today's rule gives it unchanged: it converged and no probe gained GAIN."""
    if not row["converged"] or len(probed["probes"]) < len(PROBES) or probed["gain"] >= bound.GAIN:
        return None
    rungs = [{key: probe[key] for key in ("width", "mean", "cpu_seconds")} for probe in probed["probes"]]
    cost = sum(rung["cpu_seconds"] for rung in rungs)
    return {
        **row,
        "settings": bound.settings(),
        "ladder": row["ladder"] + rungs,
        "cpu_seconds": round(row["cpu_seconds"] + cost, 1),
        "adopted": "benchmarks/bound_probe.py: searched before the probes joined the rule, which its probes pass",
    }


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
        "gain": (best - calibrated["mean"]) / max(abs(calibrated["mean"]), 1e-9),  # as `bound.calibrate` judges it
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
    parser.add_argument("--adopt", action="store_true", help="append the lines today's rule keeps unchanged")
    args = parser.parse_args()
    rows = before_probes(args.results)
    lines = [json.loads(line) for line in PROBED.read_text().splitlines() if line.strip()] if PROBED.is_file() else []
    probed = {(one["task"], one["source_sha256"], one["width"]): one for one in lines}
    keys = {task_id: (task_id, row["source_sha256"], row["width"]) for task_id, row in rows.items()}
    current = {task_id: probed[key] for task_id, key in keys.items() if key in probed}
    if args.report:
        report(current)
        return
    if args.adopt:
        today = latest(args.results)
        kept = [adopted(rows[task_id], one) for task_id, one in current.items() if task_id not in today]
        with args.results.open("a") as file:
            file.writelines(json.dumps(row) + "\n" for row in kept if row is not None)
        print(f"{sum(row is not None for row in kept)} of {len(kept)} probed lines adopted under today's settings")
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
