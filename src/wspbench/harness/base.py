"""The task-family interface of the harness: render a prompt, score a reply on training seeds (with the
feedback text a model gets), grade it once on held-out seeds.

The protocols only talk to this interface, so MinAtar (original and synthetic games) and SUPERBEAM share
all protocol, client and logging code. Held-out grading calls exactly the functions that `wsp grade`
(MinAtar) and `superbeam.task.grade` (SUPERBEAM) call: the harness never changes how an answer is graded.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field


@dataclass
class TrainResult:
    """One candidate scored on training seeds. `key` orders candidates (score first, then a tie-break)."""

    score: float
    key: tuple
    perfect: bool
    feedback: str
    result: dict = field(default_factory=dict)


@dataclass
class TestResult:
    """The held-out score (in [0, 1]) and the grader's full result dict."""

    __test__ = False  # not a pytest class

    score: float
    result: dict


class HarnessTask(ABC):
    """One task as a protocol runs it."""

    task_id: str
    family: str
    prompt_version: str

    @abstractmethod
    def messages(self, protocol: str, rounds: int) -> list[dict]:
        """The opening conversation: a system and a user message."""

    @abstractmethod
    def check(self, answer: str) -> str | None:
        """The parse error of a reply, or None when it holds a usable answer (cheap, no game played)."""

    @abstractmethod
    def parse_feedback(self, error: str) -> str:
        """What a model is told after an unusable reply (feedback protocol)."""

    @abstractmethod
    def train(self, answer: str) -> TrainResult:
        """Score a usable reply on the training seeds, disjoint from the held-out ones."""

    @abstractmethod
    def test(self, answer: str) -> TestResult:
        """Grade a reply once on the held-out seeds (a bad reply is a score of 0 with an error)."""

    @abstractmethod
    def weights_record(self, answer: str) -> dict | None:
        """The parsed weights in a JSON-friendly form, for the run record."""

    @abstractmethod
    def offline_answer(self, model: str) -> str:
        """The reply of a built-in offline model: "reference" (the shipped program) or "zero"."""

    @abstractmethod
    def seeds(self) -> dict:
        """The training and held-out seeds, for the manifest."""
