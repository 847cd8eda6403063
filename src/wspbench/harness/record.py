"""The run record: typed, versioned, and read by one reader (`read_manifest`, `read_task_record`), which the
harness, `wsp runs show/compare` and `wsp report` (through `wspbench/report/runs.py`) all use.

    Manifest     DIR/manifest.json: the RunConfig, the task ids, the suite, package versions, seeds
    TaskRecord   DIR/tasks/<task.slug>.json: one task's conversation, every reply once (with the errors of
                 the tries before it), parse errors, training Scores, the held-out Score, usage, timings;
                 with `--samples K`, reply k > 0 of a task is DIR/tasks/<task.slug>@<k>.json

A Score is stored as `Score.to_json()`: every episode's value and length, so an interval never needs the
episodes played again. What it derives (its interval, `unclipped`) is written for other readers of the file and
computed again on read, so such a field added needs no new schema. A reply is stored once (its round's `weights`
keep a dense answer's count and digest, not every weight: the reply holds them), as UTF-8 (`encode`).

A record's size is bounded where it is written, not where it is read: a task stores at most MAX_TASK_TEXT_BYTES
of reply text (`TextBudget`: a reply past it is stored cut to what fits, graded as stored, and its round's `cut`
says why), and `fit` keeps a record under MAX_WRITE_BYTES by dropping, with a recorded reason, what can be rebuilt
or is not graded (block code and output, then the candidates and replies of rounds that were not graded), so the
reader's MAX_RECORD_BYTES always takes what a run wrote.

Files of another schema are refused (`OtherSchema`), never read as if they were this one; a file that is not a
record at all is a `RecordError`.

Records are untrusted input (a disk, an editor, another tool): each reader checks every field against its type
and bounds (numbers finite and in range, `best_round` one of the rounds, token counts whole numbers, lists no
longer than MAX_ROUNDS, MAX_SAMPLES, MAX_TASKS... allow, a Score at most MAX_SCORE_EPISODES episodes) and
raises RecordError naming the field, so no reader downstream meets a value it cannot use.
"""

from __future__ import annotations

import json
import reprlib
from dataclasses import asdict, dataclass, field, fields, replace

from wspbench import inputs, protocols
from wspbench.inputs import BadValue
from wspbench.protocols import RUN_EPISODES, SETTINGS, OneShot, Protocol
from wspbench.protocols.agent import BLOCKS, MAX_BLOCKS
from wspbench.protocols.conversation import Block
from wspbench.tasks import held_out
from wspbench.tasks.spec import MAX_SCORE_EPISODES, Score, slug_of
from wspbench.words import count

