"""One task under one protocol, as a state machine that says what happens next: the protocol engine that `wsp run`
(`harness/protocols.py`) and the Inspect solver (`integrations/inspect_ai.py`) both drive, so that the rules are
written once.

A driver sends `messages()`, hands each reply to `reply`, grades the turn on `to_train(turn)` (the training
episodes; none for one-shot or an unusable reply) and hands the score to `trained`, sends `follow_up(turn)` until
it is None, and then grades `graded()` (or, when no reply was usable, the last one, which scores 0 with its
error) on the held-out episodes. Pure and synchronous: no model, no clock, no files; the driver pays for
replies, grades, keeps records and time.

The rules:
- the text graded is the reply's content, else its reasoning when only the reasoning holds a usable answer;
- one-shot: one reply, graded if usable;
- feedback: up to `protocol.rounds` replies; a usable one is scored on the training episodes and answered with
  `task.feedback(score)`, an unusable one with `task.parse_feedback(error)`; a perfect training score
  (`task.perfect`) ends the rounds early; the best reply by `task.train_key` is the one graded.
"""

from __future__ import annotations

from dataclasses import dataclass

from wspbench.tasks.spec import Protocol, Score, Task


@dataclass
class Turn:
    """One reply as the protocol reads it."""

    number: int  # 1, 2, ...
    text: str  # what is graded: the content, or the reasoning (`source`)
    source: str  # "content" or "reasoning"
    read: tuple  # `Task.check(text)`: (weights, about, error), so a reply is read once
    train: Score | None = None  # its score on the training episodes (feedback, usable replies)
    feedback: str | None = None  # what the model is told about it (feedback)

    @property
    def error(self) -> str | None:
        """Why the reply cannot be used, or None."""
        return self.read[2]


class Conversation:
    def __init__(self, task: Task, protocol: Protocol):
        self.task, self.protocol = task, protocol
        self.turns: list[Turn] = []
        self.best: tuple[tuple, Turn] | None = None  # (train_key, turn) of the best usable reply so far
        self.feedback = protocol.name == "feedback"
        self.training = task.training_episodes(protocol.train_episodes) if self.feedback else []

    def messages(self) -> list[dict]:
        """The opening conversation."""
        return self.task.messages(self.protocol)

    def reply(self, content: str | None, reasoning: str | None = None) -> Turn:
        """The next reply, read: its content, else its reasoning when only that holds a usable answer."""
        turn = Turn(len(self.turns) + 1, content, "content", self.task.check(content))
        if turn.error and reasoning:
            reasoned = self.task.check(reasoning)
            if reasoned[2] is None:
                turn = Turn(turn.number, reasoning, "reasoning", reasoned)
        if turn.error and self.feedback:
            turn.feedback = self.task.parse_feedback(turn.error)
        self.turns.append(turn)
        return turn

    def to_train(self, turn: Turn) -> list[int]:
        """The training episodes to score this turn on: none for one-shot or an unusable reply."""
        return self.training if self.feedback and turn.error is None else []

    def trained(self, turn: Turn, score: Score) -> None:
        """The turn's training score: its feedback, and whether it is the best reply so far."""
        turn.train, turn.feedback = score, self.task.feedback(score)
        key = self.task.train_key(score)
        if score.error is None and (self.best is None or key > self.best[0]):
            self.best = (key, turn)

    def follow_up(self, turn: Turn) -> str | None:
        """What to send after this turn, or None when the conversation is over: one-shot, the last round, or a
        perfect training score."""
        if not self.feedback or turn.number >= self.protocol.rounds:
            return None
        if self.best and self.task.perfect(self.best[1].train):
            return None
        return turn.feedback

    def graded(self) -> Turn | None:
        """The turn graded on the held-out episodes: the best by training score (feedback) or the one reply
        (one-shot) when usable; None when no reply was usable (the last one is graded then, and scores 0)."""
        if self.feedback:
            return self.best[1] if self.best else None
        last = self.turns[-1]
        return last if last.error is None else None
