"""A run's settings in one place: its protocol (`wspbench/protocols/`: the protocol's own settings, their defaults,
bounds and help) and every other setting a run has, with its name, default, bound and check here.

`wsp run` declares its options from these (`wspbench/cli/app.py` `option`) and parses them into a RunSettings;
`wspbench.evaluate(..., **settings)` builds one from its keywords (`RunSettings.of`: an unknown name is an error,
never dropped). Both then start the run through `harness/runs.py` `start_run`, so they cannot drift
(`tests/harness/test_settings.py` walks `wsp run`'s options against these settings). What a run is of (the model,
the tasks, the run directory, the endpoint and its key's variable) and how the command line shows it (a dry run,
a limit, an executor) are not settings: they are the command's own.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import MISSING, dataclass, field, fields

from wspbench.evaluation import ENGINES
from wspbench.protocols import RUN_EPISODES, SETTINGS, OneShot, Protocol, make

REASONING_EFFORTS = ("low", "medium", "high")
MAX_WORKERS = 1024


def setting(default, help: str, low: float | None = None, high: float | None = None, choices=None):  # noqa: A002
    """A field of RunSettings with its command-line help, bounds (inclusive) and choices."""
    return field(default=default, metadata={"help": help, "min": low, "max": high, "choices": choices})


@dataclass(frozen=True)
class RunSettings:
    """Every setting of a run: its protocol (made by `wspbench.protocols.make`), how grading runs, and each
    request's options. `None` where a setting means "not sent"."""

    protocol: Protocol = field(default=OneShot(episodes=RUN_EPISODES), metadata={"protocol": True})
    concurrency: int = setting(4, "Tasks in flight at once.", 1, 1000)
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
        if not isinstance(self.protocol, Protocol):
            raise ValueError(f"protocol must be a Protocol (wspbench.protocols.make), not {self.protocol!r:.40}")
        for one in fields(self):
            if one.name != "protocol":
                check(one.name, getattr(self, one.name))

    @classmethod
    def of(cls, protocol: str = OneShot.name, **given) -> RunSettings:
        """Settings from keywords, as `wspbench.evaluate` takes them: the protocol's name and settings (given as None
        or left out: its defaults; `episodes`: RUN_EPISODES), and the others; ValueError for a name that is none."""
        own = [one.name for one in fields(cls) if one.name != "protocol"]
        for name in given:
            if name not in own and name not in SETTINGS:
                near = difflib.get_close_matches(name, [*own, *SETTINGS, "protocol"], n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else ""
                every = ", ".join(["protocol", *SETTINGS, *own])
                raise ValueError(f"no run setting {name!r}{hint}; the settings are {every}")
        chosen = {name: value for name, value in given.items() if name in SETTINGS}
        chosen["episodes"] = RUN_EPISODES if chosen.get("episodes") is None else chosen["episodes"]
        return cls(make(protocol, **chosen), **{name: value for name, value in given.items() if name in own})

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
    if choices is not None and value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, not {value!r:.40}")
    low, high = meta["min"], meta["max"]
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"at most {high:,}" if low is None else f"from {low:,}" + (f" to {high:,}" if high is not None else "")
        raise ValueError(f"{name} must be {bounds}, not {value!r:.40}")
