"""The run record: typed, versioned, and read by one reader (`read_manifest`, `read_task_record`), which the
harness, `wsp runs show/compare` and `wsp report` (through `wspbench/report/runs.py`) all use.

    Manifest     DIR/manifest.json: the RunConfig, the task ids, the suite, package versions, seeds
    TaskRecord   DIR/tasks/<task.slug>.json: one task's conversation, every reply once (with the errors of
                 the tries before it), parse errors, training Scores, the held-out Score, usage, timings;
                 with `--samples K`, reply k > 0 of a task is DIR/tasks/<task.slug>@<k>.json

A Score is stored as `Score.to_json()`: every episode's value and length, so an interval never needs the
episodes played again. Files of another schema are refused (`OtherSchema`), never read as if they were
this one; a file that is not a record at all is a `RecordError`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from wspbench.tasks.spec import Protocol, Score, slug_of

SCHEMA_VERSION = 2
MANIFEST_FORMAT = "wspbench.run"
RECORD_FORMAT = "wspbench.run.task"
OLD_FORMATS = ("wspbench.harness.run/1", "wspbench.harness.task/1")  # schema 1, before the task registry
STATUSES = ("running", "ok", "error")


class RecordError(ValueError):
    """A file that is not a record of this schema; the message names what is wrong."""


class OtherSchema(RecordError):
    """A record written by another version of wspbench: refused, never misread (and never deleted)."""


def slug(task_id: str, sample: int = 0) -> str:
    """The file name of a task's record (of its reply `sample`), from its id alone (a record may name a task
    this wspbench lacks)."""
    return slug_of(task_id) + (f"@{sample}" if sample else "")


@dataclass(frozen=True)
class RunConfig:
    """The options that decide a run's results: the manifest's settings and the key a resumed run must match.
    Built once from the command line (`wspbench/cli/runs.py`)."""

    model: str
    kind: str = "offline"  # "offline" or "openai"
    endpoint: str | None = None  # without credentials
    request_params: dict = field(default_factory=dict)
    protocol: str = "one-shot"
    rounds: int = 1
    episodes: int = 1000  # held-out scoring episodes per task (the task's first N)
    train_episodes: int = 0  # per feedback round
    engine: str = "auto"
    samples: int = 1  # independent replies per task (`wsp run --samples K`)

    def __post_init__(self) -> None:
        Protocol(self.protocol)  # ValueError for an unknown protocol
        if self.protocol != "feedback":  # a one-shot run has one round and no training episodes
            object.__setattr__(self, "rounds", 1)
            object.__setattr__(self, "train_episodes", 0)

    @property
    def protocol_spec(self) -> Protocol:
        return Protocol(self.protocol, self.rounds, self.episodes, self.train_episodes)

    def differences(self, other: RunConfig) -> list[str]:
        """The settings that differ, as `name=mine (not theirs)` texts."""
        return [
            f"{f.name}={getattr(self, f.name)!r}, not {getattr(other, f.name)!r}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(other, f.name)
        ]

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data) -> RunConfig:
        names = {f.name for f in fields(cls)}
        if isinstance(data, dict):
            data = {"samples": 1, **data}  # added after schema 2 was first written: one reply per task
        if not isinstance(data, dict) or not names <= set(data):
            raise RecordError("its config lacks settings")
        config = cls(**{name: data[name] for name in names})
        if not (
            isinstance(config.model, str)
            and isinstance(config.request_params, dict)
            and all(
                isinstance(getattr(config, n), int) and not isinstance(getattr(config, n), bool)
                for n in ("rounds", "episodes", "train_episodes", "samples")
            )
            and config.samples >= 1
        ):
            raise RecordError("its config has settings of the wrong type")
        return config


@dataclass
class Manifest:
    """A run: its config, its tasks (in order), the suite and packages it ran with, each task's seeds."""

    config: RunConfig
    tasks: list[str]
    suite: dict  # registry.suite().to_json()
    packages: dict = field(default_factory=dict)
    seeds: dict = field(default_factory=dict)  # task id -> task.seeds(protocol)
    prompt_versions: dict = field(default_factory=dict)  # task id -> task.prompt_version
    api_key_env: str | None = None  # the NAME of the key's variable, never the key
    created_at: str = ""

    def to_json(self) -> dict:
        return {
            "format": MANIFEST_FORMAT,
            "schema_version": SCHEMA_VERSION,
            "config": self.config.to_json(),
            "tasks": list(self.tasks),
            "suite": self.suite,
            "packages": self.packages,
            "seeds": self.seeds,
            "prompt_versions": self.prompt_versions,
            "api_key_env": self.api_key_env,
            "created_at": self.created_at,
        }

    @classmethod
    def from_json(cls, data) -> Manifest:
        check_schema(data, MANIFEST_FORMAT, "manifest")
        try:
            tasks = data["tasks"]
            if not (isinstance(tasks, list) and all(isinstance(t, str) for t in tasks)):
                raise RecordError("its task list is not a list of ids")
            return cls(
                RunConfig.from_json(data["config"]),
                list(tasks),
                dict(data["suite"]),
                dict(data.get("packages") or {}),
                dict(data.get("seeds") or {}),
                dict(data.get("prompt_versions") or {}),
                data.get("api_key_env"),
                str(data.get("created_at") or ""),
            )
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RecordError(f"an incomplete run manifest ({type(error).__name__}: {str(error)[:200]})") from None


