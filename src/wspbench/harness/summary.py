"""The summary table of a run: one row per task, and the mean held-out score. Kept apart from the
display so that `summary.md`, the CLI and a future `wsp runs show/compare` read the same rows."""

from __future__ import annotations

COLUMNS = ("task", "status", "test_score", "train_score", "best_round", "rounds", "parse_errors",
           "prompt_tokens", "completion_tokens", "model_s", "total_s", "error")


def summary_rows(records: list[dict], task_ids: list[str]) -> list[dict]:
    """A row per task id, in order; tasks without a record yet are "pending"."""
    by_id = {r["task"]: r for r in records}
    rows = []
    for task_id in task_ids:
        record = by_id.get(task_id)
        if record is None:
            rows.append({**{c: None for c in COLUMNS}, "task": task_id, "status": "pending"})
            continue
        usage = record.get("usage") or {}
        rows.append({
            "task": task_id, "status": record["status"], "test_score": record.get("test_score"),
            "train_score": record.get("train_score"), "best_round": record.get("best_round"),
            "rounds": len(record["rounds"]),
            "parse_errors": sum(1 for e in record["rounds"] if e["parse_error"]),
            "prompt_tokens": usage.get("prompt_tokens"), "completion_tokens": usage.get("completion_tokens"),
            "model_s": record["timings"]["model_s"], "total_s": record["timings"]["total_s"],
            "error": record.get("error") or (record.get("test") or {}).get("error"),
        })
    return rows


def mean_test_score(rows: list[dict]) -> float | None:
    """Mean held-out score over the tasks that finished ("ok"); a reply that failed to parse counts as 0."""
    scores = [r["test_score"] for r in rows if r["status"] == "ok"]
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


def summary_markdown(manifest: dict, rows: list[dict]) -> str:
    mean = mean_test_score(rows)
    ok = sum(r["status"] == "ok" for r in rows)
    lines = [f"# {manifest['model']} · {manifest['protocol']}", "",
             (f"Mean held-out score: {'-' if mean is None else f'{mean:.4f}'} over {ok} of {len(rows)} tasks "
              f"(prompt versions {manifest['prompt_versions']})."), "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(c, r[c]) for c in COLUMNS) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def leaderboard_rows(runs: list[tuple[dict, list[dict]]]) -> list[dict]:
    """One row per run (its manifest and summary rows), best mean held-out score first: what a future
    `wsp runs compare DIR...` prints. Runs are only comparable with equal prompt versions and episodes."""
    rows = [{"model": manifest["model"], "protocol": manifest["protocol"], "rounds": manifest["rounds"],
             "episodes": manifest["episodes"], "prompt_versions": manifest["prompt_versions"],
             "tasks_ok": sum(r["status"] == "ok" for r in task_rows), "tasks": len(task_rows),
             "mean_test_score": mean_test_score(task_rows)} for manifest, task_rows in runs]
    return sorted(rows, key=lambda r: -1.0 if r["mean_test_score"] is None else r["mean_test_score"], reverse=True)
