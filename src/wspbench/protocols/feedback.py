"""The feedback protocol: up to `rounds` replies. A usable reply is scored on the training episodes and answered
with the task's feedback, an unusable one with its parse error; a perfect training score ends the rounds early;
the best reply by the task's `train_key` is graded once, on held-out episodes a run's secret draws."""

from __future__ import annotations

from dataclasses import dataclass

from wspbench.protocols.base import Protocol


@dataclass(frozen=True)
class Feedback(Protocol):
    name = "feedback"
    settings = (*Protocol.settings, "rounds", "train_episodes")
    secret_held_out = True

    rounds: int = 4
    train_episodes: int = 100

    def plays(self, task) -> bool:
        return True

    def seeds(self, task) -> dict:
        train = task.training_episodes(self.train_episodes)
        return {"training_episodes": [train[0], train[-1]]}

    def received(self, conversation, turn) -> None:
        if turn.error:
            turn.feedback = conversation.task.parse_feedback(turn.error)

    def trains(self, turn) -> bool:
        return turn.error is None

    def follow_up(self, conversation, turn) -> str | None:
        if turn.number >= self.rounds:
            return None
        best = conversation.best
        if best and conversation.task.perfect(best[1].train):
            return None
        return turn.feedback

    def graded(self, conversation):
        """The best usable reply by training score, or None."""
        return conversation.best[1] if conversation.best else None

    def statement(self, task, own: str) -> str:
        return (
            f"This is feedback mode: you may reply up to {self.rounds} times. After each reply your network plays "
            f"{len(task.training_episodes(self.train_episodes))} TRAINING episodes (seeds different from the held-out "
            f"ones) and you are told the results; a reply without a usable {task.answer_format} block is answered "
            "with the error. The reply with the best training score is then graded once on the held-out episodes. "
            "You still get no training, data, gradients, code execution or calculator."
        )

    def training_note(self) -> str:
        return "Training episodes (feedback rounds) use other seeds; the held-out episodes are never shown to you."