@dataclass
class Reply:
    """One model reply, what it cost, and the error of every failed try before it."""

    content: str
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: dict | None = None
    latency_s: float = 0.0
    attempts: int = 1
    model: str | None = None
    retries: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data) -> Reply:
        reply = cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})
        if not (
            isinstance(reply.content, str)
            and isinstance(reply.reasoning, (str, type(None)))
            and isinstance(reply.usage, (dict, type(None)))
            and _number(reply.latency_s)
            and isinstance(reply.retries, list)
            and all(isinstance(r, str) for r in reply.retries)
        ):
            raise TypeError("a reply field has the wrong type")
        return reply


@dataclass
class Round:
    """One reply and what became of it: the text graded (content, else reasoning), its parse error or its
    weights, and in the feedback protocol its training Score and the feedback sent."""

    number: int
    reply: Reply
    answer_source: str = "content"
    parse_error: str | None = None
    weights: dict | None = None
    train: Score | None = None
    feedback: str | None = None
    reused: bool = False  # replayed from an earlier attempt, not asked (nor paid) again
    truncated: bool = False  # the reply stopped at the token limit (finish_reason "length")

    @property
    def answer(self) -> str | None:
        return self.reply.reasoning if self.answer_source == "reasoning" else self.reply.content

    def to_json(self) -> dict:
        return {
            "round": self.number,
            "reply": self.reply.to_json(),
            "answer_source": self.answer_source,
            "parse_error": self.parse_error,
            "weights": self.weights,
            "train": None if self.train is None else self.train.to_json(),
            "feedback": self.feedback,
            "reused": self.reused,
            "truncated": self.truncated,
        }

    @classmethod
    def from_json(cls, data) -> Round:
        return cls(
            int(data["round"]),
            Reply.from_json(data["reply"]),
            str(data.get("answer_source") or "content"),
            data.get("parse_error"),
            data.get("weights"),
            None if data.get("train") is None else Score.from_json(data["train"]),
            data.get("feedback"),
            bool(data.get("reused")),
            bool(data.get("truncated")),
        )


@dataclass
class TaskRecord:
    """One task of a run, complete (status "ok" or "error") or in progress ("running")."""

    task: str
    model: str
    protocol: str
    max_rounds: int = 1
    sample: int = 0  # which of the run's independent replies to this task (`wsp run --samples K`)
    family: str | None = None
    prompt_version: str | None = None
    prompt_sha256: str | None = None
    suite: dict = field(default_factory=dict)
    seeds: dict = field(default_factory=dict)
    messages: list[dict] = field(default_factory=list)  # prompts and feedback; {"role": "assistant", "round": n}
    rounds: list[Round] = field(default_factory=list)
    status: str = "running"
    error: str | None = None
    failed_tries: list[str] = field(default_factory=list)  # the errors of a request that got no reply at all
    best_round: int | None = None  # the round graded on the held-out episodes (None: no usable reply)
    test: Score | None = None  # the held-out Score
    usage: dict | None = None
    timings: dict = field(default_factory=dict)  # model_s, grading_s, total_s
    started_at: str = ""
    finished_at: str | None = None

    @property
    def test_score(self) -> float | None:
        return None if self.test is None else self.test.normalized

    @property
    def train_score(self) -> float | None:
        """The training score of the graded round (feedback protocol)."""
        best = self.graded_round
        return None if best is None or best.train is None else best.train.normalized

    @property
    def graded_round(self) -> Round | None:
        if self.best_round is None or not 1 <= self.best_round <= len(self.rounds):
            return None
        return self.rounds[self.best_round - 1]

    @property
    def truncated_replies(self) -> int:
        """How many replies stopped at the token limit."""
        return sum(r.truncated for r in self.rounds)

    @property
    def parse_errors(self) -> list[str]:
        return [r.parse_error for r in self.rounds if r.parse_error]

    def to_json(self) -> dict:
        data = {"format": RECORD_FORMAT, "schema_version": SCHEMA_VERSION}
        for f in fields(self):
            data[f.name] = getattr(self, f.name)
        data["rounds"] = [r.to_json() for r in self.rounds]
        data["test"] = None if self.test is None else self.test.to_json()
        return data

    @classmethod
    def from_json(cls, data) -> TaskRecord:
        check_schema(data, RECORD_FORMAT, "task record")
        try:
            record = cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})
            record.rounds = [Round.from_json(r) for r in data["rounds"]]
            record.test = None if data.get("test") is None else Score.from_json(data["test"])
            if not (
                isinstance(record.task, str)
                and isinstance(record.sample, int)
                and record.status in STATUSES
                and isinstance(record.timings, dict)
                and isinstance(record.messages, list)
            ):
                raise TypeError("a field has the wrong type")
        except RecordError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise RecordError(f"an incomplete task record ({type(error).__name__}: {str(error)[:200]})") from None
        return record


def check_schema(data, format_name: str, what: str) -> None:
    """RecordError unless `data` is a dict of this format and schema; OtherSchema for another version's."""
    if not isinstance(data, dict):
        raise RecordError(f"not a wspbench {what}")
    found = data.get("format")
    if found in OLD_FORMATS:
        raise OtherSchema(
            f"written by an older wspbench (format {found}, schema 1; this wspbench reads schema "
            f"{SCHEMA_VERSION}); it is kept as it is: read it with the wspbench that wrote it"
        )
    if found != format_name:
        raise RecordError(f"not a wspbench {what}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        age = "a newer" if isinstance(version, int) and version > SCHEMA_VERSION else "another"
        raise OtherSchema(
            f"written by {age} wspbench (schema {str(version)[:20]}; this wspbench reads schema "
            f"{SCHEMA_VERSION}); it is kept as it is"
        )


def current_suite() -> dict:
    """The suite of the registered tasks (`registry.suite`, computed once per process)."""
    from wspbench.tasks import suite

    return suite().to_json()


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
