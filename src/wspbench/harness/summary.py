"""The tables of runs, read from their records: one row per task and reply (`summary.md`, `wsp run`,
`wsp runs show`), a run's scores with their intervals, and the comparison of runs (`wsp runs compare`).

A run with `--samples K` has K independent replies per task. A task's score is then the mean over its
replies that finished, and `best_of_k` the mean over tasks of the best reply's score; both have intervals.

Comparing runs never averages over different task sets: each run's mean is taken over the tasks that
finished ("ok") in every compared run (`shared_tasks`), the rows say which tasks were left out, and each pair
of runs gets its paired difference with a 95% interval. Runs of different suites
(another prompt, game or episode set) are flagged, not refused: the suite column and `same_suite` say so.
"""

from __future__ import annotations

from wspbench.harness.record import Manifest, TaskRecord
from wspbench.statistics import Sample, aggregate_interval, difference_interval

COLUMNS = (
    "task",
    "sample",
    "status",
    "test_score",
    "train_score",
    "best_round",
    "rounds",
    "parse_errors",
    "truncated",
    "prompt_tokens",
    "completion_tokens",
    "model_s",
    "total_s",
    "error",
)


def summary_rows(records: list[TaskRecord], manifest: Manifest) -> list[dict]:
    """A row per task of the manifest and reply (`sample`, 0 to K - 1), in order; those without a record yet
    are "pending"."""
    by_key = {(r.task, r.sample): r for r in records}
    rows = []
    for task_id in manifest.tasks:
        for sample in range(manifest.config.samples):
            record = by_key.get((task_id, sample))
            if record is None:
                rows.append({**{c: None for c in COLUMNS}, "task": task_id, "sample": sample, "status": "pending"})
                continue
            usage = record.usage or {}
            rows.append(
                {
                    "task": task_id,
                    "sample": sample,
                    "status": record.status,
                    "test_score": record.test_score,
                    "train_score": record.train_score,
                    "best_round": record.best_round,
                    "rounds": len(record.rounds),
                    "parse_errors": len(record.parse_errors),
                    "truncated": record.truncated_replies,
                    "prompt_tokens": usage.get("prompt_tokens"),
                    "completion_tokens": usage.get("completion_tokens"),
                    "model_s": record.timings.get("model_s"),
                    "total_s": record.timings.get("total_s"),
                    "error": record.error or (record.test.error if record.test else None),
                }
            )
    return rows


def _task_scores(rows: list[dict], tasks: set[str] | None = None) -> dict[str, list[float]]:
    """The held-out scores of each task's finished replies (a reply that failed to parse counts as 0)."""
    scores: dict[str, list[float]] = {}
    for r in rows:
        if r["status"] == "ok" and (tasks is None or r["task"] in tasks):
            scores.setdefault(r["task"], []).append(r["test_score"])
    return scores


def mean_test_score(rows: list[dict], tasks: set[str] | None = None) -> float | None:
    """Mean held-out score over the tasks with a finished reply ("ok"), or over `tasks` of them; a task's
    score is the mean over its finished replies."""
    scores = _task_scores(rows, tasks)
    return sum(sum(s) / len(s) for s in scores.values()) / len(scores) if scores else None


def best_of_k_score(rows: list[dict], tasks: set[str] | None = None) -> float | None:
    """Mean over the same tasks of the best finished reply's held-out score."""
    scores = _task_scores(rows, tasks)
    return sum(max(s) for s in scores.values()) / len(scores) if scores else None


def run_scores(manifest: Manifest, records: list[TaskRecord], tasks: set[str] | None = None) -> dict:
    """A run's mean held-out score with its 95% interval over tasks, replies and episodes, and with several
    replies per task the best-of-K score and its interval (`wspbench/statistics.py`)."""
    rows = summary_rows(records, manifest)
    groups = _samples(records, sorted(_task_scores(rows, tasks)))
    scores = {
        "tasks": len(groups),
        "samples": manifest.config.samples,
        "mean_test_score": mean_test_score(rows, tasks),
        "ci95": list(aggregate_interval(groups)) if groups else None,
    }
    if manifest.config.samples > 1:
        scores["best_of_k"] = best_of_k_score(rows, tasks)
        scores["best_of_k_ci95"] = list(aggregate_interval(groups, best=True)) if groups else None
    return scores


