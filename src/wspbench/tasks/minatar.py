"""The MinAtar family: a 10x10x6 grid game played by the 600-32-32-6 tanh network, written in `edits`.

One task per game: `original/<game>` (the `minatar` package), `synth/<game>` (`minatar_synth`) and `gen/<seed>`
(the generated games of `minatar_synth`, whose reference is their calibrated PPO network). The
game itself (environment, inputs, seeds, cap) is `wspbench/games/minatar.py`; the engines that play it
exactly are `wspbench/evaluation/`; the prompt is `minatar_prompt.py`. Four sets of episodes never share a
seed: scoring episodes are 0..N-1, training episodes (feedback rounds, plays, PPO) start at TRAIN_EPISODE_OFFSET,
calibration episodes (benchmarks/calibrate_synth.py: the caps) start at CALIBRATION_EPISODE_OFFSET, and the
held-out episodes that a run's secret draws (feedback and agent: `tasks/held_out.py`) lie in SECRET_EPISODES.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache, cached_property
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from wspbench.evaluation import DEFAULT, Grading
from wspbench.games import synth
from wspbench.games.minatar import (
    ACTION_NAMES,
    ACTION_SEED,
    CHANNEL_NAMES,
    EPISODE_SEED,
    SECRET_EPISODES,
    SOURCES,
    MinAtarGame,
    all_games,
)
from wspbench.networks import MINATAR_NETWORK, Weights, load_network
from wspbench.protocols import BUILT_IN, ONE_SHOT, Protocol
from wspbench.statistics import normalize
from wspbench.tasks.reading_set import ReadingSet
from wspbench.tasks.spec import Game, GameTask, Score, Step, Task

TRAIN_EPISODE_OFFSET = 100_000
CALIBRATION_EPISODE_OFFSET = 200_000
DEFAULT_EPISODES = 1000
FEEDBACK_GROUPS = 5
CALIBRATED_PLAYERS = ("zero", "reference", "scripted")  # normalised scores in minatar_synth/calibration.json
GENERATED_FILE = "generated.json"  # the generated games' calibration: minatar_synth's, or a private set's
GENERATED_FORMAT = "wspbench.generated/1"
GENERATED_NETWORKS = "trained"  # the generated games' networks: minatar_synth's folder, or a private set's
BOUND_FILE = "bound.json"  # each game's hindsight bound so far (benchmarks/calibrate_bound.py --publish)
BOUND_FORMAT = "wspbench.bound/1"


class MinAtarTask(GameTask):
    network = MINATAR_NETWORK
    answer_format = "edits"
    protocols = BUILT_IN
    default_episodes = DEFAULT_EPISODES
    max_episodes = TRAIN_EPISODE_OFFSET  # training episodes start there; at most as many of them
    secret_episodes = SECRET_EPISODES

    def __init__(self, game: MinAtarGame, task_id: str | None = None, private_set: Path | None = None):
        self.binding = game
        self.id = task_id or game.task_id
        self.private_set = private_set  # a private set's generated game: its calibration and network are there

    def seed_game(self) -> MinAtarGame | None:
        """This task's game, in the seed grader's contract (`wspbench/verifier.py`): a public MinAtar writing task
        (original, synth, gen) is its game's task; a private set's game is not one the seed grader knows."""
        return self.binding if self.binding.task_id == self.id else None

    @property
    def prompt_version(self) -> str:
        from wspbench.tasks.minatar_prompt import MINATAR_PROMPT_VERSION

        return MINATAR_PROMPT_VERSION

    @cached_property
    def game(self) -> Game:
        binding = self.binding
        return Game(
            binding.game,
            binding.description,
            binding.score_cap,
            binding.max_steps,
            (10, 10, len(CHANNEL_NAMES)),
            CHANNEL_NAMES,
            ACTION_NAMES,
            binding.source_path,
        )

    # --- the prompt ---------------------------------------------------------------------------------
    def messages(self, protocol: Protocol = ONE_SHOT) -> list[dict]:
        from wspbench.tasks.minatar_prompt import render

        return render(self, protocol)

    def game_source(self) -> str:
        return self.binding.source_text()

    # --- answers ------------------------------------------------------------------------------------
    def read(self, text: str) -> tuple[Weights, dict]:
        from wspbench.answers import parse_edits

        weights, edit_count = parse_edits(text, self.network)
        return weights, {
            "edit_count": edit_count,
            "nonzero_weights": sum(int(np.count_nonzero(w)) for w in weights.values()),
        }

    def write(self, weights: Weights) -> str:
        from wspbench.answers.edits import write_edits

        return write_edits(weights, self.network)

    def parse_feedback(self, error: str) -> str:
        from wspbench.tasks.minatar_prompt import parse_feedback

        return parse_feedback(error)

    def offline_answer(self, model: str) -> str | None:
        if model == "zero":
            return (resources.files("wspbench") / "references" / "zero.txt").read_text()
        if model == "reference" and not self.binding.spec.reference:  # a generated game: its calibrated network
            stored = load_network(self.networks, f"{self.binding.game}.0", self.network)
            if stored is None:
                return None
            weights, about = stored
            return f"The calibrated network, trained by PPO for {about['steps']:,} steps.\n{self.write(weights)}"
        package, _, name = self.binding.spec.reference.partition(":")
        path = resources.files(package).joinpath(*name.split("/"))
        return path.read_text() if model == "reference" and path.is_file() else None

    @property
    def networks(self) -> Traversable | None:
        """A generated game's PPO networks, its reference: `minatar_synth/trained/`, or a private set's `trained/`."""
        if self.binding.spec.reference:
            return None
        return (self.private_set or resources.files("minatar_synth")) / GENERATED_NETWORKS

    # --- scoring ------------------------------------------------------------------------------------
    def scoring_episodes(self, count: int | None = None) -> list[int]:
        count = DEFAULT_EPISODES if count is None else count
        if count < 1:
            raise ValueError("choose at least 1 scoring episode")
        return list(range(min(count, self.max_episodes)))

    def scoring_rule(self, count: int) -> str:
        return f"the mean return over {count} seeded episodes, normalised by the cap {self.game.score_cap:g}"

    def training_episodes(self, count: int) -> list[int]:
        return list(range(TRAIN_EPISODE_OFFSET, TRAIN_EPISODE_OFFSET + min(max(1, count), self.max_episodes)))

    def calibration_episodes(self, count: int) -> list[int]:
        """Episodes for measuring the game's players (the cap), disjoint from scoring and training."""
        return list(
            range(CALIBRATION_EPISODE_OFFSET, CALIBRATION_EPISODE_OFFSET + min(max(1, count), self.max_episodes))
        )

    def play(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        from wspbench.evaluation import evaluate

        run = evaluate(self.binding, weights, episodes, grading.engine, grading.workers, grading.progress)
        return list(run.returns), list(run.lengths), {}

    def prepare(self, episodes: int, grading: Grading = DEFAULT) -> None:
        from wspbench.evaluation.engine import prepare

        prepare(self.binding, grading.engine, episodes)

    def watch(self, weights: Weights, episode: int, observe) -> tuple[float, int, dict]:
        from wspbench.evaluation.engine import play_reference

        ((value, length),) = play_reference(
            self.binding, weights, [episode], observe=lambda *step: observe(Step(*step))
        )
        return value, length, {"outcome": f"return {value:g} after {length} steps"}

    def acting_actions(self) -> tuple[int, ...] | None:
        """The game's own set (an original game's minimal action set), or for a generated game the set its
        layout and fire give (`minatar_synth.generator.acting_actions`, as its docstring states it)."""
        mechanics = generated_calibration(self.private_set).get(self.binding.game, {}).get("mechanics")
        if mechanics is not None:
            from minatar_synth.generator import acting_actions

            return acting_actions(mechanics["layout"], mechanics["fire"])
        return self.binding.acting_actions()

    def potential(self, observations: np.ndarray) -> np.ndarray:
        """Minus the Manhattan distance from the player to the nearest reward cell, over the grid's largest (18),
        per row of inputs (a 10x10x6 grid, channels CHANNEL_NAMES); 0 where either is not on the grid. It leads a
        learner to what scores in games whose reward comes only at the end of a long walk (ferry)."""
        grid = observations.reshape(len(observations), 100, len(CHANNEL_NAMES))
        player, reward = grid[:, :, CHANNEL_NAMES.index("player")] > 0, grid[:, :, CHANNEL_NAMES.index("reward")] > 0
        cells = np.arange(100)
        at = player.argmax(axis=1)[:, None]
        distance = np.abs(cells // 10 - at // 10) + np.abs(cells % 10 - at % 10)
        nearest = np.where(reward, distance, 18).min(axis=1)
        return np.where(player.any(axis=1) & reward.any(axis=1), -nearest / 18.0, 0.0)

    def environment(self, episode: int) -> Episode:
        return Episode(self.binding, episode)

    def environments(self, episodes: Sequence[int], count: int):
        """Every game a compiled twin follows steps in compiled code (`wspbench/evaluation/compiled/batch.py`),
        equal to `environment` step by step; any other in lockstep."""
        from wspbench.evaluation.engine import compiled_twin

        twin = compiled_twin(self.binding)
        if twin is None:
            return super().environments(episodes, count)
        from wspbench.evaluation.compiled.batch import CompiledEpisodes

        return CompiledEpisodes(twin[0], episodes, count, self.binding.max_steps, twin[1])

    # --- feedback rounds ----------------------------------------------------------------------------
    def feedback(self, score: Score) -> str:
        if score.error:
            return self.parse_feedback(score.error)
        return (
            f"{self.report(score)}\nImprove the weights to score higher. Reply with your reasoning, then the complete "
            "network in one ```edits block (all weights start at 0 again)."
        )

    def report(self, score: Score) -> str:
        first, last = score.episodes[0], score.episodes[-1]
        lines = [
            f"Your network on {len(score.episodes)} training episodes (ids {first}..{last}; the scoring "
            f"episodes are others): mean return {score.raw:.2f}, normalised score "
            f"{score.normalized:.4f} (cap {score.score_cap:g}), mean episode length "
            f"{score.mean_length:.1f} steps.",
            "By group of episodes:",
        ]
        for g in episode_groups(score, self.game.max_steps):
            line = (
                f"  episodes {g['first']}..{g['last']}: mean return {g['mean_return']:.2f} "
                f"(min {g['min_return']:g}, max {g['max_return']:g}), mean length {g['mean_length']:.1f} steps"
            )
            if g["hit_step_limit"]:
                line += f", {g['hit_step_limit']} ran to the {self.game.max_steps:,}-step limit"
            lines.append(line)
        return "\n".join(lines)

    # --- records ------------------------------------------------------------------------------------
    def seeds(self, protocol: Protocol = ONE_SHOT) -> dict:
        return {**super().seeds(protocol), "episode_seed": seed_rule()}

    def calibration(self) -> dict[str, float]:
        """The normalised scores that benchmarks/calibrate_synth.py measured (for every game, original ones
        too), or for a generated game benchmarks/calibrate_generated.py (its reference: the trained network); not
        their timings, which depend on the machine and would change the suite digest."""
        game, rows = self.binding.game, generated_calibration(self.private_set)
        if game in rows:
            row, cap = rows[game], self.game.score_cap
            zero, trained = row["baselines"]["zero"], row["trained"]["mean"]
            return {"zero": normalize(zero, cap), "reference": normalize(trained, cap)}
        return {
            key: value
            for key, value in _calibration().get(game, {}).items()
            if key in CALIBRATED_PLAYERS and isinstance(value, (int, float))
        }

    def optimal(self) -> float | None:
        """The hindsight bound's mean on the game's calibration episodes (`minatar_synth/bound.json`), where it was
        measured: what the best play of each episode, knowing its random draws, returns on average."""
        entry = bound_calibration().get(self.binding.game) if self.private_set is None else None
        return None if entry is None else entry["mean"]


class Episode:
    """A MinAtar episode for a learner, seeded as the engines seed it (sticky actions included); it is over when
    the game ends or after the game's max_steps steps. `restart` reuses the objects, as the engines do."""

    def __init__(self, binding: MinAtarGame, episode: int):
        self.binding = binding
        self.game, self.action_random = binding.start_episode(episode)
        self.steps = 0

    def restart(self, episode: int) -> Episode:
        self.game, self.action_random = self.binding.restart_episode(self.game, self.action_random, episode)
        self.steps = 0
        return self

    def observe(self) -> np.ndarray:
        return np.asarray(self.binding.observation(self.game.state()), dtype=np.float64)

    def act(self, action: int) -> tuple[float, bool]:
        reward, terminal = self.game.act(action)
        self.steps += 1
        return float(reward), bool(terminal) or self.steps >= self.binding.max_steps


@cache
def _calibration() -> dict:
    return json.loads((resources.files("minatar_synth") / "calibration.json").read_text())


@cache
def bound_calibration() -> dict[str, dict]:
    """Each game's hindsight bound measured so far, by game name (`wspbench/baselines/bound.py`; written by
    `benchmarks/calibrate_bound.py --publish`): its mean, standard error, episodes, budget and cost. Empty where
    none was published."""
    return _games_in(resources.files("minatar_synth") / BOUND_FILE, BOUND_FORMAT)


@cache
def generated_calibration(folder: Path | None = None) -> dict[str, dict]:
    """Each generated game's calibration row (its trivial players, its trained network, its cap), by module name:
    the shipped ones' (`minatar_synth/generated.json`) or a private set's (`<folder>/generated.json`). The rejected
    seeds are in the file too, under "rejected"."""
    return _games_in((Path(folder) if folder else resources.files("minatar_synth")) / GENERATED_FILE, GENERATED_FORMAT)


def _games_in(path: Path | Traversable, expected: str) -> dict[str, dict]:
    """The "games" of a JSON file of format `expected`; {} where there is no such file."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    if data.get("format") != expected:
        raise ValueError(f"{path} is not a {expected} file")
    return data["games"]


def private_tasks(found: ReadingSet) -> list[Task]:
    """A private set's generated games (`wsp games generate`), as tasks `<name>.gen/<hex>`: their modules import
    from the set's games/ folder, their networks and calibration are read from the set."""
    folder = found.private_folder
    if folder is None or not found.generated:
        return []
    synth.add_games(folder / "games", list(found.generated))
    return [MinAtarTask(MinAtarGame(game, "gen"), found.task_id("gen", game, 0), folder) for game in found.generated]


def seed_rule() -> str:
    """How episode e is seeded, in words (the prompt and the manifests say it this way)."""
    return f"game {EPISODE_SEED} + e, actions RandomState({ACTION_SEED} + e)"


def episode_groups(score: Score, max_steps: int, groups: int = FEEDBACK_GROUPS) -> list[dict]:
    """Consecutive groups of episodes with their mean/min/max return and mean length."""
    out = []
    for part in np.array_split(np.arange(len(score.episodes)), min(groups, len(score.episodes))):
        r = np.asarray(score.values)[part]
        n = np.asarray(score.lengths)[part]
        out.append(
            {
                "first": int(score.episodes[part[0]]),
                "last": int(score.episodes[part[-1]]),
                "mean_return": float(r.mean()),
                "min_return": float(r.min()),
                "max_return": float(r.max()),
                "mean_length": float(n.mean()),
                "hit_step_limit": int((n >= max_steps).sum()),
            }
        )
    return out


def tasks() -> list[Task]:
    return [MinAtarTask(game) for game in all_games(tuple(SOURCES))]
