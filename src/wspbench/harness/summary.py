"""The tables of runs, read from their records: one row per task (`summary.md`, `wsp run`, `wsp runs show`)
and the comparison of runs (`wsp runs compare`).

Comparing runs never averages over different task sets: each run's mean is taken over the tasks that
finished ("ok") in every compared run, and the rows say which tasks were left out. Runs of different suites
(another prompt, game or episode set) are flagged, not refused: the suite column and `same_suite` say so.
"""

from __future__ import annotations

from wspbench.harness.record import Manifest, TaskRecord

COLUMNS = (
    "task",
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


def summary_rows(records: list[TaskRecord], task_ids: list[str]) -> list[dict]:
    """A row per task id, in order; tasks without a record yet are "pending"."""
    by_id = {r.task: r for r in records}
    rows = []
    for task_id in task_ids:
        record = by_id.get(task_id)
        if record is None:
            rows.append({**{c: None for c in COLUMNS}, "task": task_id, "status": "pending"})
            continue
        usage = record.usage or {}
        rows.append(
            {
                "task": task_id,
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


def mean_test_score(rows: list[dict], tasks: set[str] | None = None) -> float | None:
    """Mean held-out score over the tasks that finished ("ok"), or over `tasks` of them; a reply that failed
    to parse counts as 0."""
    scores = [r["test_score"] for r in rows if r["status"] == "ok" and (tasks is None or r["task"] in tasks)]
    return sum(scores) / len(scores) if scores else None


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


def summary_markdown(manifest: Manifest, rows: list[dict]) -> str:
    mean = mean_test_score(rows)
    ok = sum(r["status"] == "ok" for r in rows)
    config = manifest.config
    lines = [
        f"# {config.model} · {config.protocol}",
        "",
        (
            f"Mean held-out score: {'-' if mean is None else f'{mean:.4f}'} over {ok} of {len(rows)} tasks "
            f"(suite {suite_label(manifest.suite)})."
        ),
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    lines += ["| " + " | ".join(cell(c, r[c]) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def comparison(runs: list[tuple[str, Manifest, list[dict]]]) -> dict:
    """The comparison of runs (each: a name, its manifest and summary rows), best mean first: the means are
    over the tasks finished in every run; `same_suite` is False for a run whose suite differs from the first's."""
    common: set[str] | None = None
    for _, _, rows in runs:
        done = {r["task"] for r in rows if r["status"] == "ok"}
        common = done if common is None else common & done
    common = common or set()
    listed = sorted({r["task"] for _, _, rows in runs for r in rows})
    first_suite = runs[0][1].suite if runs else {}
    table = []
    for name, manifest, rows in runs:
        config = manifest.config
        table.append(
            {
                "run": name,
                "model": config.model,
                "protocol": config.protocol,
                "rounds": config.rounds,
                "episodes": config.episodes,
                "suite": manifest.suite,
                "same_suite": manifest.suite == first_suite,
                "tasks_ok": sum(r["status"] == "ok" for r in rows),
                "tasks": len(rows),
                "left_out": sorted(r["task"] for r in rows if r["task"] not in common),
                "mean_test_score": mean_test_score(rows, common),
            }
        )
    table.sort(key=lambda r: -1.0 if r["mean_test_score"] is None else r["mean_test_score"], reverse=True)
    return {
        "tasks": sorted(common),
        "tasks_left_out": [t for t in listed if t not in common],
        "same_suite": all(r["same_suite"] for r in table),
        "runs": table,
    }
