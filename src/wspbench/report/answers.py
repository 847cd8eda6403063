"""A reply's weights for either task family, with the family's own parser (the one grading uses)."""

from __future__ import annotations

import numpy as np

FAMILIES = ("minatar", "superbeam")


class UnusableAnswer(ValueError):
    """The reply holds no weights that grading would accept; the message says why."""


def parse_weights(text: str, family: str | None = None) -> tuple[str, dict[str, np.ndarray]]:
    """(family, weights). Without a family, an ```edits answer is MinAtar and a JSON one SUPERBEAM."""
    from superbeam.task import AnswerError as JsonError, parse_answer
    from wspbench.answers import AnswerError as EditsError, parse_edits
    from wspbench.networks import MINATAR_NETWORK

    if family not in (None, *FAMILIES):
        raise ValueError(f"unknown family {family!r} (families: {', '.join(FAMILIES)})")
    errors = []
    if family in (None, "minatar"):
        try:
            return "minatar", parse_edits(text, MINATAR_NETWORK)[0]
        except EditsError as error:
            errors.append(f"as a MinAtar edits answer: {error}")
    if family in (None, "superbeam"):
        try:
            return "superbeam", parse_answer(text)
        except JsonError as error:
            errors.append(f"as a SUPERBEAM JSON answer: {error}")
    raise UnusableAnswer("; ".join(errors))