SCHEMA_VERSION = 5  # 5: held-out episodes drawn by a secret (RunConfig.held_out, TaskRecord.held_out_key); 4: UTF-8,
# Round.cut and TaskRecord.dropped; 3: agent turns (passes, handoff, Round.blocks)
READABLE_SCHEMAS = (2, 3, 4, 5)  # an older file is a newer one without the newer fields
HELD_OUT = ("fixed", "secret")  # a run's held-out episodes: the tasks' fixed ones, or drawn by its secret
MANIFEST_FORMAT = "wspbench.run"
RECORD_FORMAT = "wspbench.run.task"
OLD_FORMATS = ("wspbench.harness.run/1", "wspbench.harness.task/1")  # schema 1, before the task registry
STATUSES = ("running", "ok", "error", "time limit")  # time limit: its budget ran out; graded as "ok" is
TIME_LIMIT = "time limit"
CORRUPT = "corrupt"  # not written: the status a reader gives a record file it cannot read (it scores 0)
MAX_RECORD_BYTES = 128 * 2**20  # a record or manifest file; larger ones are refused unread
MAX_WRITE_BYTES = 120 * 2**20  # a record as written (`fit`): under what the reader takes
MAX_TASK_TEXT_BYTES = 64 * 2**20  # the UTF-8 bytes of one task's reply texts (content and reasoning) stored
MAX_ROUNDS = 1000  # `wsp run --rounds` allows as many
MAX_SAMPLES = 1000  # `wsp run --samples` allows as many
MAX_TASKS = 10_000  # task ids in one manifest
MAX_REPLIES = 1_000_000  # tasks x samples of one manifest: what a reader loops over
MAX_ITEMS = 10_000  # messages, retries, usage or timing entries of one record
MAX_SECONDS = 1e9
MAX_TOKENS = 10**15
MAX_PASSES = 1000  # `wsp run --passes` allows as many


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
    Built once from the run's settings (`harness/runs.py` `run_config`): its protocol (`wspbench/protocols/`) and
    what the client says it is. Its JSON keeps the protocol's settings beside the others, as schemas 2 to 4 did."""

    model: str
    kind: str = "offline"  # "offline" or "openai"
    endpoint: str | None = None  # without credentials
    request_params: dict = field(default_factory=dict)
    protocol: Protocol = OneShot(episodes=RUN_EPISODES)
    engine: str = "auto"
    samples: int = 1  # independent replies per task (`wsp run --samples K`)
    held_out: str | None = None  # "fixed" or "secret" (`wspbench/tasks/held_out.py`); None: the protocol's

    def __post_init__(self) -> None:
        if self.held_out is None:
            object.__setattr__(self, "held_out", "secret" if self.protocol.secret_held_out else "fixed")
        elif self.held_out not in HELD_OUT:
            raise ValueError(f"held_out must be one of {', '.join(HELD_OUT)}, not {self.held_out!r:.40}")

    def differences(self, other: RunConfig) -> list[str]:
        """The settings that differ, as `name=mine (not theirs)` texts (short: a manifest is untrusted)."""
        mine, theirs = self.to_json(), other.to_json()
        return [
            f"{name}={reprlib.repr(mine[name])}, not {reprlib.repr(theirs.get(name))}"
            for name in mine
            if mine[name] != theirs.get(name)
        ]

    def to_json(self) -> dict:
        settings = self.protocol.to_json()
        return {
            "model": self.model,
            "kind": self.kind,
            "endpoint": self.endpoint,
            "request_params": self.request_params,
            **{key: settings[key] for key in ("protocol", "rounds", "episodes", "train_episodes")},
            "engine": self.engine,
            "samples": self.samples,
            **{key: settings[key] for key in ("passes", "handoff", "task_timeout")},
            "held_out": self.held_out,
        }

    @classmethod
    def from_json(cls, data) -> RunConfig:
        if not isinstance(data, dict):
            raise RecordError("its config is not a dict")
        # added after schema 2; a run before schema 5 graded every protocol on the fixed episodes
        data = {"samples": 1, "passes": 0, "handoff": 0, "task_timeout": 0.0, "held_out": "fixed", **data}
        needed = ("model", "kind", "endpoint", "request_params", "protocol", "engine", *SETTINGS)
        missing = [name for name in needed if name not in data]
        if missing:
            raise RecordError(f"its config lacks {', '.join(missing)}")
        try:
            known = protocols.names()
            if data["protocol"] not in known:
                raise BadValue(f"protocol must be one of {', '.join(known)}, not {inputs.shown(data['protocol'])}")
            given = {
                "rounds": inputs.whole(data["rounds"], "rounds", 1, MAX_ROUNDS),
                "episodes": inputs.whole(data["episodes"], "episodes", 1, MAX_SCORE_EPISODES),
                "train_episodes": inputs.whole(data["train_episodes"], "train_episodes", 0, MAX_SCORE_EPISODES),
                "passes": inputs.whole(data["passes"], "passes", 0, MAX_PASSES),
                "handoff": inputs.whole(data["handoff"], "handoff", 0, MAX_ROUNDS),
                "task_timeout": inputs.real(data["task_timeout"], "task_timeout", 0.0, MAX_SECONDS),
            }
            kind = protocols.get(data["protocol"])  # the settings it lacks hold their "off" values (rounds 1...)
            try:
                protocol = protocols.make(
                    kind.name, **{key: value for key, value in given.items() if key in kind.settings}
                )
            except ValueError as error:
                raise BadValue(str(error)) from None
            return cls(
                inputs.text(data["model"], "model"),
                inputs.text(data["kind"], "kind"),
                inputs.text(data["endpoint"], "endpoint", optional=True),
                dict(inputs.sized(data["request_params"], "request_params", dict, MAX_ITEMS)),
                protocol,
                inputs.text(data["engine"], "engine"),
                inputs.whole(data["samples"], "samples", 1, MAX_SAMPLES),
                inputs.choice(data["held_out"], "held_out", HELD_OUT),
            )
        except BadValue as error:
            raise RecordError(f"config.{error}") from None


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
        config = RunConfig.from_json(data.get("config"))
        try:
            tasks = inputs.sized(data.get("tasks"), "tasks", list, MAX_TASKS)
            if len(set(map(str, tasks))) != len(tasks):
                raise BadValue("tasks names a task more than once")
            if len(tasks) * config.samples > MAX_REPLIES:
                raise BadValue(
                    f"{count(len(tasks), 'task')} x {count(config.samples, 'sample')} are more than {MAX_REPLIES:,}"
                )
            return cls(
                config,
                [inputs.text(t, "a task id") for t in tasks],
                dict(inputs.sized(data.get("suite"), "suite", dict, MAX_ITEMS)),
                dict(inputs.sized(data.get("packages") or {}, "packages", dict, MAX_ITEMS)),
                dict(inputs.sized(data.get("seeds") or {}, "seeds", dict, MAX_TASKS)),
                dict(inputs.sized(data.get("prompt_versions") or {}, "prompt_versions", dict, MAX_TASKS)),
                inputs.text(data.get("api_key_env"), "api_key_env", optional=True),
                inputs.text(data.get("created_at") or "", "created_at"),
            )
        except BadValue as error:
            raise RecordError(str(error)) from None


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
        """BadValue (or KeyError) for anything but `to_json`'s dict."""
        inputs.sized(data, "a reply", dict, MAX_ITEMS)
        return cls(
            inputs.text(data["content"], "a reply's content"),
            inputs.text(data.get("reasoning"), "a reply's reasoning", optional=True),
            inputs.text(data.get("finish_reason"), "a reply's finish_reason", optional=True),
            usage(data.get("usage"), "a reply's usage", whole_tokens=False),
            inputs.real(data.get("latency_s", 0.0), "a reply's latency_s", 0.0, MAX_SECONDS),
            inputs.whole(data.get("attempts", 1), "a reply's attempts", 0, MAX_ITEMS),
            inputs.text(data.get("model"), "a reply's model", optional=True),
            [inputs.text(r, "a retry") for r in inputs.sized(data.get("retries", []), "retries", list, MAX_ITEMS)],
        )


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
    blocks: list[Block] = field(default_factory=list)  # agent: the reply's blocks, each with its output and cost
    handoff: bool = False  # agent: a fresh conversation followed this reply
    cut: str | None = None  # why the stored (and graded) reply is shorter than the one received (`TextBudget`)

    @property
    def answer(self) -> str | None:
        """The answer the round gave: its reply's text (content, else reasoning), or an agent round's last usable
        candidate (its submitted one first)."""
        offered = [b for b in self.blocks if b.candidate is not None and b.status != "unusable"]
        submitted = [b for b in offered if b.status == "submitted"]
        if offered:
            return (submitted or offered)[-1].candidate
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
            "blocks": [block_json(b) for b in self.blocks],
            "handoff": self.handoff,
            "cut": self.cut,
        }

    @classmethod
    def from_json(cls, data) -> Round:
        """BadValue (or KeyError, ValueError for its Score) for anything but `to_json`'s dict."""
        inputs.sized(data, "a round", dict, MAX_ITEMS)
        source = data.get("answer_source") or "content"
        if source not in ("content", "reasoning"):
            raise BadValue(f"answer_source must be content or reasoning, not {inputs.shown(source)}")
        weights, train = data.get("weights"), data.get("train")
        return cls(
            inputs.whole(data["round"], "a round's number", 1, MAX_ROUNDS),
            Reply.from_json(data["reply"]),
            source,
            inputs.text(data.get("parse_error"), "parse_error", optional=True),
            None if weights is None else inputs.sized(weights, "weights", dict, MAX_ITEMS),
            None if train is None else Score.from_json(train),
            inputs.text(data.get("feedback"), "feedback", optional=True),
            _flag(data.get("reused", False), "reused"),
            _flag(data.get("truncated", False), "truncated"),
            [read_block(b) for b in inputs.sized(data.get("blocks", []), "blocks", list, MAX_BLOCKS)],
            _flag(data.get("handoff", False), "handoff"),
            inputs.text(data.get("cut"), "cut", optional=True),
        )


