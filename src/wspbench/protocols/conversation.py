"""One task under one protocol, as a state machine that says what happens next: the protocol engine that `wsp run`
(`harness/protocols.py`), the Inspect solver (`integrations/inspect_ai.py`) and the OpenEnv server drive, so that
the rules are written once. Each rule is its protocol's (`one_shot.py`, `feedback.py`, `agent.py`): this engine
keeps the turns and asks the protocol what they lead to.

A driver sends `messages()`, hands each reply to `reply`, grades the turn on `to_train(turn)` (the training
episodes; none when the protocol scores no reply there) and hands the score to `trained`, runs an agent turn's
blocks (`steps`, `ran`, `offer`, `played`), sends `follow_up(turn)` until it is None (or opens a fresh conversation
when `handoff_due`), and ends with `answer()`: what is graded on the held-out episodes, and from which turn. Pure
and synchronous: no model, no files; the driver pays for replies, grades, keeps records and time. The protocol's
`task_timeout` is a wall-clock budget: past it no block runs and nothing more is asked (`out_of_time`).

Common to every protocol: the text graded is the reply's content, else its reasoning when only the reasoning holds
a usable answer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from wspbench.answers import Checked
from wspbench.protocols import agent
from wspbench.protocols.base import Protocol

NO_ANSWER = Checked(None, {}, None)  # an agent turn's reading before its blocks run: no answer, and no error either


@dataclass
class Turn:
    """One reply as the protocol reads it."""

    number: int  # 1, 2, ...
    text: str  # what is graded: the content, or the reasoning (`source`)
    source: str  # "content" or "reasoning"
    read: Checked  # `Task.check(text)`: (weights, about, error), so a reply is read once
    train: Any = None  # its Score on the training episodes (feedback, usable replies)
    feedback: str | None = None  # what the model is told about it (feedback; agent: a reply without blocks)
    blocks: list[Block] = field(default_factory=list)  # agent: the reply's blocks, in order
    candidate: Candidate | None = None  # agent: the last candidate the turn offered (usable or not)
    dropped: int = 0  # agent: blocks beyond agent.MAX_BLOCKS, not run

    @property
    def error(self) -> str | None:
        """Why the reply cannot be used, or None."""
        return self.read.error


@dataclass
class Block:
    """One block of an agent reply and what became of it: the audit a run record keeps."""

    kind: str  # one of agent.BLOCKS
    body: str
    status: str = "not run"  # python: the kernel's; play, submit: "played", "submitted", "not played", "unusable"
    output: str = ""  # what the model is told about it
    seconds: float = 0.0
    passes: int = 0  # passes it used (a play that was scored: 1)
    train: Any = None  # a play's Score on the training episodes
    candidate: str | None = None  # play, submit: the candidate it offered, as read (from its body or its file)


@dataclass
class Candidate:
    """An answer and where it came from: the turn that offered it (None: no usable reply) and its reading."""

    number: int | None
    text: str
    read: Checked  # `Task.check(text)`


class Conversation:
    def __init__(self, task, protocol: Protocol, clock=time.monotonic):
        self.task, self.protocol = task, protocol
        self.clock = clock
        self.deadline = None if not protocol.task_timeout else clock() + protocol.task_timeout
        self.out_of_time = False
        self.turns: list[Turn] = []
        self.best: tuple[tuple, Turn] | None = None  # (train_key, turn) of the best usable reply so far
        self.training = task.training_episodes(protocol.train_episodes) if protocol.plays(task) else []
        self.passes_left = protocol.passes_for(task)
        self.candidate: Candidate | None = None  # agent: the last usable candidate
        self.submitted: Candidate | None = None  # agent: the final answer, once submitted

    def messages(self) -> list[dict]:
        """The opening conversation."""
        return self.task.messages(self.protocol)

    def reply(self, content: str | None, reasoning: str | None = None) -> Turn:
        """The next reply, read: its blocks when the protocol acts through them (run later, by `steps`); else its
        content, or its reasoning when only that holds a usable answer, and what the protocol makes of it."""
        found = self.protocol.blocks(content)
        if found:
            kept = [Block(*b) for b in found[: agent.MAX_BLOCKS]]
            turn = Turn(len(self.turns) + 1, content, "content", NO_ANSWER, blocks=kept, dropped=len(found) - len(kept))
            self.turns.append(turn)
            return turn
        turn = Turn(len(self.turns) + 1, content, "content", self.task.check(content))
        if turn.error and reasoning:
            reasoned = self.task.check(reasoning)
            if reasoned.error is None:
                turn = Turn(turn.number, reasoning, "reasoning", reasoned)
        self.protocol.received(self, turn)
        self.turns.append(turn)
        return turn

    def to_train(self, turn: Turn) -> list[int]:
        """The training episodes to score this turn on: none unless the protocol scores it there."""
        return self.training if self.protocol.trains(turn) else []

    def trained(self, turn: Turn, score) -> None:
        """The turn's training score: its feedback, and whether it is the best reply so far."""
        turn.train, turn.feedback = score, self.task.feedback(score)
        key = self.task.train_key(score)
        if score.error is None and (self.best is None or key > self.best[0]):
            self.best = (key, turn)

    def over_budget(self) -> bool:
        """Whether the time budget has run out (and remember it)."""
        if self.deadline is not None and self.clock() >= self.deadline:
            self.out_of_time = True
        return self.out_of_time

    def follow_up(self, turn: Turn) -> str | None:
        """What to send after this turn, or None when the conversation is over: the protocol says, and the time
        budget may end it sooner."""
        if self.over_budget():
            return None
        return self.protocol.follow_up(self, turn)

    def graded(self) -> Turn | None:
        """The turn graded on the held-out episodes (the protocol's choice), or None when no reply was usable."""
        return self.protocol.graded(self)

    def answer(self) -> Candidate:
        """What is graded on the held-out episodes (the protocol's choice); without a usable answer, the last one
        offered, which scores 0 with its error."""
        return self.protocol.answer(self)

    def candidate_of(self, turn: Turn) -> Candidate:
        return Candidate(turn.number, turn.text, turn.read)

    def block(self, kind: str, body: str) -> Block:
        return Block(kind, body)

    def unread(self, text: str, read: Checked | None = None) -> Candidate:
        """An answer that no turn offered usably: graded as it reads (`read`, else `Task.check`)."""
        return Candidate(None, text, self.task.check(text) if read is None else read)

    # --- the agent protocol -------------------------------------------------------------------------
    def steps(self, turn: Turn):
        """The turn's blocks to run, in order, until one submits or the time budget runs out (the rest stay "not
        run")."""
        for block in turn.blocks:
            if self.submitted:
                return
            if self.over_budget():
                block.output = "not run: the task's time budget ran out"
                continue
            yield block

    def ran(self, block: Block, output: str, status: str, seconds: float) -> None:
        """A python block's result, as the kernel gave it."""
        block.output, block.status, block.seconds = output, status, seconds

    def offer(self, turn: Turn, block: Block, file_text: str | None = None, file_error: str | None = None) -> list[int]:
        """A play or submit block's candidate, read: from its body, from the file it names (read by the driver:
        `file_text`, or why it could not be: `file_error`), or the last candidate for an empty body. Returns the
        training episodes to play it on (a play with a pass left: the candidate played is `self.candidate`), else
        []."""
        name = agent.file_named(block.body)
        if file_error is not None:
            return self.refuse(block, "unusable", f"{name} cannot be read: {file_error}")
        text = file_text if name else block.body
        if name is None and not text.strip():
            if self.candidate is None:
                return self.refuse(block, "unusable", "there is no candidate yet (an empty block means the last one)")
            chosen = self.candidate
        else:
            chosen = Candidate(turn.number, *self.read_candidate(text))
            turn.candidate, block.candidate = chosen, chosen.text
            if chosen.read.error is not None:
                return self.refuse(block, "unusable", f"the candidate cannot be used: {chosen.read.error}")
            self.candidate = chosen
        if block.kind == "submit":
            self.submitted = chosen
            block.status, block.output = "submitted", "submitted: it is graded on the held-out episodes"
            return []
        if self.passes_left < 1:
            why = "no passes are left" if self.protocol.plays(self.task) else "this task has no plays (0 passes)"
            return self.refuse(block, "not played", f"not played: {why}")
        self.passes_left -= 1
        block.passes = 1
        return self.training

    def played(self, block: Block, score) -> None:
        """A play's score on the training episodes: what the model is told, as feedback would tell it."""
        block.train, block.status = score, "played" if score.error is None else "unusable"
        measured = self.task.report(score) if score.error is None else f"the candidate cannot be played: {score.error}"
        block.output = f"{measured}\n({self.passes_left} passes left)"

    def refuse(self, block: Block, status: str, why: str) -> list[int]:
        block.status, block.output = status, why
        return []

    def read_candidate(self, text: str) -> tuple[str, Checked]:
        """A candidate given fenced as a reply would, or as the bare body of its block (then fenced): its text and
        its `Task.check` reading."""
        read = self.task.check(text)
        if read[2] is not None and "```" not in text:
            fenced = f"```{self.task.answer_format}\n{text.rstrip(chr(10))}\n```\n"
            again = self.task.check(fenced)
            if again.error is None:
                return fenced, again
        return text, read

    def results(self, turn: Turn) -> str:
        """The message after an agent turn: what each block gave, then what is left (no timings: the same blocks
        and outputs make the same conversation)."""
        parts = []
        for number, block in enumerate(turn.blocks, 1):
            cost = f", {block.passes} pass" if block.passes else ""
            output = block.output or "(no output)"
            parts.append(f"[block {number}: {block.kind}, {block.status}{cost}]\n{output}")
        if turn.dropped:
            parts.append(f"[{turn.dropped} more blocks were not run: a reply runs at most {agent.MAX_BLOCKS}]")
        left = self.protocol.rounds - turn.number
        parts.append(f"[{left} turns and {self.passes_left} passes left]")
        return "\n\n".join(parts)

    def nothing_to_run(self, error: str) -> str:
        """What an agent reply without blocks or a usable answer is told: what it may send."""
        return (
            f"Your reply had no ```python, ```play or ```submit block, and no usable answer ({error}). Send a "
            f"```python block to compute, a ```play block to score a candidate on training episodes "
            f"({self.passes_left} passes left), or a ```submit block (or a plain ```{self.task.answer_format} "
            "block) with your final answer."
        )

    def handoff_due(self, turn: Turn) -> bool:
        """Whether the next message opens a fresh conversation (every `protocol.handoff` turns; 0: never)."""
        return self.protocol.handoff > 0 and turn.number % self.protocol.handoff == 0

    def handoff(self, notebook: str | None, results: str) -> list[dict]:
        """The fresh conversation: the opening messages, then the notebook, the last candidate and `results`."""
        candidate = self.candidate.text if self.candidate else None
        left = self.protocol.rounds - len(self.turns)
        note = agent.handoff_message(notebook, candidate, results, left, self.passes_left)
        return [*self.messages(), {"role": "user", "content": note}]