def scores_text(scores: dict) -> str:
    """`run_scores` in one line."""

    def interval(key: str) -> str:
        return "" if scores[key] is None else f" (95% interval {scores[key][0]:.4f} to {scores[key][1]:.4f})"

    mean = scores["mean_test_score"]
    text = f"mean held-out score {'-' if mean is None else f'{mean:.4f}'}{interval('ci95')}"
    if scores["samples"] > 1:
        best = scores["best_of_k"]
        text += (
            f" over {scores['samples']} replies per task; best of {scores['samples']} "
            f"{'-' if best is None else f'{best:.4f}'}{interval('best_of_k_ci95')}"
        )
    return text


def cell(column: str, value) -> str:
    if value is None:
        return "-"
    if column in ("test_score", "train_score"):
        return f"{value:.4f}"
    if column in ("model_s", "total_s"):
        return f"{value:.1f}"
    if column == "error":
        text = str(value).replace("|", "/").replace("\n", " ")
        return text if len(text) <= 80 else text[:77] + "..."
    return str(value)


def suite_label(suite: dict) -> str:
    return f"{suite.get('name')} {suite.get('version')} {str(suite.get('digest'))[:12]}"


def summary_markdown(manifest: Manifest, rows: list[dict], scores: dict) -> str:
    config = manifest.config
    lines = [
        f"# {config.model} · {config.protocol}",
        "",
        (
            f"{scores_text(scores).capitalize()}, over {scores['tasks']} of {len(manifest.tasks)} tasks "
            f"(suite {suite_label(manifest.suite)})."
        ),
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    lines += ["| " + " | ".join(cell(c, r[c]) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def comparison(runs: list[tuple[str, Manifest, list[TaskRecord]]]) -> dict:
    """The comparison of runs (each: a name, its manifest and its records), best mean first. Everything is
    over `shared_tasks`, the tasks finished in every run: each run's mean with its 95% interval over tasks and
    episodes, and for each pair of runs the mean paired difference with its interval (`wspbench/statistics.py`).
    `same_suite` is False for a run whose suite differs from the first's."""
    rows_of = {name: summary_rows(records, manifest) for name, manifest, records in runs}
    records_of = {name: records for name, _, records in runs}
    common: set[str] | None = None
    for rows in rows_of.values():
        done = {r["task"] for r in rows if r["status"] == "ok"}
        common = done if common is None else common & done
    shared = sorted(common or set())
    samples = {name: _samples(records, shared) for name, _, records in runs}
    listed = sorted({r["task"] for rows in rows_of.values() for r in rows})
    first_suite = runs[0][1].suite if runs else {}
    table = []
    for name, manifest, _ in runs:
        config, rows = manifest.config, rows_of[name]
        row = {
            "run": name,
            "model": config.model,
            "protocol": config.protocol,
            "rounds": config.rounds,
            "episodes": config.episodes,
            "samples": config.samples,
            "suite": manifest.suite,
            "same_suite": manifest.suite == first_suite,
            "tasks_ok": len(_task_scores(rows)),
            "tasks": len(manifest.tasks),
            "left_out": sorted({r["task"] for r in rows} - set(shared)),
        }
        scores = run_scores(manifest, records_of[name], set(shared))
        row.update({key: value for key, value in scores.items() if key not in ("tasks", "samples")})
        table.append(row)
    table.sort(key=lambda r: -1.0 if r["mean_test_score"] is None else r["mean_test_score"], reverse=True)
    pairs = []
    for i, first in enumerate(table):
        for second in table[i + 1 :]:
            if not shared:
                continue
            a, b = samples[first["run"]], samples[second["run"]]
            pairs.append(
                {
                    "a": first["run"],
                    "b": second["run"],
                    "mean_difference": first["mean_test_score"] - second["mean_test_score"],
                    "ci95": list(difference_interval(list(zip(a, b, strict=True)))),
                }
            )
    return {
        "shared_tasks": shared,
        "tasks_left_out": [t for t in listed if t not in common],
        "same_suite": all(r["same_suite"] for r in table),
        "runs": table,
        "pairs": pairs,
    }


def _samples(records: list[TaskRecord], tasks: list[str]) -> list[list[Sample]]:
    """The held-out episodes of each finished reply of `tasks`, in that order (a reply that failed to parse:
    none, scored 0)."""
    replies: dict[str, list[Sample]] = {t: [] for t in tasks}
    for r in records:
        if r.task in replies and r.status == "ok":
            replies[r.task].append(r.test.sample() if r.test is not None else Sample((), 1.0))
    return [replies[t] for t in tasks]
