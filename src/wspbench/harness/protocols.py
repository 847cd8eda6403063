"""Running a protocol: how a model meets a registry task (`wspbench/tasks/spec.py`), producing its TaskRecord.

The rules are the protocol's (`wspbench/protocols/`: one-shot, feedback, agent), kept by the conversation engine
(`wspbench/protocols/conversation.py`), which the Inspect solver and the OpenEnv server drive too; this module pays
for replies, grades and keeps the record: each reply the conversation scores on training episodes, each agent
turn's blocks run in the task's sandboxed kernel (`harness/agent.py`; a round keeps its blocks: code, output,
status, seconds, passes), and the answer the conversation names graded once on the held-out episodes.

A reply whose content holds no usable answer but whose reasoning text does is graded from the reasoning
(as the reference does) and the record says so. Failures are values: a bad reply scores 0, and an
endpoint that fails after its retries (or anything unexpected) gives a record with status "error";
neither stops the other tasks of a batch.

Every reply is stored once, in its round, and handed to `on_update` (the run directory's partial record)
before anything parses or grades it, so a paid reply survives any failure after it. The record's
`messages` name the round of each assistant message instead of repeating its text. A task run again
after a failure is given the earlier attempt's replies (`paid`): they are replayed in order instead of
being asked (and paid) for again, and their rounds say `reused`. A reply cut at the token limit
(finish_reason "length") is still graded; its round says `truncated` and the console is told. A task stores at
most `record.MAX_TASK_TEXT_BYTES` of reply text: a reply past it is cut before anything reads it, its round says
why (`cut`), and what is graded is what is stored, so a resumed run replays the same text.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from wspbench.evaluation import Grading
from wspbench.evaluation.executors import ExecutorError
from wspbench.harness.agent import act, hand_off, open_kernel
from wspbench.harness.clients import ModelError, Notice
from wspbench.harness.record import TIME_LIMIT, Reply, Round, RunConfig, TaskRecord, TextBudget
from wspbench.protocols.conversation import Candidate, Conversation, Turn
from wspbench.tasks import held_out
from wspbench.tasks.spec import Checked, Score, Task, prompt_hash, safe_message

GRADING = threading.Lock()  # grading already uses every core: one task grades at a time


Update = Callable[[TaskRecord], None]


class StopRun(Exception):
    """The run itself cannot go on (its directory cannot be written): not a task's failure, never recorded."""


def run_task(
    task: Task,
    client,
    config: RunConfig,
    status: Callable[[str], None] = lambda text: None,
    on_update: Update = lambda record: None,
    paid: list[Reply] | None = None,
    suite: dict | None = None,
    workers: int | None = None,
    sample: int = 0,
    secret: str | None = None,
) -> TaskRecord:
    """Run one task under `config`'s protocol and return its record (never raises for a model's or a task's
    failure; StopRun passes through). `paid`: the replies of an earlier attempt, replayed before asking.
    `sample`: which of the task's independent replies this is (`--samples`; the client offsets its seed).
    `secret`: the run's, which draws the held-out episodes of a run that draws them (`config.held_out`; without
    one, a fresh secret); the record publishes the task's key once it is graded (`tasks/held_out.py`)."""
    record = TaskRecord(
        task=task.id,
        model=client.name,
        protocol=config.protocol.name,
        max_rounds=config.protocol.rounds,
        sample=sample,
        family=task.family,
        suite=dict(suite or {}),
        started_at=_now(),
    )
    clock = {"grading_s": 0.0, "started": time.perf_counter()}
    try:
        protocol = config.protocol
        conversation = Conversation(task, protocol)
        messages = conversation.messages()
        record.prompt_version, record.prompt_sha256 = task.prompt_version, prompt_hash(messages)
        record.seeds, record.messages = task.seeds(protocol), [dict(m) for m in messages]
        on_update(record)
        key = None
        if config.held_out == "secret" and task.secret_episodes is not None:
            key = held_out.task_key(secret or held_out.new_secret(), task.id)
        run = _Run(task, client, config, record, clock, status, on_update, paid, workers, conversation, key)
        if protocol.kernel:
            with open_kernel(conversation) as run.kernel:
                run.converse()
        else:
            run.converse()
        record.status = TIME_LIMIT if conversation.out_of_time else "ok"
    except (StopRun, ExecutorError):  # ExecutorError: a cluster lost, not this task's fault; the run stops
        raise
    except ModelError as error:
        record.status, record.error, record.failed_tries = "error", str(error), error.retries
    except Exception as error:  # noqa: BLE001 - a broken game module or parser: this task fails, the batch goes on
        record.status, record.error = "error", safe_message(error)
    _totals(record, clock)
    return record


