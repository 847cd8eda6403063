"""Reading `wsp run` directories for reports: one entry per (run, task), with a 95% confidence interval.

The layout is the harness's (src/wspbench/harness/runs.py, docs/harness.md): `DIR/manifest.json`
(model, protocol, episodes, ...) and one record per finished task in `DIR/tasks/<source>__<game>.json`
(`*.partial.json`, tasks in progress, are skipped). Fields read from a record: task, status, family,
best_round, rounds[].{answer_source, parse_error, reply.{content, reasoning, usage}}, test, test_score,
usage. Anything else missing is reported as unknown, never as an error.

Confidence intervals (95%, normal approximation over episodes):
- MinAtar: on the mean return, then normalised like the score (clip to [0, cap], divide by cap). The
  per-episode returns come from `test.returns` when a record has them, else the graded answer is graded
  again on the same episodes (deterministic: the same seeds give the same score, which is checked).
- SUPERBEAM: the score is the fraction of held-out levels won; Wilson's interval for a proportion.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

Z95 = 1.959963984540054


@dataclass
class Entry:
    """One task of one run, as a report shows it."""

    run: str                     # the run directory's name
    model: str
    protocol: str
    task: str
    family: str
    status: str                  # "ok", or "error" (the endpoint never answered)
    score: float | None          # normalised held-out score (None when the task failed)
    parse_failure: bool          # the graded reply held no usable answer (scored 0, counted apart)
    error: str | None
    episodes: int | None
    ci: tuple[float, float] | None = None
    answer: str | None = None    # the graded answer text, when usable
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    replay: str | None = None    # relative path of the replay GIF, once written
    notes: list[str] = field(default_factory=list)
    test: dict = field(default_factory=dict, repr=False)  # the record's held-out result

    @property
    def label(self) -> str:
        return f"{self.model} ({self.protocol})"


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """(mean, low, high) of a 95% normal-approximation interval; zero width for a single value."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def wilson(successes: int, n: int) -> tuple[float, float]:
    """Wilson's 95% interval for a proportion."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / (1 + Z95 ** 2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def graded_answer(record: dict) -> str | None:
    """The reply text that was graded on the held-out seeds (None when no reply held a usable answer)."""
    best = record.get("best_round")
    rounds = record.get("rounds") or []
    if not isinstance(best, int) or not 1 <= best <= len(rounds):
        return None
    entry = rounds[best - 1]
    reply = entry.get("reply") or {}
    text = reply.get("reasoning") if entry.get("answer_source") == "reasoning" else reply.get("content")
    return text if isinstance(text, str) else None


def _usage(record: dict) -> tuple[int | None, int | None, float | None]:
    usage = record.get("usage") or {}
    cost = usage.get("cost")
    if cost is None:  # some routers report cost per reply only
        costs = [((r.get("reply") or {}).get("usage") or {}).get("cost") for r in record.get("rounds") or []]
        known = [c for c in costs if isinstance(c, (int, float))]
        cost = sum(known) if known else None
    return usage.get("prompt_tokens"), usage.get("completion_tokens"), cost


def entry_from_record(run: str, manifest: dict, record: dict) -> Entry:
    test = record.get("test") or {}
    ok = record.get("status") == "ok"
    error = record.get("error") or test.get("error")
    parse_failure = ok and (test.get("parse_success") == 0.0 or graded_answer(record) is None or bool(test.get("error")))
    episodes = test.get("episodes") if record.get("family", "minatar") == "minatar" else test.get("levels")
    prompt_tokens, completion_tokens, cost = _usage(record)
    score = record.get("test_score")
    return Entry(run=run, model=str(record.get("model") or manifest.get("model") or "?"),
                 protocol=str(record.get("protocol") or manifest.get("protocol") or "?"),
                 task=str(record.get("task")), family=str(record.get("family") or "minatar"),
                 status=str(record.get("status")), score=float(score) if ok and score is not None else None,
                 parse_failure=bool(parse_failure), error=str(error) if error else None,
                 episodes=episodes if isinstance(episodes, int) else None,
                 answer=None if parse_failure else graded_answer(record),
                 prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost=cost, test=test)


def load_run(path: Path) -> list[Entry]:
    """Every finished task record of one run directory, in the manifest's task order."""
    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{path} is not a run directory (no manifest.json)")
    manifest = json.loads(manifest_path.read_text())
    records = {}
    for file in sorted((path / "tasks").glob("*.json")):
        if file.name.endswith(".partial.json"):
            continue
        record = json.loads(file.read_text())
        records[record.get("task")] = record
    order = [t for t in manifest.get("tasks", []) if t in records] + sorted(set(records) - set(manifest.get("tasks", [])))
    return [entry_from_record(path.name, manifest, records[t]) for t in order]


def add_confidence(entry: Entry, regrade: bool = True, workers: int | None = None) -> None:
    """Fill `entry.ci` (and notes) from the record's per-episode results, or by grading again."""
    test = entry.test
    if entry.score is None:
        return
    if entry.parse_failure:
        entry.ci = (0.0, 0.0)
        return
    if entry.family == "superbeam":
        detail = test.get("detail") or []
        if detail:
            entry.ci = wilson(sum(bool(d.get("won")) for d in detail), len(detail))
        return
    from wspbench.export.catalog import task_info
    try:
        task = task_info(entry.task, entry.episodes or 1).minatar_task
    except ValueError as error:  # a game that is no longer installed
        entry.notes.append(f"no interval: {error}")
        return
    returns = test.get("returns")
    if returns is None and regrade and entry.answer is not None and entry.episodes:
        from wspbench.grading import grade_answer_with_episodes
        result, run = grade_answer_with_episodes(task, entry.answer, entry.episodes, workers=workers)
        if run is None:
            entry.notes.append(f"grading again failed: {result.get('error')}")
            return
        returns = list(run.returns)
        if abs(result["normalized_score"] - entry.score) > 1e-12:
            entry.notes.append(f"graded again: {result['normalized_score']:.6f}, recorded {entry.score:.6f}")
    if returns:
        _, low, high = mean_ci([float(r) for r in returns])
        entry.ci = (task.normalize(low), task.normalize(high))


def load_runs(paths: list[Path], regrade: bool = True, workers: int | None = None) -> list[Entry]:
    """Entries of every run directory, with confidence intervals."""
    entries = []
    for path in paths:
        for entry in load_run(path):
            add_confidence(entry, regrade, workers)
            entries.append(entry)
    return entries
