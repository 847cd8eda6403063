"""superbeam/hard: find the kept hard levels, write them with their certificates, and say what it cost.

    python benchmarks/superbeam_hard_levels.py

Scans the hard generator's seeds (`superbeam.levels.generate_hard`) from HARD_TRAIN_FIRST for as many training
levels as `superbeam` has, and from HARD_TEST_FIRST for HARD_TEST_COUNT held-out levels, keeping a level exactly
when `hard_certificate` does (no action held throughout wins it, and the search finds a win). It prints how many
candidates each rule rejected and the CPU seconds (time.process_time) per candidate, checks the set's rules (held
actions win none of the kept levels on the emulator, the reference network at most half of them), times a secret
draw of HARD_TEST_COUNT levels, and writes src/wspbench/tasks/HARD_FILE.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from superbeam.levels import generate_hard
from wspbench.baselines.measured import constant_weights
from wspbench.tasks import get_task
from wspbench.tasks.held_out import new_secret, task_key
from wspbench.tasks.superbeam import (
    HARD_FILE,
    HARD_NODE_LIMIT,
    HARD_TEST_COUNT,
    HARD_TEST_FIRST,
    HARD_TRAIN_FIRST,
    TRAIN_LEVELS,
    hard_certificate,
    hard_levels,
    held_action_wins,
    reference_weights,
)

OUT = Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / HARD_FILE
MOST_REFERENCE_WINS = 0.5  # the reference network wins at most this share of the held-out levels
MOST_HELD_WINS = 0.1  # and any one held action at most this share (the keep rule makes it 0)


def kept_levels(first: int, count: int) -> tuple[dict[int, str], dict[str, int], dict[str, float]]:
    """The first `count` kept seeds from `first` with their certificates, the rejections per rule, and the CPU
    seconds spent on kept and on rejected candidates."""
    kept: dict[int, str] = {}
    rejected = {"a held action wins": 0, "no win found": 0}
    seconds = {"kept": 0.0, "rejected": 0.0}
    seed = first
    while len(kept) < count:
        started = time.process_time()
        actions = hard_certificate(seed)
        if actions is None:
            rejected["a held action wins" if held_action_wins(generate_hard(seed)) else "no win found"] += 1
        else:
            kept[seed] = actions
        seconds["kept" if actions else "rejected"] += time.process_time() - started
        seed += 1
    return kept, rejected, seconds


def main() -> None:
    parts = {}
    for part, first, count in (
        ("training", HARD_TRAIN_FIRST, len(TRAIN_LEVELS)),
        ("test", HARD_TEST_FIRST, HARD_TEST_COUNT),
    ):
        kept, rejected, seconds = kept_levels(first, count)
        parts[part] = kept
        candidates = len(kept) + sum(rejected.values())
        print(
            f"{part}: kept {len(kept)} of {candidates} candidates (seeds {first}..{first + candidates - 1}); rejected: "
            + ", ".join(f"{why} {n}" for why, n in rejected.items())
            + f"; CPU {sum(seconds.values()):.1f} s: {seconds['kept'] / len(kept):.4f} s per kept level, "
            f"{seconds['rejected'] / max(1, sum(rejected.values())):.4f} s per rejected one "
            f"(search budget {HARD_NODE_LIMIT:,} steps)"
        )
    about = "superbeam/hard's levels: seed -> the actions that win it, one digit each (superbeam_hard_levels.py)"
    OUT.write_text(
        json.dumps(
            {"about": about, **{part: {str(s): a for s, a in kept.items()} for part, kept in parts.items()}}, indent=0
        )
        + "\n"
    )
    hard_levels.cache_clear()

    task = get_task("superbeam/hard")
    levels = task.scoring_episodes()
    reference = task.score(reference_weights(), levels).metadata["won"]
    held = [
        task.score(constant_weights(task.network, a), levels).metadata["won"] for a in range(task.network.sizes[-1])
    ]
    print(f"on the {len(levels)} held-out levels (emulator): reference wins {reference}, held actions win {held}")
    assert reference <= MOST_REFERENCE_WINS * len(levels) and max(held) <= MOST_HELD_WINS * len(levels)

    started = time.process_time()
    drawn = task.held_out_episodes(HARD_TEST_COUNT, task_key(new_secret(), task.id))
    print(f"a secret draw of {len(drawn)} levels, each certified: {time.process_time() - started:.1f} s CPU")


if __name__ == "__main__":
    main()
