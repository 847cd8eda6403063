"""Run directories for reports: one `Entry` per (run, task), a thin layer over the harness's one record
reader (`wspbench/harness/runs.py` `RunDir.read`, types in `wspbench/harness/record.py`).

API (what `report.py` uses):
    load_run(path, notice=None) -> list[Entry]
        Every finished task record of the run directory, in its manifest's task order (a record that cannot be
        used is skipped and `notice`d). Intervals come from
        the stored held-out Score, never from grading again. Raises RunError (a ValueError) naming the file
        for a folder that is not a run, a record that cannot be read, or a run written by another wspbench version
        (schema 1 runs: "written by an older wspbench ..."); the files are left as they are.
    Entry fields: run, model, protocol, task, family, status ("ok" or "error"), score (normalised held-out
        score, None when the task failed), unclipped (its `Score.unclipped`, raw / cap, None alike), ci ((low,
        high) from Score.interval(), None when failed), parse_failure, error, episodes (count of held-out
        episodes), answer (the graded reply text), prompt_tokens, completion_tokens, cost, replay, notes, suite
        (the run's suite dict), record (the TaskRecord), test (its held-out Score or None); `label`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wspbench.harness.record import Manifest, TaskRecord
from wspbench.tasks.spec import Score, family_of

__all__ = ["Entry", "RunError", "entry_from_record", "load_run"]


class RunError(ValueError):
    """A run directory that cannot be read; the message names the file."""


@dataclass
class Entry:
    """One task of one run, as a report shows it."""

    run: str  # the run directory's name
    model: str
    protocol: str
    task: str
    family: str
    status: (
        str  # "ok", "error" (the endpoint never answered, or the task broke) or "corrupt" (its file cannot be read: 0)
    )
    score: float | None  # normalised held-out score (None when the task failed)
    unclipped: float | None  # raw / cap, not clipped (`Score.unclipped`; None when the task failed)
    parse_failure: bool  # the graded reply held no usable answer (scored 0, counted apart)
    error: str | None
    episodes: int | None  # held-out episodes (levels) played
    ci: tuple[float, float] | None = None
    answer: str | None = None  # the graded answer text, when usable
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    replay: str | None = None  # relative path of the replay GIF, once written
    notes: list[str] = field(default_factory=list)
    suite: dict = field(default_factory=dict, repr=False)
    record: TaskRecord | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        return f"{self.model} ({self.protocol})"

    @property
    def test(self) -> Score | None:
        return None if self.record is None else self.record.test


def _cost(record: TaskRecord) -> float | None:
    cost = (record.usage or {}).get("cost")
    if cost is None:  # some routers report cost per reply only
        known = [(r.reply.usage or {}).get("cost") for r in record.rounds]
        known = [c for c in known if isinstance(c, (int, float)) and not isinstance(c, bool)]
        cost = sum(known) if known else None
    return cost


def entry_from_record(run: str, manifest: Manifest, record: TaskRecord) -> Entry:
    ok, test = record.counted, record.test  # a record that cannot be read ("corrupt") counts, as 0
    graded = record.graded_round
    parse_failure = ok and (graded is None or test is None or test.error is not None)
    usage = record.usage or {}
    return Entry(
        run=run,
        model=record.model or manifest.config.model,
        protocol=record.protocol or manifest.config.protocol.name,
        task=record.task,
        family=family_of(record.task),  # not `record.family`: a record of before issue 52 names the module
        status=record.status,
        score=record.test_score if ok else None,
        unclipped=record.test_unclipped if ok else None,
        parse_failure=parse_failure,
        error=record.error or (test.error if test else None),
        episodes=len(test.episodes) if test is not None and test.episodes else None,
        ci=test.interval() if ok and test is not None else None,
        answer=None if parse_failure or graded is None else graded.answer,
        prompt_tokens=usage.get("prompt_tokens"),
        completion_tokens=usage.get("completion_tokens"),
        cost=_cost(record),
        suite=manifest.suite,
        record=record,
    )


def load_run(path: Path, notice: Callable[[str], None] | None = None) -> list[Entry]:
    """Every finished task record of one run directory, in the manifest's task order; a record that cannot be
    used counts as "corrupt" (score 0), and `notice` is told of it (one line naming the file)."""
    from wspbench.harness.runs import RunDir, RunDirError

    run_dir = RunDir(path)
    try:
        manifest, records = run_dir.read()
    except (RunDirError, OSError) as error:
        raise RunError(str(error)) from None
    for note in run_dir.notes:
        if notice is not None:
            notice(note)
    return [entry_from_record(Path(path).name, manifest, record) for record in records]
