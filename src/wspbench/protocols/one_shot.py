"""The one-shot protocol: one reply, graded as it is, on the task's fixed scoring episodes (the seed's contract).
Everything it does is the base protocol's (`base.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from wspbench.protocols.base import Protocol


@dataclass(frozen=True)
class OneShot(Protocol):
    name = "one-shot"
