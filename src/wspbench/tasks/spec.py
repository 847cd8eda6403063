"""What every task is, whatever its family: the contract that commands, exports, records and reports read.

A task is a game, a network, an answer format and a score. A family (one module in this package, such as
`minatar.py` or `superbeam.py`) implements `Task` once for all of its tasks; nothing above this package
asks which family a task belongs to. `docs/architecture.md` shows how to add a family.

Episodes: a task plays numbered episodes (MinAtar: episode ids, whose seeds the game fixes; SUPERBEAM:
level seeds). `scoring_episodes(n)` are the held-out ones that a grade uses, `training_episodes(n)` the
disjoint ones that feedback rounds use.
"""

from __future__ import annotations

import hashlib
import json
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from wspbench import inputs
from wspbench.answers import Checked
from wspbench.answers.edits import MAX_ANSWER_CHARS, MAX_MESSAGE_CHARS, AnswerError
from wspbench.evaluation import DEFAULT, Grading
from wspbench.evaluation.executors import ExecutorError
from wspbench.inputs import BadValue
from wspbench.networks import Network, Weights, load_network
from wspbench.protocols import ONE_SHOT, Feedback, OneShot, Protocol
from wspbench.statistics import Sample, episodes_for, mean_interval, normalize, wilson

SKILLS = ("writing", "reading")  # what a task measures (`Task.skill`); every aggregate keeps them apart
OFFLINE_MODELS = ("reference", "zero", "trained", "reference-agent")  # built-in models that need no endpoint
SCORE_FORMAT = "wspbench.score/1"
MIN_CAP = 1e-9  # a cap measured on episodes (repair) is at least this
TRAINED_NETWORKS = "trained"  # wspbench.baselines' folder of the trained baseline's networks (<game>.<seed>.npz)
MAX_SCORE_EPISODES = 100_000  # the most episodes a stored Score may hold (`wsp run --episodes` allows as many)
MAX_SCORE_VALUE = 1e12  # no return, cap or episode value is larger in magnitude (a stored Score is checked)
RECORDED_WEIGHTS = 4096  # a run record keeps at most this many weights of an answer (`weights_record`)

__all__ = [
    "OFFLINE_MODELS",
    "AnswerError",
    "Checked",
    "Environment",
    "Facts",
    "Game",
    "GameTask",
    "Protocol",
    "Score",
    "Step",
    "Task",
    "prompt_hash",
    "safe_message",
    "weights_record",
]


@dataclass(frozen=True)
class Facts:
    """What every task states about itself, whatever its answer: what `wsp games`, the exports and the score's
    normalisation read. Each fact written once."""

    name: str  # the game the task is about: "breakout", "ferry", "superbeam"
    description: str  # one line
    score_cap: float  # the raw score that counts as 1.0
    max_steps: int  # the longest an episode can be, in `Score.lengths` (network decisions; 1 for a question)


@dataclass(frozen=True)
class Game(Facts):
    """A game that a task's network plays (`GameTask.game`): its facts, and what its prompt, replays and weight
    pictures say of its inputs, actions and source."""

    input_shape: tuple[int, ...]  # the network's inputs before flattening: (10, 10, 6) grid, (8,) features
    input_names: tuple[str, ...]  # names along the last axis: MinAtar's six channels, SUPERBEAM's features
    action_names: tuple[str, ...]
    source_path: str  # the game's source file as the prompt names it

    @property
    def grid(self) -> bool:
        """The inputs are a (rows, cols, channels) grid of cells (MinAtar), which is also the screen a replay
        draws and what weight pictures draw as channel maps; else named features (SUPERBEAM), whose screen is the
        machine's (rows, cols) pixels. Reports read this fact instead of guessing from a shape."""
        return len(self.input_shape) == 3


@dataclass(frozen=True)
class Public:
    """A task as a model may see it outside its prompt (`Task.public`)."""

    id: str
    game: str  # "" where the game is the answer
    description: str

    @property
    def slug(self) -> str:
        return slug_of(self.id)


