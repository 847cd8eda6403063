"""The live view of `wsp run`: an overall bar, a line per running task, a line per finished one, a line per
retry or truncated reply (a `Notice`), and the summary table at the end. Rich's Progress is thread-safe, so
worker threads update it directly."""

from __future__ import annotations

import threading
from typing import Self

from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from wspbench.harness.clients import Notice
from wspbench.harness.record import Manifest, TaskRecord
from wspbench.harness.runs import Display
from wspbench.harness.summary import audit_rows, cell, scores_text
from wspbench.words import count


class RichDisplay(Display):
    def __init__(self, console: Console, total: int, already_done: int):
        self.console = console
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=not console.is_terminal,  # a pipe gets the finished tasks' lines, not a blank bar line
        )
        self.overall = self.progress.add_task("tasks", total=total, completed=already_done)
        self.done_count, self.total = already_done, total  # each finished task's line says `k/N`: a pipe sees it too
        self.lines: dict[str, int] = {}
        self.lock = threading.Lock()

    def __enter__(self) -> Self:
        self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.stop()

    def status(self, task_id: str, text: str) -> None:
        with self.lock:
            if task_id not in self.lines:
                self.lines[task_id] = self.progress.add_task("", total=None)
            self.progress.update(self.lines[task_id], description=f"  {task_id}: {text}")
        if isinstance(text, Notice):  # kept on the console, above the live lines
            line = Text(f"  {task_id}: {text}")  # Text: an error quoted from a server is never markup
            line.stylize("yellow")
            self.progress.console.print(line)

    def done(self, task_id: str, record: TaskRecord) -> None:
        with self.lock:
            line = self.lines.pop(task_id, None)
            if line is not None:
                self.progress.remove_task(line)
            self.progress.advance(self.overall)
            self.done_count += 1
            step = f"{self.done_count}/{self.total} "
        if record.counted:  # graded ("ok", or "time limit": its budget ran out and its answer so far was graded)
            score = cell("test_score", record.test_score)
            line = Text(f"{step}done {task_id}: held-out score {score}{_remarks(record)}")
            line.stylize("green", len(step), len(step) + 4)
        else:
            line = Text(f"{step}failed {task_id}: {record.error}")  # Text: a model's words are never markup
            line.stylize("red", len(step), len(step) + 6)
        self.progress.console.print(line)


def _remarks(record: TaskRecord) -> str:
    """What the score line should not hide: a time limit, a score above the cap, truncated replies and retried
    requests."""
    retries = sum(len(r.reply.retries) for r in record.rounds if not r.reused)
    parts = [record.status] if record.status != "ok" else []
    above = record.test is not None and record.test.above_cap
    parts += [f"above the cap: unclipped {record.test.unclipped:.4f}"] if above else []
    parts += [f"{record.truncated_replies} truncated"] if record.truncated_replies else []
    parts += [f"{retries} retried"] if retries else []
    return f" ({', '.join(parts)})" if parts else ""


def summary_table(manifest: Manifest, rows: list[dict], scores: dict) -> Table:
    """The run's rows (`summary_rows`) and scores (`run_scores`), compact enough for an 80-column terminal
    (summary.md has every column; errors are listed under the table). The per-family means close the table,
    where they stay on screen after a long run."""
    listed = len({r["task"] for r in rows})
    caption = f"{scores['tasks']} of {count(listed, 'task')} finished; {scores_text(scores)}"
    truncated = sum(r.get("truncated") or 0 for r in rows)
    if truncated:
        caption += f"\n{truncated} truncated replies (finish_reason=length): " + ", ".join(
            r["task"] for r in rows if r.get("truncated")
        )
    above = [r for r in rows if (r["test_unclipped"] or 0.0) > 1.0]
    if above:
        caption += (
            f"\n{count(len(above), 'reply', 'replies')} above the cap (scored 1; unclipped, raw / cap): "
            + ", ".join(f"{r['task']} {r['test_unclipped']:.4f}" for r in above)
        )
    for row in rows:
        if row["error"]:
            caption += f"\n{row['task']}: {cell('error', row['error'])}"
    table = Table(
        title=Text(f"{manifest.config.model} · {manifest.config.protocol.name}"),
        caption=Text(caption),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
        show_edge=False,
    )
    agent = manifest.config.protocol.kernel
    headers = (
        ("task", "status", "test", "train", "rounds", "bad") + (("blocks", "passes") if agent else ()) + ("tokens", "s")
    )
    for header in headers:
        table.add_column(header, no_wrap=True, justify="left" if header in ("task", "status") else "right")
    for row in rows:
        tokens = "-" if row["prompt_tokens"] is None else f"{row['prompt_tokens']}/{row['completion_tokens']}"
        used = (cell("blocks", row["blocks"]), cell("passes", row["passes"])) if agent else ()
        table.add_row(
            row["task"] + (f" @{row['sample']}" if row["sample"] else ""),
            row["status"],
            cell("test_score", row["test_score"]),
            cell("train_score", row["train_score"]),
            cell("rounds", row["rounds"]),
            cell("parse_errors", row["parse_errors"]),
            *used,
            tokens,
            cell("total_s", row["total_s"]),
            style={"ok": None, "time limit": "yellow", "error": "red", "corrupt": "red", "pending": "dim"}.get(
                row["status"]
            ),
        )
    return table


def audit_table(records: list) -> Table:
    """An agent run's blocks, one row each (`summary.audit_rows`): turn, kind, status, seconds, passes, training
    score and the first line of what the model was told."""
    table = Table(title="Blocks", box=box.SIMPLE_HEAD, collapse_padding=True, pad_edge=False, show_edge=False)
    for header in ("task", "turn", "block", "status", "s", "pass", "train", "output"):
        table.add_column(header, no_wrap=header != "output", justify="right" if header in ("turn", "s") else "left")
    for row in audit_rows(records):
        table.add_row(
            row["task"],
            str(row["turn"]),
            row["kind"],
            row["status"],
            f"{row['seconds']:.2f}",
            str(row["passes"] or ""),
            cell("train_score", row["train_score"]) if row["train_score"] is not None else "",
            Text(row["output"]),
        )
    return table
