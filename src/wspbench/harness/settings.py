"""A run's settings in one place: every name, default, bound and check that `wsp run` and `wspbench.evaluate` share.

`wsp run` declares its options from these fields (`wspbench/cli/runs.py` `option`) and parses them into a
RunSettings; `wspbench.evaluate(..., **settings)` builds one from its keywords (`RunSettings.of`: an unknown name
is an error, never dropped). Both then start the run through `harness/runs.py` `start_run`, so they cannot drift
(`tests/harness/test_settings.py` walks `wsp run`'s options against these fields). What a run is of (the model,
the tasks, the run directory, the endpoint and its key's variable) and how the command line shows it (a dry run,
a limit, an executor) are not settings: they are the command's own.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import MISSING, dataclass, field, fields

from wspbench.evaluation import ENGINES

FEEDBACK_ROUNDS, AGENT_TURNS = 4, 20  # replies at most, by protocol, when `rounds` is not given
AGENT_TASK_TIMEOUT_S = 3600.0  # an agent task's wall-clock budget when none is given (docs/agent.md)
REASONING_EFFORTS = ("low", "medium", "high")
MAX_EPISODES = 100_000
MAX_WORKERS = 1024


def setting(default, help: str, low: float | None = None, high: float | None = None, choices=None):  # noqa: A002
    """A field of RunSettings with its command-line help, bounds (inclusive) and choices."""
    return field(default=default, metadata={"help": help, "min": low, "max": high, "choices": choices})


@dataclass(frozen=True)
class RunSettings:
    """Every setting of a run: the protocol and its sizes, the episodes, how grading runs, and each request's
    options. `None` where a default depends on another setting (`rounds`, `task_timeout`) or means "not sent"."""

    protocol: str = setting("one-shot", "one-shot, feedback or agent (docs/agent.md).", choices="protocols")
    rounds: int | None = setting(
        None,
        f"Replies at most: feedback rounds (default {FEEDBACK_ROUNDS}) or agent turns (default {AGENT_TURNS}).",
        1,
        1000,
    )
    passes: int = setting(10, "Agent protocol: plays on training episodes (0: compute only).", 0, 1000)
    handoff: int = setting(
        0,
        "Agent protocol: a fresh conversation every N turns, with the model's notebook.md and its last candidate "
        "(0: never).",
        0,
        1000,
    )
    task_timeout: float | None = setting(
        None,
        "A task's wall-clock budget in seconds: past it no block runs and nothing more is asked, and the answer so "
        f"far is graded (status 'time limit'). Default: {AGENT_TASK_TIMEOUT_S:g} for the agent protocol, none (0) "
        "for the others.",
        0.0,
    )
    concurrency: int = setting(4, "Tasks in flight at once.", 1, 1000)
    episodes: int = setting(
        1000,
        "Held-out scoring episodes per task: its first N (MinAtar: episodes 0..N-1; SUPERBEAM: at most its 20 test "
        "levels).",
        1,
        MAX_EPISODES,
    )
    train_episodes: int = setting(
        100,
        "Training episodes per feedback round or agent play (disjoint from the scoring episodes; SUPERBEAM: its 10 "
        "training levels).",
        1,
        MAX_EPISODES,
    )
    samples: int = setting(
        1,
        "Independent replies per task, each graded; reported as their mean and as best-of-K, with intervals. Use a "
        "temperature above 0 (and no seed, or --seed) so that the replies differ.",
        1,
        1000,
    )
    engine: str = setting(
        "auto",
        "auto (default: compiled, or fast for a few episodes), compiled, fast or reference.",
        choices=ENGINES,
    )
    workers: int | None = setting(None, "Processes for grading (default: all cores).", 1, MAX_WORKERS)
    timeout: float = setting(600.0, "Seconds to wait for one reply.", 0.001)
    max_tries: int = setting(4, "Tries per request (rate limits, server errors, timeouts).", 1, 100)
    backoff: float = setting(2.0, "First retry wait in seconds (doubles each try).", 0.0, 3600.0)
    max_tokens: int | None = setting(None, "max_tokens sent with each request (default: not sent).", 1)
    temperature: float | None = setting(None, "temperature sent with each request (default: not sent).", 0.0)
    top_p: float | None = setting(None, "top_p sent with each request (default: not sent).", 0.0, 1.0)
    seed: int | None = setting(
        None, "seed sent with each request (default: not sent); reply k of a task (--samples) sends seed + k."
    )
    reasoning_effort: str | None = setting(
        None,
        "reasoning_effort sent with each request: low, medium or high (default: not sent).",
        choices=REASONING_EFFORTS,
    )
    extra_body: dict | None = setting(None, "A JSON object merged into each request body.")
    headers: dict | None = setting(None, "HTTP headers sent with each request (NAME: VALUE).")

    def __post_init__(self) -> None:
        for one in fields(self):
            check(one.name, getattr(self, one.name))

    @classmethod
    def of(cls, **given) -> RunSettings:
        """Settings from keywords, as `wspbench.evaluate` takes them: ValueError for a name that is no setting."""
        names = [one.name for one in fields(cls)]
        for name in given:
            if name not in names:
                near = difflib.get_close_matches(name, names, n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else ""
                raise ValueError(f"no run setting {name!r}{hint}; the settings are {', '.join(names)}")
        return cls(**given)

    @property
    def replies(self) -> int:
        """`rounds` as given, else the protocol's default (one-shot: 1)."""
        if self.protocol == "one-shot":
            return 1
        return self.rounds or (AGENT_TURNS if self.protocol == "agent" else FEEDBACK_ROUNDS)

    @property
    def budget_s(self) -> float:
        """`task_timeout` as given, else the protocol's default (0: none)."""
        return task_budget(self.protocol, self.task_timeout)

    def config(self) -> dict:
        """What of these settings decides a run's results: the RunConfig's fields (`harness/record.py`)."""
        return {
            "protocol": self.protocol,
            "rounds": self.replies,
            "episodes": self.episodes,
            "train_episodes": self.train_episodes,
            "engine": self.engine,
            "samples": self.samples,
            "passes": self.passes,
            "handoff": self.handoff,
            "task_timeout": self.budget_s,
        }

    def client_options(self) -> dict:
        """The request options, as the chat client takes them (`harness/clients.py`)."""
        return {
            "timeout_s": self.timeout,
            "max_tries": self.max_tries,
            "backoff_s": self.backoff,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "seed": self.seed,
            "reasoning_effort": self.reasoning_effort,
            "extra_body": self.extra_body,
            "headers": self.headers or {},
        }


