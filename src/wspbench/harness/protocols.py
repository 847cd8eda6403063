"""Protocols: how a model meets a task, producing the task's complete JSON record.

- one-shot: one request, one reply, graded once on the held-out seeds.
- feedback: up to R rounds. A usable reply is scored on training seeds and the model gets the results
  (per level for SUPERBEAM, per group of episodes for MinAtar); an unusable reply gets the parse error
  and another chance. A perfect training score stops early. The best reply by training score is graded
  once on the held-out seeds.

A reply whose content holds no usable answer but whose reasoning text does is graded from the reasoning
(as the reference does) and the record says so. Failures are values: a bad reply scores 0, and an
endpoint that fails after its retries (or anything unexpected) gives a record with status "error";
neither stops the other tasks of a batch.

Every reply is stored once, in its round's `reply`, and handed to `on_update` (the run directory's partial
record) before anything parses or grades it, so a paid reply survives any failure after it. The record's
`messages` name the round of each assistant message instead of repeating its text. A task run again
after a failure is given the earlier attempt's replies (`paid`): they are replayed in order instead of
being asked (and paid) for again, and their rounds say `"reused": true`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from wspbench.answers.edits import MAX_MESSAGE_CHARS
from wspbench.harness.base import HarnessTask
from wspbench.harness.clients import ModelError, Reply
from wspbench.harness.prompts import prompt_hash

PROTOCOLS = ("one-shot", "feedback")
GRADING = threading.Lock()  # grading already uses every core: one task grades at a time
RECORD_FORMAT = "wspbench.harness.task/1"
Update = Callable[[dict], None]


class StopRun(Exception):
    """The run itself cannot go on (its directory cannot be written): not a task's failure, never recorded."""


