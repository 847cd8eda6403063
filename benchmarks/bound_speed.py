"""The hindsight bound's search against an earlier commit's, on the same episodes in one run: identical plays, and
the ratio of their CPU seconds (issue 48's calibration is almost all search).

The earlier search is `src/wspbench/baselines/bound.py` as `git show REV:...` gives it, loaded beside today's
(everything else it imports, the compiled games included, is today's). Each game's episodes are searched by both,
in turn, and every play must match: the same return, length and actions.

    python benchmarks/bound_speed.py [--rev af4b6d3] [--games synth/ferry,gen/00100] [--episodes 2] [--width 512]

CPU seconds (`Found.cpu_seconds`), so the ratio holds on a busy machine; one core.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

from wspbench.baselines import bound
from wspbench.tasks import get_task

ROOT = Path(__file__).resolve().parent.parent


def earlier(rev: str):
    """The bound module of commit `rev`, loaded as its own module."""
    text = subprocess.run(
        ["git", "show", f"{rev}:src/wspbench/baselines/bound.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="wsp-bound-"))
    path = folder / f"bound_{rev}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="af4b6d3")
    parser.add_argument("--games", default="synth/ferry,synth/river_hop,gen/00100,gen/00177,original/breakout")
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--width", type=int, default=512)
    args = parser.parse_args()
    old = earlier(args.rev)
    total_old = total_new = 0.0
    for game in args.games.split(","):
        task = get_task(game)
        episodes = list(task.calibration_episodes(args.episodes))
        old.search(task, episodes[0], 4), bound.search(task, episodes[0], 4)  # compiled before the clock starts
        seconds_old = seconds_new = 0.0
        for episode in episodes:
            before, now = old.search(task, episode, args.width), bound.search(task, episode, args.width)
            if (before.value, before.length, before.actions) != (now.value, now.length, now.actions):
                raise SystemExit(f"{game} episode {episode}: the plays differ ({before.value} and {now.value})")
            seconds_old += before.cpu_seconds
            seconds_new += now.cpu_seconds
        total_old += seconds_old
        total_new += seconds_new
        line(game, args.rev, seconds_old, seconds_new)
    line("all", args.rev, total_old, total_new)


def line(name: str, rev: str, before: float, now: float) -> None:
    print(f"{name:20s} {rev} {before:7.2f} s  now {now:7.2f} s  ratio {now / before:.3f}", flush=True)


if __name__ == "__main__":
    main()
