"""How much the generated family narrows the suite mean's interval (issue 28): from one run of a model over the
writing tasks, the mean normalised score and its 95% interval over the hand-written writing tasks alone (original/*,
synth/*, superbeam*) and with the generated games (gen/*) added.

    wsp run --model trained --tasks 'original/*,synth/*,superbeam*,gen/*' --out runs/trained-writing
    python benchmarks/suite_interval.py runs/trained-writing [MORE_RUNS ...]

(Several run directories of one model and suite version are read as one: the tasks of each.)

The model of the issue is "reference-like": the trained networks (`--model trained`: each task's PPO network; a
generated game's is its reference). Two means are shown, each with its 95% bootstrap interval over tasks and
episodes (`statistics.aggregate_interval`, the intervals of `wsp runs show`):
  - the task mean: every writing task counts once (the issue's measure: most of its width is between tasks, which
    only more tasks narrow);
  - the family-weighted mean (each family counts once, as `wsp runs show` ranks models): adding a family narrows it
    less, since the hand-written families keep their weight.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from wspbench.harness.runs import RunDir
from wspbench.harness.summary import family_scores, replies_of
from wspbench.statistics import aggregate_interval
from wspbench.tasks.spec import family_of

HAND_WRITTEN = ("original", "synth", "superbeam")


def interval(replies: dict, groups: bool) -> tuple[int, float, float, float]:
    """The task mean (or with `groups` the family-weighted mean, as `wsp runs show` gives it) and its 95% interval."""
    if groups:
        scores = family_scores(replies)
        return scores["tasks"], scores["mean"], *scores["ci95"]
    tasks = sorted(replies)
    scores = [sum(value for value, _ in replies[task]) / len(replies[task]) for task in tasks]
    low, high = aggregate_interval([[sample for _, sample in replies[task]] for task in tasks])
    return len(tasks), sum(scores) / len(scores), low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="run directories of `wsp run` over the writing tasks")
    options = parser.parse_args()
    read = [RunDir(run).read() for run in options.runs]
    manifests = {(manifest.config.model, manifest.suite.get("version")) for manifest, _ in read}
    if len(manifests) > 1:
        raise SystemExit(f"the runs are of different models or suites: {sorted(manifests)}")
    manifest = read[0][0]
    replies = replies_of([record for _, records in read for record in records])
    before = {task: value for task, value in replies.items() if family_of(task) in HAND_WRITTEN}
    model, version = manifest.config.model, manifest.suite.get("version")
    print(f"runs {', '.join(map(str, options.runs))} (model {model}, suite {version})")
    print("| writing tasks | mean | families | tasks | value | 95% interval | half-width |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: |")
    for label, chosen in (("hand-written writing tasks", before), ("with gen/*", replies)):
        for groups in (False, True):
            count, mean, low, high = interval(chosen, groups)
            kinds = len({family_of(task) for task in chosen})
            print(
                f"| {label} | {'family-weighted' if groups else 'task mean'} | {kinds} | {count} | {mean:.4f} | "
                f"[{low:.4f}, {high:.4f}] | +-{(high - low) / 2:.4f} |"
            )


if __name__ == "__main__":
    main()