class _Run:
    """One task's conversation: the messages sent, the rounds kept, and the earlier attempt's replies."""

    def __init__(
        self,
        task: Task,
        client,
        config: RunConfig,
        record: TaskRecord,
        clock: dict,
        status,
        on_update: Update,
        paid: list[Reply] | None,
        workers: int | None,
        conversation: Conversation,
        key: str | None = None,
    ):
        self.task, self.client, self.config, self.record, self.clock = task, client, config, record, clock
        self.key = key  # draws the held-out episodes (None: the task's fixed ones); never shown before the grade
        self.status, self.on_update, self.workers = status, on_update, workers
        self.sent = [dict(m) for m in record.messages]
        self.paid = list(paid or [])
        self.conversation = conversation
        self.kernel = None  # agent: the task's kernel
        self.budget = TextBudget(record.rounds)  # the reply text the record may still store

    def converse(self) -> None:
        """Ask, run the blocks or grade on training episodes, and tell as the conversation says, then grade once
        on the held-out episodes."""
        conversation, rounds = self.conversation, self.config.protocol.rounds
        several = "rounds" in conversation.protocol.settings  # a protocol of several replies says which this is
        while True:
            number = len(conversation.turns) + 1
            self.status(f"round {number}/{rounds}: waiting for the model" if several else "waiting for the model")
            entry, turn = self.ask(number)
            if self.kernel is not None:
                self.status(f"round {number}/{rounds}: running its blocks")
                act(conversation, turn, self.kernel, self.play)
                entry.blocks = turn.blocks
                if turn.candidate is not None:  # the round's answer: the last candidate it offered
                    weights, _, entry.parse_error = turn.candidate.read
                    entry.weights = None if weights is None else self.task.answer_record(weights)
            episodes = conversation.to_train(turn)
            if episodes:
                self.status(f"round {number}/{rounds}: training episodes")
                entry.train = self.grade(turn.read, episodes)
                conversation.trained(turn, entry.train)
            entry.feedback = turn.feedback
            if several:
                self.on_update(self.record)
            follow_up = conversation.follow_up(turn)
            if follow_up is None:
                if conversation.out_of_time:
                    budget = conversation.protocol.task_timeout
                    self.status(Notice(f"round {number}: the task's time budget ({budget:g} s) ran out"))
                break
            if conversation.handoff_due(turn):
                entry.handoff = True
                self.sent = hand_off(conversation, self.kernel, follow_up)
                self.record.messages.append({"role": "user", "content": self.sent[-1]["content"], "handoff": True})
            else:
                self.tell(follow_up)
        self.test(conversation.answer())

    def ask(self, number: int) -> tuple[Round, Turn]:
        """The next reply, stored in a new round (and saved) before anything reads it, then read."""
        reply, reused = None, False
        if self.paid:
            reply, reused = self.paid.pop(0), True
        if reply is None:
            reply = self.client.complete(self.sent, self.task, status=self.status, sample=self.record.sample)
        reply, cut = self.budget.take(reply)
        entry = Round(number, reply, reused=reused, truncated=reply.finish_reason == "length", cut=cut)
        if entry.truncated:
            self.status(Notice(f"round {number}: the reply was truncated (finish_reason=length)"))
        if cut:
            self.status(Notice(f"round {number}: {cut}"))
        self.record.rounds.append(entry)
        self.record.messages.append({"role": "assistant", "round": number})
        self.sent.append({"role": "assistant", "content": reply.content})
        self.on_update(self.record)
        turn = self.conversation.reply(reply.content, reply.reasoning)
        weights, _, entry.parse_error = turn.read
        entry.answer_source = turn.source
        entry.weights = None if weights is None else self.task.answer_record(weights)
        return entry, turn

    def tell(self, text: str) -> None:
        self.record.messages.append({"role": "user", "content": text})
        self.sent.append({"role": "user", "content": text})

    def play(self, candidate: Candidate, episodes: list[int]) -> Score:
        """An agent's play: its candidate graded on training episodes."""
        self.status(f"round {len(self.conversation.turns)}/{self.config.protocol.rounds}: playing a candidate")
        return self.grade(candidate.read, episodes)

    def grade(self, read: Checked, episodes: list[int]) -> Score:
        """An answer, as `Task.check` read it, graded on `episodes`."""
        with GRADING:
            started = time.perf_counter()
            try:
                return self.task.grade_checked(read, episodes, Grading(self.config.engine, self.workers))
            finally:
                self.clock["grading_s"] += time.perf_counter() - started

    def test(self, answer: Candidate) -> None:
        """Grade once on the held-out episodes what the conversation says (`Conversation.answer`): without a
        usable reply, the last one, which scores 0 with its parse error."""
        self.status("grading on held-out episodes")
        self.record.best_round = answer.number
        self.record.test = self.grade(answer.read, self.task.held_out_episodes(self.config.protocol.episodes, self.key))
        self.record.held_out_key = self.key


def _totals(record: TaskRecord, clock: dict) -> None:
    usage: dict[str, int] = {}
    for entry in record.rounds:
        for key, value in (entry.reply.usage or {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                usage[key] = usage.get(key, 0) + value
            elif key == "completion_tokens_details" and isinstance(value, dict):
                reasoning = value.get("reasoning_tokens")
                if isinstance(reasoning, int) and not isinstance(reasoning, bool):
                    usage["reasoning_tokens"] = usage.get("reasoning_tokens", 0) + reasoning
    record.usage, record.finished_at = usage or None, _now()
    record.timings = {
        "model_s": round(sum(e.reply.latency_s for e in record.rounds), 3),
        "grading_s": round(clock["grading_s"], 3),
        "total_s": round(time.perf_counter() - clock["started"], 3),
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
