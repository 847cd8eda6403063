"""What every protocol is: its settings, checked when it is made, the rules the conversation engine asks it
(`conversation.py`), and the words a task's prompt asks it for. The base class is a task under no protocol beyond
its own prompt: one reply, graded as it is. Each protocol module (`one_shot.py`, `feedback.py`, `agent.py`)
subclasses it once; `wspbench/protocols/__init__.py` is their registry and says how to add one.

A protocol only knows the task contract's methods (`wspbench/tasks/spec.py`: `check`, `training_episodes`,
`feedback`, `train_key`...), which it calls without importing the tasks: protocols sit below them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import ClassVar


@dataclass(frozen=True)
class Setting:
    """One setting a protocol may have: its bounds (inclusive) and what `--help` says of it."""

    name: str
    kind: type  # int or float
    low: float | None
    high: float | None
    help: str
    flags: tuple[str, ...] = ()  # other command-line names

    @property
    def rule(self) -> str:
        """What a value must be, in words: "a whole number from 1 to 1,000"."""
        kind = "a whole number" if self.kind is int else "a number"
        if self.low is None:
            return kind if self.high is None else f"{kind} up to {self.high:,g}"
        return f"{kind} from {self.low:,g}" + (f" to {self.high:,g}" if self.high is not None else "")


SETTINGS = {
    one.name: one
    for one in (
        Setting("rounds", int, 1, 1000, "Replies at most: feedback rounds or agent turns.", ("--turns",)),
        Setting(
            "episodes",
            int,
            1,
            100_000,
            "Held-out scoring episodes per task: its first N (MinAtar: episodes 0..N-1, or as many drawn by the run's "
            "secret under feedback and agent; SUPERBEAM: at most its 20 test levels).",
        ),
        Setting(
            "train_episodes",
            int,
            1,
            100_000,
            "Training episodes per feedback round or agent play (disjoint from the held-out ones; SUPERBEAM: its 10 "
            "training levels).",
        ),
        Setting("passes", int, 0, 1000, "Agent protocol: plays on training episodes (0: compute only)."),
        Setting(
            "handoff",
            int,
            0,
            1000,
            "Agent protocol: a fresh conversation every N turns, with the model's notebook.md and its last candidate "
            "(0: never).",
        ),
        Setting(
            "task_timeout",
            float,
            0.0,
            None,
            "A task's wall-clock budget in seconds: past it no block runs and nothing more is asked, and the answer so "
            "far is graded (status 'time limit'); 0: none.",
        ),
    )
}
RUN_EPISODES = 1000  # the held-out episodes a run plays per task when none are given (a task with fewer: all)


@dataclass(frozen=True)
class Protocol:
    """How a model meets a task, which its prompt states: a protocol's name, its settings (those it does not have
    keep the values below, and are refused otherwise), its rules and its words. `episodes`: held-out episodes (None:
    the task's own count)."""

    name: ClassVar[str] = ""
    settings: ClassVar[tuple[str, ...]] = ("episodes", "task_timeout")  # those it has (each protocol adds its own)
    secret_held_out: ClassVar[bool] = False  # its held-out episodes are drawn by a run's secret (tasks/held_out.py)
    kernel: ClassVar[bool] = False  # replies act through blocks in a sandboxed kernel that holds the task's files

    rounds: int = 1
    episodes: int | None = None
    train_episodes: int = 0
    passes: int = 0
    handoff: int = 0
    task_timeout: float = 0.0

    def __post_init__(self) -> None:
        for one in fields(self):
            value, setting = getattr(self, one.name), SETTINGS[one.name]
            if one.name not in self.settings:
                if value != one.default:
                    raise ValueError(f"the {self.name} protocol has no {one.name} setting")
                continue
            check(setting, value)

    def to_json(self) -> dict:
        """The protocol as run records keep it: its name and every setting."""
        return {"protocol": self.name, **{one.name: getattr(self, one.name) for one in fields(self)}}

    # --- rules: what the conversation engine (`conversation.py`) asks ------------------------------------
    def plays(self, task) -> bool:
        """Whether the conversation scores candidates on the task's training episodes."""
        return False

    def seeds(self, task) -> dict:
        """What a run's manifest records of the training episodes this protocol plays, beside the held-out ones."""
        return {}

    def passes_for(self, task) -> int:
        """The plays a conversation may use (agent)."""
        return 0

    def received(self, conversation, turn) -> None:
        """A reply without blocks, read: what it leads to (its feedback, or an answer submitted)."""

    def trains(self, turn) -> bool:
        """Whether a driver scores this reply on the training episodes."""
        return False

    def follow_up(self, conversation, turn) -> str | None:
        """What to send after this turn, or None when the conversation is over (the time budget aside)."""
        return None

    def blocks(self, content: str) -> list[tuple[str, str]]:
        """The (kind, body) blocks a reply acts through (agent); none: the reply is an answer."""
        return []

    def graded(self, conversation):
        """The turn graded on the held-out episodes, or None when no reply was usable: the one reply."""
        last = conversation.turns[-1]
        return last if last.error is None else None

    def answer(self, conversation):
        """What is graded on the held-out episodes (a `conversation.Candidate`): the graded turn's answer; without
        one, the last reply, which scores 0 with its error."""
        graded = self.graded(conversation)
        if graded:
            return conversation.candidate_of(graded)
        last = conversation.turns[-1]
        return conversation.unread(last.text) if last.text is not None else conversation.unread("")

    # --- words: what a task's prompt asks --------------------------------------------------------------
    def statement(self, task, own: str) -> str:
        """The sentence that states how the model works, given the task's own one-shot sentence."""
        return own

    def training_note(self) -> str:
        """A line for a prompt's SCORING section on the training episodes ("" without them)."""
        return ""

    def ask(self, answer: str) -> str:
        """The prompt's last line: what the reply must hold (`answer`: the task's answer block)."""
        return f"Reply with your reasoning, then one {answer}."

    def section(self, task) -> str:
        """A section of the protocol's own at the end of the prompt ("" for none)."""
        return ""

    def shown_weights(self, task, heading: str, listing) -> str:
        """The section of a reading task's prompt that shows its network under `heading`: `listing()` (every weight
        as text), unless the protocol gives the weights otherwise (as files)."""
        return listing()


def check(setting: Setting, value) -> None:
    """ValueError unless `value` is a valid value of `setting` (its type and bounds; episodes may be None)."""
    if value is None and setting.name == "episodes":
        return
    number = isinstance(value, int | float) and not isinstance(value, bool)
    whole = isinstance(value, int) and not isinstance(value, bool)
    fits = (whole if setting.kind is int else number and math.isfinite(value)) and not (
        (setting.low is not None and value < setting.low) or (setting.high is not None and value > setting.high)
    )
    if not fits:
        raise ValueError(f"{setting.name} must be {setting.rule}, not {value!r:.40}")
