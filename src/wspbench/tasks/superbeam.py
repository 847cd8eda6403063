"""The SUPERBEAM family: a CHIP-8 platformer played by an 8-16-6 ReLU network written as JSON. Episodes are
level seeds: training levels for feedback, held-out test levels for the score (the fraction of levels won;
mean progress breaks ties between training candidates). Three tasks: `superbeam`, the seed's 20 test levels
at difficulty 0.5; `superbeam/extended`, EXTENDED_PER_TIER held-out levels at each difficulty of TIERS
(the tiers take turns, so the first N levels cover all of them), reported per tier; and `superbeam/hard`,
HARD_TEST_COUNT levels of the hard generator (`superbeam.levels.generate_hard`), each kept only when a
search proves it winnable and no single action held throughout wins it (`hard_certificate`).

The answer is untrusted text, read by `wspbench/answers/json_network.py` (`parse_answer`): a JSON object of
W1, b1, W2, b2.

A network plays one level in `SuperBeamEnv(level, DIFFICULTY, frame_skip=FRAME_SKIP,
max_frames=MAX_FRAMES)`: before each step it reads the 8 features (`superbeam/features.py`) and takes
`argmax(W2 @ relu(W1 @ x + b1) + b2)` through `SUPERBEAM_NETWORK`. That loop is `SuperbeamTask.watch`;
`play` (what a grade runs) calls it once per level.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import cache, cached_property
from importlib.resources import files

import numpy as np

from wspbench.answers.json_network import MAX_ANSWER_CHARS, parse_answer, weights_json
from wspbench.evaluation import DEFAULT, Grading
from wspbench.networks import SUPERBEAM_NETWORK, Weights
from wspbench.protocols import BUILT_IN, ONE_SHOT, Protocol
from wspbench.statistics import wilson
from wspbench.tasks.spec import Game, GameTask, Score, Step, Task

PROMPT_VERSION = "superbeam-v1"
TRAIN_LEVELS = list(range(10))
TEST_LEVELS = list(range(1_000_000, 1_000_020))
DIFFICULTY = 0.5
TIERS = (0.3, 0.5, 0.7, 0.9)
EXTENDED_PER_TIER = 64
EXTENDED_LEVELS = list(range(2_000_000, 2_000_000 + EXTENDED_PER_TIER * len(TIERS)))
SECRET_LEVELS = (10_000_000, 2**30)  # (first, count): the held-out levels a run's secret draws (tasks/held_out.py)
FRAME_SKIP = 4
MAX_FRAMES = 600
TIMEOUT_CAUSE = "ran out of time (stuck: e.g. walking into a pipe wall, or standing still)"
REFERENCE_FILE = "superbeam_reference.json"  # in this package; its units' jobs are in its "notes"
HARD_PROMPT_VERSION = "superbeam-hard-v1"
HARD_TRAIN_FIRST, HARD_TEST_FIRST = 0, 3_000_000  # the first candidate seeds of the hard training and test levels
HARD_TEST_COUNT = 128
POOL_LEVELS = 32  # more levels than this play in the grading's worker processes
HARD_NODE_LIMIT = 100_000  # the certifying search's budget per level (`superbeam.physics.solve`)
HARD_FILE = "superbeam_hard.json"  # in this package: the kept hard levels and their certificates (`hard_levels`)

SYSTEM = (
    "You are a weight-space programmer. You write the weights of a small neural network directly, "
    "by reasoning about what each unit should compute. There is no training, no data and no "
    "gradient descent: the numbers you write are the final network."
)


class SuperbeamTask(GameTask):
    """SUPERBEAM at one difficulty: the registry's task plays DIFFICULTY; `at_difficulty` gives the same task
    on harder or easier levels (`wsp superbeam grade --difficulty`), which is not part of the suite."""

    id = "superbeam"
    network = SUPERBEAM_NETWORK
    answer_format = "json"
    protocols = BUILT_IN
    max_answer_chars = MAX_ANSWER_CHARS
    prompt_version = PROMPT_VERSION
    default_episodes = max_episodes = len(TEST_LEVELS)
    secret_episodes = SECRET_LEVELS

    def __init__(self, difficulty: float = DIFFICULTY):
        self.difficulty = float(difficulty)

    def at_difficulty(self, difficulty: float) -> SuperbeamTask:
        return self if difficulty == self.difficulty else SuperbeamTask(difficulty)

    def level_difficulty(self, level: int | str) -> float:
        """The difficulty level `level` is generated (and played) at."""
        return self.difficulty

    @cached_property
    def game(self) -> Game:
        from superbeam.env import ACTIONS
        from superbeam.features import FEATURE_NAMES

        return Game(
            "superbeam",
            "A CHIP-8 platformer: run right, jump gaps and pipes, avoid walkers, reach the flag.",
            1.0,
            MAX_FRAMES // FRAME_SKIP,
            (len(FEATURE_NAMES),),
            tuple(FEATURE_NAMES),
            tuple(ACTIONS),
            "superbeam/env.py",
        )

    # --- the prompt ---------------------------------------------------------------------------------
    def messages(self, protocol: Protocol = ONE_SHOT) -> list[dict]:
        user = self.statement()
        section = protocol.section(self)
        if section:  # the reference's statement says nothing of a protocol: the protocol's section follows it
            user = f"{user.rstrip()}\n\n{section}\n"
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]

    def statement(self) -> str:
        """The task statement, before any protocol's section."""
        return task_prompt()

    def game_source(self) -> str:
        return (files("superbeam") / "env.py").read_text()

    # --- answers ------------------------------------------------------------------------------------
    def read(self, text: str) -> tuple[Weights, dict]:
        return parse_answer(text), {}

    def write(self, weights: Weights) -> str:
        return f"```json\n{weights_json(weights)}\n```\n"

    def parse_feedback(self, error: str) -> str:
        return f"I could not use that: {error}. Reply with the full JSON object in a ```json block."

    def offline_answer(self, model: str) -> str | None:
        if model == "zero":
            weights = self.network.zeros()
        elif model == "reference":
            weights = reference_weights()
        else:
            return None
        return f"The {model} network.\n```json\n{weights_json(weights)}\n```\n"

    # --- scoring ------------------------------------------------------------------------------------
    def scoring_episodes(self, count: int | None = None) -> list[int]:
        count = len(TEST_LEVELS) if count is None else count
        if not 1 <= count:
            raise ValueError("choose at least 1 held-out level")
        return TEST_LEVELS[:count]

    def scoring_rule(self, count: int) -> str:
        return f"the fraction of {count} held-out levels won"

    def training_episodes(self, count: int) -> list[int]:
        return list(TRAIN_LEVELS)

    def play(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        """Each level once, in order: spread over the grading's workers when there are more than POOL_LEVELS levels
        and more than one worker (the emulator takes about 36 ms a level), else in this process, as MinAtar's
        engine plays a one-worker grade; `engine` is MinAtar's choice, ignored here."""
        from wspbench.evaluation.engine import play_in_pool
        from wspbench.evaluation.executors import current_executor

        executor = current_executor() if len(episodes) > POOL_LEVELS else None
        workers = 1 if executor is None else max(1, min(grading.workers or executor.workers(), len(episodes)))
        if workers == 1:
            played = _watch_levels(self, weights, episodes, grading.progress)
        else:
            played = play_in_pool(_watch_levels, self, weights, list(episodes), workers, grading.progress, executor)
        values, lengths, detail = (list(column) for column in zip(*played, strict=True)) if played else ([], [], [])
        won = sum(level["won"] for level in detail)
        mean_progress = round(float(np.mean([level["progress"] for level in detail])), 3) if detail else 0.0
        return (
            values,
            lengths,
            {
                "won": won,
                "levels": len(detail),
                "mean_progress": mean_progress,
                "difficulty": self.difficulty,
                "detail": detail,
            },
        )

    def watch(
        self, weights: Weights, episode: int, observe: Callable[[Step], None] | None = None
    ) -> tuple[float, int, dict]:
        """Play level `episode` (a seed, or "classic") as it is scored. Each Step's screen is the (32, 64) 0/1
        CHIP-8 display and its value the level's value so far (1.0 once won). The summary: seed, won,
        progress (0..1), coins, cause (None when won), frames, and where (the features before the last
        decision)."""
        from superbeam.features import FEATURE_NAMES, features

        env = self.level_environment(episode)
        screen, info = env.reset()
        last = None
        decisions = 0
        terminated = truncated = False
        while not (terminated or truncated):
            last = features(env)
            logits = self.network.forward_one(weights, last)
            action = int(np.argmax(logits))  # the network's action rule: the first largest logit
            if observe is not None:
                observe(Step(screen, logits, action, 0.0))
            screen, _, terminated, truncated, info = env.step(action)
            decisions += 1
        value = 1.0 if info["won"] else 0.0
        if observe is not None:
            observe(Step(screen, None, None, value))
        cause = None
        if info["dead"]:
            cause = info["cause"] or "died"
        elif not info["won"]:
            cause = TIMEOUT_CAUSE
        where = None if last is None else dict(zip(FEATURE_NAMES, [round(float(v), 1) for v in last], strict=True))
        summary = {
            "seed": episode if isinstance(episode, (int, str)) else env.level.name,
            "won": bool(info["won"]),
            "progress": round(float(info["best_progress"]), 3),
            "coins": int(info["coins"]),
            "cause": cause,
            "frames": int(info["frames"]),
            "where": where,
            "outcome": f"won after {decisions} decisions"
            if cause is None
            else f"{cause} at {100 * info['best_progress']:.0f}% of the level",
        }
        return value, decisions, summary

    def level(self, level: int | str):
        """The `superbeam.levels.Level` that a seed (or "classic") names in this task."""
        from superbeam.levels import get_level

        return get_level(level, self.level_difficulty(level))

    def level_environment(self, level: int | str):
        """The emulator for one level, as every network plays it (reset it before the first step)."""
        from superbeam.env import SuperBeamEnv

        return SuperBeamEnv(level=self.level(level), frame_skip=FRAME_SKIP, max_frames=MAX_FRAMES)

    def environment(self, episode: int) -> Level:
        return Level(self, episode)

    # --- feedback rounds ----------------------------------------------------------------------------
    def train_key(self, score: Score) -> tuple:
        """Levels won, then mean progress, as the reference orders candidates."""
        return (score.metadata.get("won", 0), score.metadata.get("mean_progress", 0.0))

    def feedback(self, score: Score) -> str:
        if score.error:
            return self.parse_feedback(score.error)
        return (
            f"{self.report(score)}\n"
            "Improve the weights to win more levels. Reply with reasoning, then the full JSON (all four arrays)."
        )

    def report(self, score: Score) -> str:
        meta = score.metadata
        lines = [
            f"Your network on {meta['levels']} training levels: won {meta['won']}, "
            f"mean progress {100 * meta['mean_progress']:.0f}%."
        ]
        for level in meta["detail"]:
            if level["won"]:
                lines.append(f"  level {level['seed']}: won")
            else:
                lines.append(
                    f"  level {level['seed']}: {level['cause']} at {100 * level['progress']:.0f}% of the "
                    f"level; inputs at that moment: {json.dumps(level['where'])}"
                )
        return "\n".join(lines)

    # --- records ------------------------------------------------------------------------------------
    def seeds(self, protocol: Protocol = ONE_SHOT) -> dict:
        return {**super().seeds(protocol), "difficulty": self.difficulty}


class Level:
    """A level for a learner, played as `SuperbeamTask.watch` plays it; the reward is the game's own (coins,
    progress, +50 for a win, -25 for a death)."""

    def __init__(self, task: SuperbeamTask, level: int):
        self.task = task
        self.game = task.level_environment(level)
        self.game.reset()

    def restart(self, level: int) -> Level:
        return Level(self.task, level)

    def observe(self) -> np.ndarray:
        from superbeam.features import features

        return np.asarray(features(self.game), dtype=np.float64)

    def act(self, action: int) -> tuple[float, bool]:
        _, reward, terminated, truncated, _ = self.game.step(action)
        return float(reward), bool(terminated or truncated)


class ExtendedSuperbeamTask(SuperbeamTask):
    """`superbeam/extended`: the same game, prompt and training levels, scored on EXTENDED_LEVELS, whose
    difficulty goes round TIERS; the score's metadata gives each tier's wins with a 95% interval."""

    id = "superbeam/extended"
    default_episodes = max_episodes = len(EXTENDED_LEVELS)
    episode_classes = len(TIERS)  # a drawn level's difficulty goes round TIERS as the fixed levels' does

    def level_difficulty(self, level: int | str) -> float:
        for first, count in ((EXTENDED_LEVELS[0], len(EXTENDED_LEVELS)), SECRET_LEVELS):
            if isinstance(level, int) and first <= level < first + count:
                return TIERS[(level - first) % len(TIERS)]
        return self.difficulty  # the training levels, and levels chosen by hand

    def scoring_episodes(self, count: int | None = None) -> list[int]:
        count = len(EXTENDED_LEVELS) if count is None else count
        if not 1 <= count:
            raise ValueError("choose at least 1 held-out level")
        return EXTENDED_LEVELS[:count]

    def scoring_rule(self, count: int) -> str:
        return f"the fraction of {count} held-out levels won, over difficulties {', '.join(map(str, TIERS))}"

    def play(self, weights, episodes, grading: Grading = DEFAULT):
        values, lengths, metadata = super().play(weights, episodes, grading)
        tiers = {}
        for tier in TIERS:
            won = [v for level, v in zip(episodes, values, strict=True) if self.level_difficulty(level) == tier]
            if won:
                low, high = wilson(int(sum(won)), len(won))
                tiers[str(tier)] = {"won": int(sum(won)), "levels": len(won), "interval": [low, high]}
                metadata[f"won at {tier}"] = f"{int(sum(won))}/{len(won)} (95%: {low:.2f} .. {high:.2f})"
        metadata["difficulty"] = "by tier"
        metadata["tiers"] = tiers
        return values, lengths, metadata

    def seeds(self, protocol: Protocol = ONE_SHOT) -> dict:
        return {**Task.seeds(self, protocol), "difficulty": {"training": self.difficulty, "tiers": list(TIERS)}}


class HardSuperbeamTask(SuperbeamTask):
    """`superbeam/hard`: the same game and network on the hard generator's levels (`generate_hard`), trained and
    scored on the kept ones of `hard_levels()`; a run's secret draws keep a level by the same rule
    (`hard_certificate`), so drawn and fixed levels come from one distribution. Its prompt says what is harder."""

    id = "superbeam/hard"
    prompt_version = HARD_PROMPT_VERSION
    default_episodes = max_episodes = HARD_TEST_COUNT

    def statement(self) -> str:
        return task_prompt(hard_levels_text())

    def level(self, level: int | str):
        from superbeam.levels import generate_hard

        return generate_hard(int(level))

    def scoring_episodes(self, count: int | None = None) -> list[int]:
        count = HARD_TEST_COUNT if count is None else count
        if not 1 <= count:
            raise ValueError("choose at least 1 held-out level")
        return list(hard_levels()["test"])[:count]

    def held_out_episodes(self, count: int | None = None, key: str | None = None) -> list[int]:
        """With `key`, levels drawn from SECRET_LEVELS and certified as they are drawn: those `hard_certificate`
        rejects are skipped, so a drawn level is kept as a fixed one is (about 5 ms of CPU a level drawn, a search
        that gives up under a second: docs/superbeam.md)."""
        from wspbench.tasks.held_out import draw

        if key is None:
            return self.scoring_episodes(count)
        count = len(self.scoring_episodes(count))
        return draw(key, count, *SECRET_LEVELS, keep=lambda level: hard_certificate(level) is not None)

    def scoring_rule(self, count: int) -> str:
        return f"the fraction of {count} held-out hard levels won"

    def training_episodes(self, count: int) -> list[int]:
        return list(hard_levels()["training"])

    def trained_network(self, seed: int = 0) -> tuple[Weights, dict] | None:
        return None  # the game's PPO network (the trained baseline) learnt `superbeam`'s training levels, not these

    def play(self, weights, episodes, grading: Grading = DEFAULT):
        values, lengths, metadata = super().play(weights, episodes, grading)
        metadata["difficulty"] = "hard"
        return values, lengths, metadata

    def seeds(self, protocol: Protocol = ONE_SHOT) -> dict:
        return {**Task.seeds(self, protocol), "difficulty": "hard", "node_limit": HARD_NODE_LIMIT}


def _watch_levels(task: SuperbeamTask, weights: Weights, levels: Sequence[int], progress=None) -> list[tuple]:
    """`task.watch` of each level, in order (module level, so that a worker process can run it)."""
    played = []
    for level in levels:
        played.append(task.watch(weights, level))
        if progress is not None:
            progress(1)
    return played


def tasks() -> list[Task]:
    return [SuperbeamTask(), ExtendedSuperbeamTask(), HardSuperbeamTask()]


# --- the hard levels -------------------------------------------------------------------------------


def hard_certificate(seed: int) -> str | None:
    """The actions that win hard level `seed`, one digit each, or None when the level is not kept: when the
    search (`physics.solve`, HARD_NODE_LIMIT steps) finds no win, or when one action held throughout wins it.
    Both run on the ROM's Python twin, which plays exactly as the emulator does."""
    from superbeam import physics
    from superbeam.levels import generate_hard

    level = generate_hard(seed)
    if held_action_wins(level):
        return None
    actions = physics.solve(level, FRAME_SKIP, MAX_FRAMES, HARD_NODE_LIMIT)
    return None if actions is None else "".join(map(str, actions))


def held_action_wins(level) -> bool:
    """Whether some action held throughout wins `level` (a `superbeam.levels.Level`), played on the twin."""
    from superbeam import physics

    for action in range(len(physics.ACTION_KEYS)):
        game, frames = physics.Game(level), 0
        while game.status == physics.PLAYING and frames < MAX_FRAMES:
            frames += physics.step(game, action, FRAME_SKIP, MAX_FRAMES, frames)
        if game.status == physics.WON:
            return True
    return False


@cache
def hard_levels() -> dict[str, dict[int, str]]:
    """The kept hard levels, "training" and "test", each seed with its certificate (HARD_FILE, written by
    benchmarks/superbeam_hard_levels.py: the first kept seeds from HARD_TRAIN_FIRST and HARD_TEST_FIRST)."""
    stored = json.loads((files("wspbench.tasks") / HARD_FILE).read_text())
    return {part: {int(seed): actions for seed, actions in stored[part].items()} for part in ("training", "test")}


def hard_levels_text() -> str:
    """What is harder on superbeam/hard's levels, in the prompt's words, from the generator's own table."""
    from superbeam.levels import GAP, GROUND, HARD_GROUND, HARD_OBSTACLES, N_WALKERS, PIPE, TALL

    names = {GAP: "a gap", GROUND: "ground", PIPE: "a pipe", TALL: "a tall pipe"}

    def wide(fewest: int, most: int) -> str:
        widths = [str(8 * n) for n in range(fewest, most + 1)]
        return " or ".join(filter(None, (", ".join(widths[:-1]), widths[-1]))) + " px wide"

    obstacles = "\n".join(
        "    " + ", then ".join(f"{names[terrain]} {wide(fewest, most)}" for terrain, fewest, most in parts)
        for parts in HARD_OBSTACLES
    )
    return f"""THIS TASK'S LEVELS are harder than the game's usual ones:
- obstacles follow one another with only ground {wide(*HARD_GROUND)} between them; each one is
{obstacles}
- every level has {N_WALKERS} walkers, each starting on the ground right beside an obstacle;
- every level can be won (a search found a sequence of actions that wins it), and no single action held
  throughout wins any of them."""


# --- the prompt ------------------------------------------------------------------------------------


def task_prompt(levels: str = "") -> str:
    """The task statement a model is given; `levels` (superbeam/hard's) follows the rules."""
    from superbeam.env import ACTIONS, RULES
    from superbeam.features import FEATURES

    feats = "\n".join(f"  x[{i}] {n}: {d}" for i, (n, d) in enumerate(FEATURES))
    acts = "\n".join(f"  {i} {a}" for i, a in enumerate(ACTIONS))
    rules = RULES.split("Actions:")[0].strip() + (f"\n\n{levels}" if levels else "")
    return f"""Write the weights of a neural network that plays SUPERBEAM well.

THE GAME (these are the rules a player is given):
{rules}

THE NETWORK. Every 4 frames it reads 8 numbers x[0..7] and picks one action:
  h = relu(W1 @ x + b1)      # W1: 16 x 8, b1: 16
  logits = W2 @ h + b2       # W2: 6 x 16, b2: 6
  action = argmax(logits)

Inputs (read from the game's memory; distances in pixels):
{feats}

Actions (index: name):
{acts}

Design it like a program: give each hidden unit a job (for example "a gap is close", "a wall is close
and I stand on the ground", "a walker is close", "I am in the air"), set its weights and bias so it
switches on only in that situation (ReLU), then wire the units to the action logits so that the right
action wins. Keep "right" as the default so the player keeps moving. Unused units can be all zeros.

Reply with your reasoning, then ONE JSON object in a ```json block with keys "W1" (16 lists of 8 numbers),
"b1" (16 numbers), "W2" (6 lists of 16 numbers), "b2" (6 numbers). Numbers only, no expressions."""


# --- answers ---------------------------------------------------------------------------------------


def reference_weights() -> Weights:
    """The hand-written reference network shipped with this package."""
    return parse_answer((files("wspbench.tasks") / REFERENCE_FILE).read_text())
