"""A toy protocol in one file: "retry", the example of docs/architecture.md.

One-shot with a second chance for the format: a reply without a usable answer is told its error and may be sent
again, up to `rounds` replies; the first usable reply is graded, as it is, on the task's fixed scoring episodes (the
model learns nothing of the game, so nothing needs hiding). It adds one setting (`rounds`, default 2), three rules
and the sentence that states it.

To offer it, register it (`wspbench.protocols.register(Retry)`) and name it in a task's `protocols`: `wsp run
--protocol retry`, `wsp prompt`, `wspbench.evaluate`, the Inspect task and the OpenEnv server then know it; nothing
else in the project changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from wspbench.protocols import Protocol


@dataclass(frozen=True)
class Retry(Protocol):
    name = "retry"
    settings = (*Protocol.settings, "rounds")

    rounds: int = 2

    def received(self, conversation, turn) -> None:
        if turn.error:
            turn.feedback = conversation.task.parse_feedback(turn.error)

    def follow_up(self, conversation, turn) -> str | None:
        return turn.feedback if turn.error and turn.number < self.rounds else None

    def statement(self, task, own: str) -> str:
        return (
            f"This is retry mode: your reply is graded as it is, but if it holds no usable {task.answer_format} "
            f"block you are told why and may reply again (up to {self.rounds} replies)."
        )
