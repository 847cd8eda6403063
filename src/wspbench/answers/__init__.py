"""Answer formats: how a model's reply text becomes weights."""

from wspbench.answers.edits import AnswerError, parse_edits

__all__ = ["AnswerError", "parse_edits"]