def check(name: str, value) -> None:
    """ValueError unless `value` is a valid value of the setting `name` (its type, bounds and choices)."""
    one = next(f for f in fields(RunSettings) if f.name == name)
    meta, default = one.metadata, one.default if one.default is not MISSING else None
    if value is None:
        if default is not None:
            raise ValueError(f"{name} must be given (default {default!r})")
        return
    if name in ("extra_body", "headers"):
        if not isinstance(value, dict):
            raise ValueError(f"{name} must be a dict, not {type(value).__name__}")
        return
    kind = type(default) if default is not None else (str if meta["choices"] else float if "float" in one.type else int)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{name} must be a whole number, not {value!r:.40}")
    if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)):
        raise ValueError(f"{name} must be a finite number, not {value!r:.40}")
    choices = meta["choices"]
    if choices == "protocols":  # tasks/spec.py's, read when needed: `wsp --help` imports no numpy
        from wspbench.tasks.spec import PROTOCOLS as choices
    if choices is not None and value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r:.40}")
    low, high = meta["min"], meta["max"]
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"at most {high:,}" if low is None else f"from {low:,}" + (f" to {high:,}" if high is not None else "")
        raise ValueError(f"{name} must be {bounds}, not {value!r:.40}")


def task_budget(protocol: str, given: float | None) -> float:
    """A task's wall-clock budget in seconds (0: none): as given, else the protocol's default, which only the agent
    protocol has (its turns run code: up to 50 blocks of 60 s each)."""
    if given is not None:
        return float(given)
    return AGENT_TASK_TIMEOUT_S if protocol == "agent" else 0.0
