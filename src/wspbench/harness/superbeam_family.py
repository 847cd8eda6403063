"""SUPERBEAM in the harness: an adapter over `superbeam.task`, which owns the prompt (the reference
`task_prompt()` and `SYSTEM`), JSON parsing, per-level play, grading and the feedback text.

Training levels are `superbeam.task.TRAIN_LEVELS` (0..9), held-out levels `TEST_LEVELS`
(1000000..1000019). A candidate's training key is (levels won, mean progress), as in the reference.
`superbeam` is imported lazily: when it is missing or broken, the task is simply not offered and
`unavailable_reason()` says why.
"""

from __future__ import annotations

import importlib
import json

from wspbench.harness.base import HarnessTask, TestResult, TrainResult

TASK_ID = "superbeam"
PROMPT_VERSION = "superbeam-v1"  # our wrapping; the text itself is superbeam.task's (its hash is recorded)
REQUIRED = ("SYSTEM", "task_prompt", "parse_answer", "AnswerError", "grade", "feedback", "TRAIN_LEVELS",
            "TEST_LEVELS", "NETWORK", "KEYS")


def _module():
    module = importlib.import_module("superbeam.task")
    missing = [name for name in REQUIRED if not hasattr(module, name)]
    if missing:
        raise ImportError(f"superbeam.task lacks {', '.join(missing)}")
    return module


def unavailable_reason() -> str | None:
    """None when SUPERBEAM can run, else why not."""
    try:
        _module()
    except Exception as error:  # an in-progress or missing package must not break MinAtar runs
        return f"SUPERBEAM is not available: {type(error).__name__}: {error}"
    return None


class SuperbeamHarnessTask(HarnessTask):
    task_id = TASK_ID
    family = "superbeam"
    prompt_version = PROMPT_VERSION

    def __init__(self):
        self.sb = _module()

    def messages(self, protocol: str, rounds: int) -> list[dict]:
        return [{"role": "system", "content": self.sb.SYSTEM}, {"role": "user", "content": self.sb.task_prompt()}]

    def check(self, answer: str) -> str | None:
        try:
            self.sb.parse_answer(answer)
        except self.sb.AnswerError as error:
            return str(error)
        return None

    def parse_feedback(self, error: str) -> str:
        return self.sb.feedback({"error": error})

    def train(self, answer: str) -> TrainResult:
        result = self.sb.grade(answer, self.sb.TRAIN_LEVELS)
        return TrainResult(float(result["score"]), (result["won"], result["mean_progress"]),
                           not result.get("error") and result["won"] == result["levels"],
                           self.sb.feedback(result), result)

    def test(self, answer: str) -> TestResult:
        result = self.sb.grade(answer, self.sb.TEST_LEVELS)
        return TestResult(float(result["score"]), result)

    def weights_record(self, answer: str) -> dict | None:
        try:
            weights = self.sb.parse_answer(answer)
        except self.sb.AnswerError:
            return None
        return {"format": "dense", **{name: weights[name].tolist() for name in self.sb.KEYS}}

    def offline_answer(self, model: str) -> str:
        if model == "zero":
            weights = self.sb.NETWORK.zeros()
        elif hasattr(self.sb, "reference_weights"):
            weights = self.sb.reference_weights()
        else:
            return "No reference network is shipped for superbeam."
        body = json.dumps({name: weights[name].tolist() for name in self.sb.KEYS})
        return f"The {model} network.\n```json\n{body}\n```\n"

    def seeds(self) -> dict:
        return {"training_levels": list(self.sb.TRAIN_LEVELS), "test_levels": list(self.sb.TEST_LEVELS),
                "difficulty": getattr(self.sb, "DIFFICULTY", None)}
