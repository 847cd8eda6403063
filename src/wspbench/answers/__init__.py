"""Answer formats: how a model's reply text becomes weights. Each parser reads untrusted text with bounds and
raises AnswerError with a message a model can act on: `edits` (the MinAtar tasks' edit language),
`json_network` (SUPERBEAM's JSON network), `game_name` (the identify tasks' ```game block). `Checked` is a reply
as a task read it (`Task.check`)."""

import typing

from wspbench.answers.edits import AnswerError, parse_edits
from wspbench.networks import Weights

__all__ = ["AnswerError", "Checked", "parse_edits"]


class Checked(typing.NamedTuple):
    """A reply as `Task.check` read it: its weights and what a grade records about the answer itself (its edit
    count...), or the message that rejects it (then no weights). A tuple too: `weights, about, error = checked`."""

    weights: Weights | None
    about: dict
    error: str | None