def run_task(task_id: str, make_task: Callable[[str], HarnessTask], client, protocol: str, rounds: int = 1,
             status: Callable[[str], None] = lambda text: None, on_update: Update = lambda record: None,
             paid: list[dict] | None = None) -> dict:
    """Run one task under a protocol and return its record (never raises for a model's or task's failure;
    StopRun passes through). `paid`: reply records of an earlier attempt, replayed before asking again."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r} (protocols: {', '.join(PROTOCOLS)})")
    record = {"format": RECORD_FORMAT, "task": task_id, "model": client.name, "protocol": protocol,
              "max_rounds": rounds if protocol == "feedback" else 1, "status": "running", "error": None,
              "started_at": _now(), "rounds": [], "messages": []}
    clock = {"grading_s": 0.0, "started": time.perf_counter()}
    try:
        task = make_task(task_id)
        messages = task.messages(protocol, rounds)
        record.update(family=task.family, prompt_version=task.prompt_version,
                      prompt_sha256=prompt_hash(messages[0]["content"], messages[1]["content"]),
                      seeds=task.seeds(), messages=[dict(m) for m in messages])
        on_update(record)
        talk = _Conversation(client, task, messages, record, on_update, status, paid)
        if protocol == "one-shot":
            _one_shot(task, talk, record, clock, status)
        else:
            _feedback(task, talk, record, clock, status, rounds, on_update)
        record["status"] = "ok"
    except StopRun:
        raise
    except ModelError as error:
        record.update(status="error", error=str(error))
    except Exception as error:  # noqa: BLE001 - a broken game module or parser: this task fails, the batch goes on
        record.update(status="error", error=f"{type(error).__name__}: {error_text(error)}")
    _totals(record, clock)
    return record


class _Conversation:
    """The messages sent to the model (the record keeps each reply once, in its round) and the stored
    replies of an earlier attempt, replayed before the model is asked."""

    def __init__(self, client, task: HarnessTask, messages: list[dict], record: dict, on_update: Update, status,
                 paid: list[dict] | None):
        self.client, self.task, self.record, self.on_update, self.status = client, task, record, on_update, status
        self.sent = [dict(m) for m in messages]
        self.paid = list(paid or [])

    def ask(self, number: int) -> tuple[dict, Reply]:
        """The next reply, stored in a new round (and saved) before anything reads it."""
        reply, reused = None, False
        if self.paid:
            stored = self.paid.pop(0)
            try:
                reply, reused = Reply(**stored), True
            except TypeError:
                reply = None
            if reply is None or not _usable(reply):
                reply, reused = None, False  # an unusable stored reply: ask the model from here on
                self.paid.clear()
        if reply is None:
            reply = self.client.complete(self.sent, self.task, status=self.status)
        entry = {"round": number, "reply": reply.record(), "answer_source": "content", "parse_error": None,
                 "weights": None}
        if reused:
            entry["reused"] = True
        self.record["rounds"].append(entry)
        self.record["messages"].append({"role": "assistant", "round": number})
        self.sent.append({"role": "assistant", "content": reply.content})
        self.on_update(self.record)
        return entry, reply

    def tell(self, text: str) -> None:
        self.record["messages"].append({"role": "user", "content": text})
        self.sent.append({"role": "user", "content": text})


def _usable(reply: Reply) -> bool:
    """A stored reply has the types the protocols and the totals read."""
    return (isinstance(reply.content, str) and isinstance(reply.reasoning, (str, type(None)))
            and isinstance(reply.usage, (dict, type(None))) and isinstance(reply.latency_s, (int, float)))


def _one_shot(task: HarnessTask, talk: _Conversation, record: dict, clock: dict, status) -> None:
    status("waiting for the model")
    entry, reply = talk.ask(1)
    answer, error = _take(task, entry, reply)
    status("grading on held-out seeds")
    _test(task, answer, record, clock, best_round=None if error else 1)


def _feedback(task: HarnessTask, talk: _Conversation, record: dict, clock: dict, status, rounds: int,
              on_update: Update) -> None:
    best = None  # (key, round, answer, train result)
    answer = ""
    for number in range(1, rounds + 1):
        status(f"round {number}/{rounds}: waiting for the model")
        entry, reply = talk.ask(number)
        answer, error = _take(task, entry, reply)
        if error:
            entry["feedback"] = task.parse_feedback(error)
        else:
            status(f"round {number}/{rounds}: training seeds")
            with GRADING:
                started = time.perf_counter()
                trained = task.train(answer)
                clock["grading_s"] += time.perf_counter() - started
            entry.update(train=trained.result, train_score=trained.score, feedback=trained.feedback)
            if best is None or trained.key > best[0]:
                best = (trained.key, number, answer, trained)
        on_update(record)
        if best and best[3].perfect:
            break
        if number < rounds:
            talk.tell(entry["feedback"])
    if best:
        record["train_score"] = best[3].score
        answer = best[2]
    status("grading on held-out seeds")
    _test(task, answer, record, clock, best_round=best[1] if best else None)


def _take(task: HarnessTask, entry: dict, reply: Reply) -> tuple[str, str | None]:
    """Pick the text to grade (content, else reasoning) and its parse error, and note both in the round."""
    answer, source, error = reply.content, "content", task.check(reply.content)
    if error and reply.reasoning and task.check(reply.reasoning) is None:
        answer, source, error = reply.reasoning, "reasoning", None
    entry.update(answer_source=source, parse_error=error, weights=None if error else task.weights_record(answer))
    return answer, error


def _test(task: HarnessTask, answer: str, record: dict, clock: dict, best_round: int | None) -> None:
    with GRADING:
        started = time.perf_counter()
        tested = task.test(answer)
        clock["grading_s"] += time.perf_counter() - started
    record.update(best_round=best_round, test=tested.result, test_score=tested.score)


def _totals(record: dict, clock: dict) -> None:
    usage: dict[str, int] = {}
    for entry in record["rounds"]:
        for key, value in (entry["reply"].get("usage") or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                usage[key] = usage.get(key, 0) + value
            elif key == "completion_tokens_details" and isinstance(value, dict):
                reasoning = value.get("reasoning_tokens")
                if isinstance(reasoning, int) and not isinstance(reasoning, bool):
                    usage["reasoning_tokens"] = usage.get("reasoning_tokens", 0) + reasoning
    record.update(
        usage=usage or None, finished_at=_now(),
        timings={"model_s": round(sum(e["reply"]["latency_s"] for e in record["rounds"]), 3),
                 "grading_s": round(clock["grading_s"], 3),
                 "total_s": round(time.perf_counter() - clock["started"], 3)})
    record.setdefault("test_score", None)


def error_text(error: Exception) -> str:
    """An exception's message, at most 2,000 characters; never raises (str() of some values can)."""
    try:
        return str(error)[:MAX_MESSAGE_CHARS]
    except Exception:  # noqa: BLE001 - e.g. an int too long to print
        return "(its message could not be printed)"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