@dataclass(frozen=True)
class Score:
    """One graded answer: what every command prints with --json, and what run records keep.

    `values` and `lengths` hold every episode's return (SUPERBEAM: 1.0 for a level won, else 0.0; repair: the
    return gained over the damaged network in that episode; identify: 1.0 for the right game) and length in
    decisions, in the order of `episodes`, so intervals never need the episodes played again.
    A rejected answer has `error` set, a normalised score of 0 and no episodes.
    `normalized` is clipped to [0, 1]; `unclipped` (raw / score_cap) says how far above the cap (or below 0) a
    reply scored, which the normalised score cannot show.
    """

    task: str
    normalized: float
    raw: float
    score_cap: float
    episodes: tuple[int, ...] = ()
    values: tuple[float, ...] = ()
    lengths: tuple[int, ...] = ()
    error: str | None = None
    metadata: dict = field(default_factory=dict)  # the family's own details (edit count, per-level causes...)
    seconds: float = 0.0
    episode_caps: tuple[float, ...] = ()  # per-episode caps whose mean is score_cap (repair), else empty

    @property
    def parsed(self) -> bool:
        return self.error is None

    @property
    def unclipped(self) -> float:
        """raw / score_cap, not clipped: 1.0 at the cap, above 1 for a reply that beats the player who set the cap
        (its normalised score shows 1.0), below 0 for a negative raw score (a repair worse than the damaged network).
        Equal to `normalized` where raw cannot leave [0, cap] (SUPERBEAM's levels won, identify). 0 for a rejected
        answer, as its normalised score, so that both enter means alike."""
        return 0.0 if self.error is not None else self.raw / self.score_cap

    @property
    def above_cap(self) -> bool:
        """The reply scored above its cap: its normalised score (1.0) hides by how much (`unclipped`)."""
        return self.unclipped > 1.0

    @property
    def mean_length(self) -> float:
        return float(np.mean(self.lengths)) if self.lengths else 0.0  # np.mean: the reference's rounding

    def interval(self) -> tuple[float, float]:
        """A 95% interval on the normalised score: normal approximation on the mean episode value, clipped and
        normalised like the score (a rejected answer: (0, 0)). Proportions use Wilson's interval."""
        n = len(self.values)
        if self.error is not None or n == 0:
            return 0.0, 0.0
        if self.episode_caps:  # paired with the cap, episode by episode: the mean difference, around the cap
            low, high = mean_interval([v - c for v, c in zip(self.values, self.episode_caps, strict=True)])
            return normalize(self.score_cap + low, self.score_cap), normalize(self.score_cap + high, self.score_cap)
        if all(v in (0.0, 1.0) for v in self.values) and self.score_cap == 1.0:
            return wilson(int(sum(self.values)), n)
        low, high = mean_interval(self.values)
        return normalize(low, self.score_cap), normalize(high, self.score_cap)

    def half_width(self) -> float:
        low, high = self.interval()
        return (high - low) / 2

    def episodes_for(self, half_width: float = 0.01, available: int | None = None) -> int | None:
        """Episodes (levels) needed for a 95% half-width of `half_width` on the normalised score; None when
        it cannot be said (one episode, or more than the `available` ones: `statistics.episodes_for`)."""
        if self.error is not None:
            return 0
        if self.episode_caps:  # the spread of the difference to the cap, as in `interval`
            return episodes_for(np.subtract(self.values, self.episode_caps), self.score_cap, half_width, available)
        return episodes_for(self.values, self.score_cap, half_width, available)

    def sample(self) -> Sample:
        """The episodes, for intervals over tasks (`wspbench/statistics.py`); a rejected answer has none."""
        if self.error is not None:
            return Sample((), self.score_cap)
        return Sample(self.values, self.score_cap, self.episodes, self.episode_caps)

    def to_json(self) -> dict:
        data = asdict(self)
        for key in ("episodes", "values", "lengths", "episode_caps"):
            data[key] = list(data[key])
        if not self.episode_caps:
            del data["episode_caps"]
        return {
            "format": SCORE_FORMAT,
            **data,
            "unclipped": self.unclipped,
            "mean_length": self.mean_length,
            "interval": list(self.interval()),
            "half_width": self.half_width(),
            "episodes_for_0.01": self.episodes_for(0.01),
        }

    @classmethod
    def from_json(cls, data: dict) -> Score:
        """A Score from `to_json`'s dict (extra keys are ignored: what it derives, such as `unclipped`, is computed
        again, so older JSON without it reads alike); ValueError, naming the field, for anything else: every field
        of its type, numbers finite and within MAX_SCORE_VALUE, at most MAX_SCORE_EPISODES episodes, one value and
        one length per episode, a graded answer's cap at least MIN_CAP (a stored Score is untrusted input)."""
        if not isinstance(data, dict) or data.get("format") != SCORE_FORMAT:
            raise ValueError("not a wspbench score")
        try:
            episodes = inputs.sized(data["episodes"], "episodes", list, MAX_SCORE_EPISODES)
            values, lengths = (inputs.sized(data[key], key, list, len(episodes)) for key in ("values", "lengths"))
            caps = inputs.sized(data.get("episode_caps") or [], "episode_caps", list, len(episodes))
            if not len(values) == len(lengths) == len(episodes) or len(caps) not in (0, len(episodes)):
                raise BadValue("episodes, values, lengths and episode_caps must have one item per episode")
            score = cls(
                task=inputs.text(data["task"], "task"),
                normalized=inputs.real(data["normalized"], "normalized", 0.0, 1.0),
                raw=inputs.real(data["raw"], "raw", -MAX_SCORE_VALUE, MAX_SCORE_VALUE),
                score_cap=inputs.real(data["score_cap"], "score_cap", -MAX_SCORE_VALUE, MAX_SCORE_VALUE),
                episodes=tuple(inputs.whole(e, "an episode", -(2**53), 2**53) for e in episodes),
                values=tuple(inputs.real(v, "a value", -MAX_SCORE_VALUE, MAX_SCORE_VALUE) for v in values),
                lengths=tuple(inputs.whole(n, "a length", 0, 10**9) for n in lengths),
                error=inputs.text(data.get("error"), "error", optional=True),
                metadata=dict(inputs.sized(data.get("metadata") or {}, "metadata", dict, 1000)),
                seconds=inputs.real(data.get("seconds") or 0.0, "seconds", 0.0, 1e9),
                episode_caps=tuple(inputs.real(c, "an episode cap", -MAX_SCORE_VALUE, MAX_SCORE_VALUE) for c in caps),
            )
            if score.error is None and score.score_cap < MIN_CAP:  # `unclipped` divides by it
                raise BadValue(f"score_cap must be at least {MIN_CAP:g} for a graded answer")
            return score
        except KeyError as error:
            raise ValueError(f"not a wspbench score: it has no {str(error.args[0])[:40]!r}") from None
        except BadValue as error:
            raise ValueError(f"not a wspbench score: {error}") from None


