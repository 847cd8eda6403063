"""Answer formats: how a model's reply text becomes weights. Each parser reads untrusted text with bounds and
raises AnswerError with a message a model can act on: `edits` (the MinAtar tasks' edit language),
`json_network` (SUPERBEAM's JSON network), `game_name` (the identify tasks' ```game block)."""

from wspbench.answers.edits import AnswerError, parse_edits

__all__ = ["AnswerError", "parse_edits"]