def block_json(block: Block) -> dict:
    return {
        "kind": block.kind,
        "body": block.body,
        "status": block.status,
        "output": block.output,
        "seconds": block.seconds,
        "passes": block.passes,
        "train": None if block.train is None else block.train.to_json(),
        "candidate": block.candidate,
    }


def read_block(data) -> Block:
    """BadValue (or KeyError, ValueError for its Score) for anything but `block_json`'s dict."""
    inputs.sized(data, "a block", dict, MAX_ITEMS)
    if data["kind"] not in BLOCKS:
        raise BadValue(f"a block's kind must be one of {', '.join(BLOCKS)}, not {inputs.shown(data['kind'])}")
    train = data.get("train")
    return Block(
        data["kind"],
        inputs.text(data["body"], "a block's body"),
        inputs.text(data["status"], "a block's status"),
        inputs.text(data["output"], "a block's output"),
        inputs.real(data["seconds"], "a block's seconds", 0.0, MAX_SECONDS),
        inputs.whole(data["passes"], "a block's passes", 0, 1),
        None if train is None else Score.from_json(train),
        inputs.text(data.get("candidate"), "a block's candidate", optional=True),
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
    held_out_key: str | None = None  # the key that drew `test`'s episodes (`tasks/held_out.py`), once graded
    usage: dict | None = None
    timings: dict = field(default_factory=dict)  # model_s, grading_s, total_s
    started_at: str = ""
    finished_at: str | None = None
    dropped: list[str] = field(default_factory=list)  # what `fit` left out of the file, and why

    @classmethod
    def corrupt(cls, task_id: str, sample: int, reason: str) -> TaskRecord:
        """What a reader makes of a record file it cannot read: counted, with a score of 0, never pending."""
        return cls(task=task_id, model="", protocol="", sample=sample, status=CORRUPT, error=reason)

    @property
    def counted(self) -> bool:
        """Whether the record's held-out score counts in a mean: finished ("ok"), or a file that cannot be read
        (0), which is never left out as if the task had not run."""
        return self.status in ("ok", TIME_LIMIT, CORRUPT)

    @property
    def test_score(self) -> float | None:
        if self.status == CORRUPT:
            return 0.0
        return None if self.test is None else self.test.normalized

    @property
    def test_unclipped(self) -> float | None:
        """The held-out Score's `unclipped` (raw / cap), as `test_score` is its normalised score."""
        if self.status == CORRUPT:
            return 0.0
        return None if self.test is None else self.test.unclipped

    @property
    def train_score(self) -> float | None:
        """The training score of the graded round (feedback protocol), or the last play up to it (agent)."""
        best = self.graded_round
        if best is None or best.train is not None:
            return None if best is None else best.train.normalized
        played = [b.train for r in self.rounds[: self.best_round] for b in r.blocks if b.train is not None]
        return played[-1].normalized if played else None

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

    @property
    def passes(self) -> int:
        """Plays used (agent)."""
        return sum(b.passes for r in self.rounds for b in r.blocks)

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
            rounds = [Round.from_json(r) for r in inputs.sized(data["rounds"], "rounds", list, MAX_ROUNDS)]
            best, test = data.get("best_round"), data.get("test")
            if data.get("status") not in STATUSES:
                raise BadValue(f"status must be one of {', '.join(STATUSES)}, not {inputs.shown(data.get('status'))}")
            messages = inputs.sized(data.get("messages", []), "messages", list, MAX_ITEMS)
            if not all(isinstance(m, dict) for m in messages):
                raise BadValue("messages must be a list of dicts")
            timings = inputs.sized(data.get("timings", {}), "timings", dict, MAX_ITEMS)
            if data["status"] in ("ok", TIME_LIMIT) and test is None:  # graded: readers count its score
                raise BadValue("a finished (ok) record must hold its held-out Score (test)")
            return cls(
                task=inputs.text(data["task"], "task"),
                model=inputs.text(data["model"], "model"),
                protocol=inputs.text(data["protocol"], "protocol"),
                max_rounds=inputs.whole(data.get("max_rounds", 1), "max_rounds", 1, MAX_ROUNDS),
                sample=inputs.whole(data.get("sample", 0), "sample", 0, MAX_SAMPLES - 1),
                family=inputs.text(data.get("family"), "family", optional=True),
                prompt_version=inputs.text(data.get("prompt_version"), "prompt_version", optional=True),
                prompt_sha256=inputs.text(data.get("prompt_sha256"), "prompt_sha256", optional=True),
                suite=dict(inputs.sized(data.get("suite", {}), "suite", dict, MAX_ITEMS)),
                seeds=dict(inputs.sized(data.get("seeds", {}), "seeds", dict, MAX_ITEMS)),
                messages=list(messages),
                rounds=rounds,
                status=data["status"],
                error=inputs.text(data.get("error"), "error", optional=True),
                failed_tries=[
                    inputs.text(t, "a failed try")
                    for t in inputs.sized(data.get("failed_tries", []), "failed_tries", list, MAX_ITEMS)
                ],
                best_round=None if best is None else inputs.whole(best, "best_round", 1, max(1, len(rounds))),
                test=None if test is None else Score.from_json(test),
                held_out_key=_key(data.get("held_out_key")),
                usage=usage(data.get("usage"), "usage"),
                timings={str(k): inputs.real(v, f"timings.{k:.40}", 0.0, MAX_SECONDS) for k, v in timings.items()},
                started_at=inputs.text(data.get("started_at", ""), "started_at"),
                finished_at=inputs.text(data.get("finished_at"), "finished_at", optional=True),
                dropped=[
                    inputs.text(d, "a dropped note")
                    for d in inputs.sized(data.get("dropped", []), "dropped", list, MAX_ITEMS)
                ],
            )
        except KeyError as error:
            raise RecordError(f"it has no {str(error.args[0])[:40]!r}") from None
        except (BadValue, ValueError) as error:  # ValueError: a Score's, already naming the field
            raise RecordError(str(error)[:300]) from None


def encode(data) -> bytes:
    """A record's JSON as UTF-8 (not ASCII-escaped: six bytes for each "é"). A lone surrogate, which UTF-8
    cannot hold, is written as its JSON escape (it can only occur inside a string), so it reads back as itself."""
    text = json.dumps(data, ensure_ascii=False, indent=1, default=_jsonable)
    return text.encode("utf-8", "backslashreplace")


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def text_bytes(text: str | None) -> int:
    return 0 if text is None else len(text.encode("utf-8", "surrogatepass"))


class TextBudget:
    """The reply text one task may still store (MAX_TASK_TEXT_BYTES in all). A reply past it is cut to what fits
    before anything reads it, so what is stored, graded and replayed on resume is the same text."""

    def __init__(self, rounds: list[Round], limit: int = MAX_TASK_TEXT_BYTES):
        self.left = limit - sum(text_bytes(r.reply.content) + text_bytes(r.reply.reasoning) for r in rounds)

    def take(self, reply: Reply) -> tuple[Reply, str | None]:
        """The reply as it may be stored, and why it was cut (None: whole)."""
        size = text_bytes(reply.content) + text_bytes(reply.reasoning)
        if size <= self.left:
            self.left -= size
            return reply, None
        reason = (
            f"the task's replies reached the record's limit of {MAX_TASK_TEXT_BYTES:,} bytes: this reply's "
            f"{size:,} bytes were cut to the {max(self.left, 0):,} that fit"
        )
        content = _head(reply.content, max(self.left, 0))
        reasoning = _head(reply.reasoning, max(self.left, 0) - text_bytes(content))
        self.left = 0
        return replace(reply, content=content, reasoning=reasoning or None), reason


def _head(text: str | None, size: int) -> str:
    """The longest start of `text` of at most `size` UTF-8 bytes."""
    if not text or size <= 0:
        return ""
    return text.encode("utf-8", "surrogatepass")[:size].decode("utf-8", "ignore")


def fit(record: TaskRecord, limit: int = MAX_WRITE_BYTES) -> bytes:
    """The record's file, at most `limit` bytes. When it would be larger, what can be rebuilt or was not graded
    is left out, step by step, each step named in `record.dropped`: agent blocks' code and output (the code is in
    the reply), then the candidates of rounds that were not graded, then those rounds' replies (only in a
    finished record: a running task replays its stored replies on resume). ValueError if it still does not fit."""
    data = encode(record.to_json())
    graded = record.best_round
    steps = [
        ("agent blocks' code and output", lambda r: any(b.body or b.output for b in r.blocks), _drop_block_text),
        ("candidates of rounds not graded", lambda r: r.number != graded and r.blocks, _drop_candidates),
    ]
    if record.status != "running":
        steps.append(("replies of rounds not graded", lambda r: r.number != graded, _drop_reply))
    for what, applies, drop in steps:
        if len(data) <= limit:
            break
        for entry in record.rounds:
            if applies(entry):
                drop(entry)
        record.dropped.append(f"{what}: the record was {len(data):,} bytes, more than {limit:,}")
        data = encode(record.to_json())
    if len(data) > limit:
        raise ValueError(f"the record of {record.task} is {len(data):,} bytes even without what can be dropped")
    return data


def _drop_block_text(entry: Round) -> None:
    entry.blocks = [replace(b, body="", output="") for b in entry.blocks]


def _drop_candidates(entry: Round) -> None:
    entry.blocks = [replace(b, candidate=None) for b in entry.blocks]


def _drop_reply(entry: Round) -> None:
    entry.reply = replace(entry.reply, content="", reasoning=None)
    entry.cut = "dropped from the file: the record was too large (this round was not graded)"


def usage(data, what: str, whole_tokens: bool = True) -> dict | None:
    """Token counts as clients store them (`harness/clients.py` `_usage`): None, or a dict of finite numbers
    (and of dicts of them one level down); `*tokens` counts not negative, and whole in a record's totals
    (`whole_tokens`; a reply keeps what its server sent). BadValue otherwise."""
    if data is None:
        return None
    for key, value in inputs.sized(data, what, dict, MAX_ITEMS).items():
        inner = inputs.sized(value, f"{what}.{key:.40}", dict, MAX_ITEMS) if isinstance(value, dict) else {"": value}
        for name, number in inner.items():
            label = f"{what}.{key:.40}" + (f".{name:.40}" if name else "")
            if str(name or key).endswith("tokens") and whole_tokens:
                inputs.whole(number, label, 0, MAX_TOKENS)
            elif str(name or key).endswith("tokens"):
                inputs.real(number, label, 0, MAX_TOKENS)
            else:
                inputs.real(number, label, -MAX_TOKENS, MAX_TOKENS)
    return data


def _key(value) -> str | None:
    if value is None:
        return None
    try:
        return held_out.checked(value)
    except ValueError as error:
        raise BadValue(f"held_out_key: {error}") from None


def _flag(value, what: str) -> bool:
    if not isinstance(value, bool):
        raise BadValue(f"{what} must be true or false, not {inputs.shown(value)}")
    return value


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
    if version not in READABLE_SCHEMAS or isinstance(version, bool):
        age = "a newer" if isinstance(version, int) and version > SCHEMA_VERSION else "another"
        raise OtherSchema(
            f"written by {age} wspbench (schema {str(version)[:20]}; this wspbench reads schema "
            f"{SCHEMA_VERSION}); it is kept as it is"
        )


def current_suite() -> dict:
    """The suite of the registered tasks (`registry.suite`, computed once per process)."""
    from wspbench.tasks import suite

    return suite().to_json()