@dataclass(frozen=True)
class Step:
    """One network decision as `Task.watch` shows it (replays draw these)."""

    screen: np.ndarray  # (rows, cols, channels) 0/1 grid, or (rows, cols) 0/1 pixels
    logits: np.ndarray | None  # None on the closing step, after the episode ended
    action: int | None
    value: float  # the episode's return so far


class Environment(typing.Protocol):
    """One episode as a learner sees it (`Task.environment`)."""

    def observe(self) -> np.ndarray:
        """The network's inputs now (float64, `network.sizes[0]` of them)."""

    def act(self, action: int) -> tuple[float, bool]:
        """Take the action: the reward it brought and whether the episode is over."""

    def restart(self, episode: int) -> Environment:
        """Episode `episode`, exactly as `Task.environment(episode)` would give it (reusing objects is faster)."""


class Task(ABC):
    """One task. A family subclasses it once; the registry (`registry.py`) holds the instances."""

    id: str  # canonical: "original/breakout", "synth/ferry", "superbeam"
    network: Network
    answer_format: str  # the fenced block a reply ends with: "edits", "json"
    facts: Facts  # what the task states about itself (a game task's are its game's: `GameTask.game`)
    prompt_version: str  # bump when the prompt text changes (tests/tasks/test_prompts.py)
    default_episodes: int  # scoring episodes when none are given
    max_episodes: int  # how many held-out episodes exist (a larger count plays them all)
    protocols: tuple[str, ...] = (OneShot.name,)  # the protocols its prompt states (`wspbench/protocols/`)
    max_answer_chars: int = MAX_ANSWER_CHARS  # the longest reply `read` takes (every reader of answers bounds by it)
    breakdown: str | None = None  # the part of its family that reports give a mean of (repair: the damage kind)
    skill: str = "writing"  # "writing" (write weights that play) or "reading" (read given weights): never averaged
    private_set: Path | None = None  # the folder outside the package that grading reads (a private set's, loaded
    # through WSP_PRIVATE_SETS): exports carry it to their grader
    graded_networks: tuple[str, ...] = ()  # the shipped reading networks ("<game>.<seed>") its grader loads (a public
    # repair task's): a Harbor task's verifier wheel keeps these and no other (`reading_set.grading_file`)
    secret_episodes: tuple[int, int] | None = None  # (first, count): the episodes a run's secret draws held-out ones
    # from (`held_out_episodes`), apart from every scoring, training and calibration episode; None: the fixed ones
    episode_classes: int = 1  # drawn episodes take turns at this many kinds (superbeam/extended: its difficulties)

    @property
    def slug(self) -> str:
        """The id as a file or folder name: `original-breakout`, `superbeam`."""
        return slug_of(self.id)

    @property
    def family(self) -> str:
        """Its family, wherever tasks are grouped (`wsp games`, summaries and their family-weighted headlines,
        reports, records, exports): its id before the "/" (`original`, `synth`, `gen`, `superbeam`, `identify`,
        `identify-choice`, `repair`, a plugin family's name), tasks whose scores share one scale (docs/validity.md).
        One module of this package may make several families (`minatar.py`: original, synth and gen)."""
        return family_of(self.id)

    def public(self) -> Public:
        """What exports show a model of this task (Harbor names, `task.toml`, JSONL columns, Inspect samples,
        OpenEnv observations): its id, game and description. A task whose id or game names its answer (the
        reading families) overrides this with an opaque id (`opaque_id`) that the registry also resolves."""
        return Public(self.id, self.facts.name, self.facts.description)

    # --- the prompt ---------------------------------------------------------------------------------
    @abstractmethod
    def messages(self, protocol: Protocol = ONE_SHOT) -> list[dict]:
        """The opening conversation: a system and a user message."""

    def game_source(self) -> str:
        """The game's source as the prompt shows it; "" for a task whose prompt shows no game (identify)."""
        return ""

    def shown_network(self) -> Weights | None:
        """The network the prompt lists for the model to read (reading tasks), else None: the agent protocol gives
        it as .npy files instead of a listing (`tasks/agent.py`)."""
        return None

    # --- answers ------------------------------------------------------------------------------------
    @abstractmethod
    def read(self, text: str) -> tuple[Weights, dict]:
        """The weights in a reply and what a grade records about the answer itself (e.g. its edit count),
        or AnswerError with a message a model can act on. Bounded in time and memory for any text."""

    def check(self, text: str) -> Checked:
        """`read` that never raises: Checked(weights, about, None) for a usable reply, else Checked(None, {}, the
        message a rejection gives). Untrusted text gives an error message, never a crash."""
        try:
            weights, about = self.read(text)
        except AnswerError as error:
            return Checked(None, {}, str(error)[:MAX_MESSAGE_CHARS])
        except Exception as error:  # noqa: BLE001 - e.g. a parser bug on strange text: still a message
            return Checked(None, {}, f"the answer cannot be read: {safe_message(error)}")
        return Checked(weights, about, None)

    def parse(self, text: str) -> Weights:
        """The weights in a reply, or AnswerError."""
        return self.read(text)[0]

    def parse_feedback(self, error: str) -> str:
        """What a model is told after a reply without a usable answer (feedback protocol)."""
        return (
            f"I could not use that: {error}. Reply with your reasoning, then the complete network in one "
            f"```{self.answer_format} block."
        )

    def answer_record(self, weights: Weights) -> dict:
        """What a run record keeps of a usable reply's weights (default: every non-zero weight)."""
        return weights_record(weights)

    @abstractmethod
    def offline_answer(self, model: str) -> str | None:
        """The reply of a built-in offline model ("reference": the shipped program; "zero"), or None."""

    def offline_reply(self, model: str) -> str | None:
        """The reply of any built-in offline model (`OFFLINE_MODELS`): "trained" answers with the task's shipped
        PPO network (`trained_network`), the others as `offline_answer` says; None where the task has none."""
        if model == "trained":
            stored = self.trained_network()
            if stored is None:
                return None
            weights, about = stored
            return f"A network trained by PPO for {about['steps']:,} steps on training episodes.\n{self.write(weights)}"
        return self.offline_answer(model)

    def trained_network(self, seed: int = 0) -> tuple[Weights, dict] | None:
        """The shipped network trained by PPO for this task (`benchmarks/train.py`) and what its training did, or
        None (a reading task's networks are its reading set's, not a baseline's)."""
        return None

    def seed_game(self):
        """The MinAtar game whose writing task this is, in the seed grader's contract (`wspbench/verifier.py`), or
        None: a family whose tasks the seed grader grades says so here."""
        return None

    # --- scoring ------------------------------------------------------------------------------------
    @abstractmethod
    def scoring_episodes(self, count: int | None = None) -> list[int]:
        """The first min(`count`, max_episodes) held-out episodes (default `default_episodes`); ValueError for
        a count below 1."""

    def held_out_episodes(self, count: int | None = None, key: str | None = None) -> list[int]:
        """The held-out episodes of a grade: the first `count` scoring episodes, or with `key` (a task key of a run
        whose protocol draws them: `tasks/held_out.py`) as many drawn by it from `secret_episodes`."""
        from wspbench.tasks.held_out import draw

        fixed = self.scoring_episodes(count)
        if key is None or self.secret_episodes is None:
            return fixed
        return draw(key, len(fixed), *self.secret_episodes, self.episode_classes)

    def scoring_rule(self, count: int) -> str:
        """How the score is made, in words (exports describe a task with it)."""
        return (
            f"the mean value of {count} held-out episodes, normalised by the cap {self.facts.score_cap:g} "
            "(1.0 at the cap)"
        )

    @abstractmethod
    def results(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        """Each episode's value and length for these weights, and the family's metadata (what `score` averages).
        A family whose cap depends on the episodes (repair) also returns `episode_caps`, each episode's share of
        the cap, in the metadata. A game-playing task plays them (`GameTask.play`)."""

    def score(
        self,
        weights: Weights,
        episodes: Sequence[int] | None = None,
        grading: Grading = DEFAULT,
        metadata: dict | None = None,
    ) -> Score:
        """Play the episodes (default: the scoring ones) and score them: the mean value, normalised by the cap."""
        import time

        episodes = list(self.scoring_episodes() if episodes is None else episodes)
        started = time.perf_counter()
        values, lengths, details = self.results(weights, episodes, grading)
        raw = float(np.mean(values))  # the reference's rounding (pairwise summation)
        caps = tuple(float(c) for c in details.pop("episode_caps", ()))
        cap = max(float(np.mean(caps)), MIN_CAP) if caps else self.facts.score_cap
        return Score(
            self.id,
            normalize(raw, cap),
            raw,
            cap,
            tuple(episodes),
            tuple(float(v) for v in values),
            tuple(int(n) for n in lengths),
            metadata={**(metadata or {}), **details},
            seconds=round(time.perf_counter() - started, 3),
            episode_caps=caps,
        )

    def prepare(self, episodes: int, grading: Grading = DEFAULT) -> None:
        """Load, or the first time on a machine compile, what grading `episodes` episodes needs (a compiled
        engine), so that the seconds of the first grade are the grade's own: a run calls it before its tasks
        start (`harness/runs.py`). Most tasks need nothing."""
        return None

    def grade(
        self,
        text: str,
        episodes: Sequence[int] | None = None,
        grading: Grading = DEFAULT,
    ) -> Score:
        """Parse and score a reply. Never raises for a bad reply or a broken game: those are a Score with
        `error` (so one bad answer cannot stop a batch)."""
        return self.grade_checked(self.check(text), episodes, grading)

    def grade_checked(
        self,
        checked: Checked,
        episodes: Sequence[int] | None = None,
        grading: Grading = DEFAULT,
    ) -> Score:
        """`grade` of a reply that `check` has read already (a run reads each reply once)."""
        weights, about, error = checked
        if error is not None:
            return self.rejected(error)
        try:
            return self.score(weights, episodes, grading, about)
        except ExecutorError:  # the cluster failed, not the answer: the caller stops (exit 2)
            raise
        except Exception as error:  # noqa: BLE001 - a broken game module is a result, not a crash
            return self.rejected(f"evaluation failed: {safe_message(error)}")

    def rejected(self, error: str) -> Score:
        """A rejection, even when the game itself is broken (its cap cannot be read: cap 0 then)."""
        try:
            cap = self.facts.score_cap
        except Exception:  # noqa: BLE001 - the error being reported is usually this very failure
            cap = 0.0
        return Score(self.id, 0.0, 0.0, cap, error=error)

    # --- records and the suite ----------------------------------------------------------------------
    def seeds(self, protocol: Protocol = ONE_SHOT) -> dict:
        """The episodes a run with this protocol plays, for its manifest (drawn ones: where from, not which)."""
        episodes = self.scoring_episodes(protocol.episodes)
        if protocol.secret_held_out and self.secret_episodes is not None:
            first, size = self.secret_episodes
            return {
                "held_out": "drawn by the run's secret",
                "drawn_from": [first, first + size - 1],
                "count": len(episodes),
            }
        return {"scoring_episodes": [episodes[0], episodes[-1]], "count": len(episodes)}

    def calibration(self) -> dict[str, float]:
        """Measured normalised scores of reference players (e.g. {"zero": 0.0, "reference": 0.6}), if any."""
        return {}

    def optimal(self) -> float | None:
        """The best mean raw return known to be reachable on its calibration episodes (a hindsight bound: no policy
        does better), where one was measured; not part of the task (no digest reads it)."""
        return None

    def digest_facts(self) -> dict:
        """Everything that decides this task's scores, for `digest`: prompt, game source, facts, episodes, seeds."""
        return {
            "id": self.id,
            "prompt_version": self.prompt_version,
            "messages": self.messages(),
            "source": self.game_source(),
            "game": asdict(self.facts),
            "calibration": self.calibration(),
            "seeds": self.seeds(),
            "network": repr(self.network),
        }

    def digest(self) -> str:
        """A hash of `digest_facts`: two tasks with one digest score every answer alike."""
        return hashlib.sha256(json.dumps(self.digest_facts(), sort_keys=True).encode()).hexdigest()


class GameTask(Task):
    """A task whose answer is a network that plays a game: what replays, weight pictures, the trainer and the
    feedback protocol need beyond the core contract. MinAtar, SUPERBEAM and repair are game tasks; identify (whose
    answer names a game) is not."""

    game: Game
    protocols: tuple[str, ...] = (OneShot.name, Feedback.name)  # and the agent's where the family's prompt states it
    networks: Traversable | None = None  # where the game ships its own PPO networks (`<game>.<seed>.npz` and .json:
    # a generated game's, its reference), which the trained baseline then plays; None: the baseline's own folder

    @property
    def facts(self) -> Game:
        return self.game

    def trained_network(self, seed: int = 0) -> tuple[Weights, dict] | None:
        """The shipped network trained by PPO for this task's game with this seed (`benchmarks/train.py`, in
        `wspbench/baselines/trained/`; tasks of one game share it), or the game's own (`networks`: a generated
        game's reference), or None."""
        from importlib.resources import files

        folder = self.networks or files("wspbench.baselines") / TRAINED_NETWORKS
        return load_network(folder, f"{self.game.name}.{seed}", self.network)

    @abstractmethod
    def game_source(self) -> str:
        """The text of `game.source_path`, exactly as the prompt shows it."""

    @abstractmethod
    def play(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        """Play `episodes`: each one's value and length, and the family's metadata (see `Task.results`)."""

    def results(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        return self.play(weights, episodes, grading)

    @abstractmethod
    def watch(self, weights: Weights, episode: int, observe: Callable[[Step], None]) -> tuple[float, int, dict]:
        """Play one episode exactly as it is scored, calling `observe` before each decision and once after
        the end: its value, its length and the family's summary of how it ended."""

    def write(self, weights: Weights) -> str:
        """A reply that `read` turns back into exactly these weights (how trained networks become answers)."""
        raise NotImplementedError(f"{self.id}: this task cannot write an answer")

    @abstractmethod
    def training_episodes(self, count: int) -> list[int]:
        """Episodes disjoint from every scoring episode, for feedback rounds."""

    # --- feedback rounds ----------------------------------------------------------------------------
    def train_key(self, score: Score) -> tuple:
        """Orders candidates by training score (higher is better), then a tie-break."""
        return (score.normalized, score.raw)

    def perfect(self, score: Score) -> bool:
        """A training score that no reply can beat: the feedback protocol stops early."""
        return score.error is None and score.normalized >= 1.0

    def acting_actions(self) -> tuple[int, ...] | None:
        """The actions that do something in this task's game, or None (all, or not known): a trainer may leave
        the others out (`wspbench/baselines/ppo.py`)."""
        return None

    def potential(self, observations: np.ndarray) -> np.ndarray | None:
        """A shaping potential per row of network inputs, for a trainer that asks for one (`ppo.Budget.shaping`):
        training rewards gain gamma x potential(next) - potential(now), which leaves the best policy unchanged (Ng
        et al., 1999) and never enters a score. None: this task has none."""
        return None

    def environment(self, episode: int) -> Environment:
        """Episode `episode` as a learner steps through it (`wspbench/baselines/ppo.py`): the network's inputs and
        a reward after each action, in the game the score plays."""
        raise NotImplementedError(f"{self.id}: this task has no environment to train in")

    def environments(self, episodes: Sequence[int], count: int):
        """`count` of these episodes side by side for a learner, each slot taking the next one when its episode
        ends (the contract: `wspbench/tasks/environments.py`). A family with a faster batch overrides this."""
        from wspbench.tasks.environments import Lockstep

        return Lockstep(self.environment, episodes, count)

    @abstractmethod
    def feedback(self, score: Score) -> str:
        """What a model is told about a reply scored on training episodes (feedback protocol)."""

    def report(self, score: Score) -> str:
        """What a play on training episodes measured (agent protocol): the feedback without its request for a
        reply, where a family can tell them apart (ours do); else the feedback itself."""
        return self.feedback(score)

    def seeds(self, protocol: Protocol = ONE_SHOT) -> dict:
        """The episodes a run with this protocol plays, for its manifest."""
        return {**super().seeds(protocol), **protocol.seeds(self)}


def family_of(task_id: str) -> str:
    """The family a task id names before its "/" ("original", "synth"), or the whole id ("superbeam"): reports
    give means per family, since the families' scores are not on one scale (docs/validity.md)."""
    return task_id.split("/", 1)[0]


def opaque_id(task_id: str, salt: str) -> str:
    """`<group>/<12 hex>`: a task id that does not name the task's answer, for exports. Not a secret (anyone with
    the code can hash every public id); a private set (`reading_set.py`) is what keeps answers unseen."""
    return f"{family_of(task_id)}/{hashlib.sha256(f'{salt}:{task_id}'.encode()).hexdigest()[:12]}"


def slug_of(task_id: str) -> str:
    """A task id as a file or folder name (ids hold no "-" before the game, so this is reversible)."""
    return task_id.replace("/", "-")


def safe_message(error: BaseException, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`Type: message`, at most `limit` characters; never raises (some messages cannot be built)."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - e.g. an int too long to print
        text = ""
    text = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def prompt_hash(messages: list[dict]) -> str:
    """The hash a record keeps of the opening conversation (system and user message)."""
    return hashlib.sha256((messages[0]["content"] + "\n\x00\n" + messages[1]["content"]).encode()).hexdigest()


def weights_record(weights: Weights, base: Weights | None = None) -> dict:
    """Non-zero weights as [index..., value] rows, for run records (written programs are sparse); with `base`,
    the weights that differ from it ("changed": a repair reply's edits to the damaged network). More than
    RECORDED_WEIGHTS of them (a dense, trained network) are kept as their count and SHA-256 only: the reply that
    holds them is stored beside them, so a record keeps the answer once."""
    key = "nonzero" if base is None else "changed"
    shapes = {name: list(t.shape) for name, t in weights.items()}
    differ = {name: tensor != (0 if base is None else base[name]) for name, tensor in weights.items()}
    count = sum(int(mask.sum()) for mask in differ.values())
    if count > RECORDED_WEIGHTS:
        digest = hashlib.sha256()
        for name in sorted(weights):
            digest.update(name.encode() + np.ascontiguousarray(weights[name], dtype="<f8").tobytes())
        return {"format": f"{key} count", "shapes": shapes, "count": count, "sha256": digest.hexdigest()}
    rows = {
        name: [[*map(int, where), float(tensor[tuple(where)])] for where in np.argwhere(differ[name])]
        for name, tensor in weights.items()
    }
    return {"format": key, "shapes": shapes, key: rows}
