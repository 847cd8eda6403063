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
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone
from typing import Callable

from wspbench.harness.base import HarnessTask
from wspbench.harness.clients import ModelError, Reply
from wspbench.harness.prompts import prompt_hash

PROTOCOLS = ("one-shot", "feedback")
GRADING = threading.Lock()  # grading already uses every core: one task grades at a time
RECORD_FORMAT = "wspbench.harness.task/1"
Update = Callable[[dict], None]


def run_task(task_id: str, make_task: Callable[[str], HarnessTask], client, protocol: str, rounds: int = 1,
             status: Callable[[str], None] = lambda text: None, on_update: Update = lambda record: None) -> dict:
    """Run one task under a protocol and return its record (never raises for a model's or task's failure)."""
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
                      seeds=task.seeds(), messages=messages)
        on_update(record)
        if protocol == "one-shot":
            _one_shot(task, client, record, clock, status)
        else:
            _feedback(task, client, record, clock, status, rounds, on_update)
        record["status"] = "ok"
    except ModelError as error:
        record.update(status="error", error=str(error))
    except Exception as error:  # a broken game module, a full disk...: this task fails, the batch goes on
        record.update(status="error", error=f"{type(error).__name__}: {error}")
    _totals(record, clock)
    return record


def _one_shot(task: HarnessTask, client, record: dict, clock: dict, status) -> None:
    status("waiting for the model")
    reply = client.complete(record["messages"], task, status=status)
    entry, answer, error = _take(task, reply, record, 1)
    status("grading on held-out seeds")
    _test(task, answer, record, clock, best_round=None if error else 1)


def _feedback(task: HarnessTask, client, record: dict, clock: dict, status, rounds: int, on_update: Update) -> None:
    best = None  # (key, round, answer, train result)
    answer = ""
    for number in range(1, rounds + 1):
        status(f"round {number}/{rounds}: waiting for the model")
        reply = client.complete(record["messages"], task, status=status)
        entry, answer, error = _take(task, reply, record, number)
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
            record["messages"].append({"role": "user", "content": entry["feedback"]})
    if best:
        record["train_score"] = best[3].score
        answer = best[2]
    status("grading on held-out seeds")
    _test(task, answer, record, clock, best_round=best[1] if best else None)


def _take(task: HarnessTask, reply: Reply, record: dict, number: int) -> tuple[dict, str, str | None]:
    """Log a reply, pick the text to grade (content, else reasoning) and its parse error."""
    answer, source, error = reply.content, "content", task.check(reply.content)
    if error and reply.reasoning and task.check(reply.reasoning) is None:
        answer, source, error = reply.reasoning, "reasoning", None
    entry = {"round": number, "reply": reply.record(), "answer_source": source, "parse_error": error,
             "weights": None if error else task.weights_record(answer)}
    record["rounds"].append(entry)
    record["messages"].append({"role": "assistant", "content": reply.content})
    return entry, answer, error


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
            if isinstance(value, int):
                usage[key] = usage.get(key, 0) + value
            elif key == "completion_tokens_details" and isinstance(value, dict):
                reasoning = value.get("reasoning_tokens")
                if isinstance(reasoning, int):
                    usage["reasoning_tokens"] = usage.get("reasoning_tokens", 0) + reasoning
    record.update(
        usage=usage or None, finished_at=_now(),
        timings={"model_s": round(sum(e["reply"]["latency_s"] for e in record["rounds"]), 3),
                 "grading_s": round(clock["grading_s"], 3),
                 "total_s": round(time.perf_counter() - clock["started"], 3)})
    record.setdefault("test_score", None)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
