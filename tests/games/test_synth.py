"""Synthetic games through the module contract, with a tiny game defined here."""

import itertools
import json
import textwrap
from importlib import resources

import numpy as np
import pytest

from wspbench.evaluation import Grading
from wspbench.games import synth
from wspbench.games.minatar import MinAtarGame, game_spec, game_specs
from wspbench.networks import MINATAR_NETWORK
from wspbench.tasks import get_task, select
from wspbench.tasks.minatar import CALIBRATION_EPISODE_OFFSET, TRAIN_EPISODE_OFFSET, MinAtarTask, bound_calibration

TINY_GAME = '''
"""Tiny: step right to the coin; a test game."""
import numpy as np


class TinyEnvironment:
    score_cap = 5.0

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.column, self.coin, self.steps, self.last_action = 0, int(self.random.randint(1, 10)), 0, 0

    def state(self):
        grid = np.zeros((10, 10, 6), dtype=bool)
        grid[9, self.column, 0] = True
        grid[9, self.coin, 2] = True
        return grid

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        self.column = min(9, max(0, self.column + {1: -1, 3: 1}.get(action, 0)))
        self.steps += 1
        reward = 0.0
        if self.column == self.coin:
            reward, self.coin = 1.0, int(self.random.randint(0, 10))
        return reward, self.steps >= 40
'''


counter = itertools.count()


@pytest.fixture
def synth_folder(tmp_path):
    """Test modules in a folder of their own, declared to `minatar_synth.games` (`synth.add_games`, as a private
    set's games are) so that they import as synthetic games."""

    def add(name, source):
        name = f"{name}_{next(counter)}"  # a fresh module name: imported modules stay cached
        named = "".join(part[:1].upper() + part[1:] for part in name.split("_")) + "Environment"  # the contract
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source).replace("TinyEnvironment", named))
        synth.add_games(tmp_path, [name])
        return name

    yield add


def test_tiny_game_grades_identically_with_both_engines(synth_folder):
    game = synth_folder("tiny_test_game", TINY_GAME)
    task = MinAtarTask(MinAtarGame(game, "synth"))  # the registry lists the shipped games only
    answer = "Go right.\n```edits\nb3[3] = 3.0\n```"
    fast = task.grade(answer, range(30), Grading(engine="fast", workers=2)).to_json()
    reference = task.grade(answer, range(30), Grading(engine="reference", workers=1)).to_json()
    assert fast.pop("seconds") >= 0 and reference.pop("seconds") >= 0
    assert fast == reference
    assert fast["score_cap"] == 5.0 and fast["mean_length"] == 40.0 and fast["task"] == f"synth/{game}"
    assert 0 < fast["normalized"] <= 1 and fast["error"] is None
    assert game not in synth.available_games()  # a declared game imports, but is not a shipped hand-written one
    assert synth.description(game) == "Tiny: step right to the coin; a test game."
    assert synth.spec(game) == MinAtarGame(game, "synth").spec
    assert (synth.spec(game).score_cap, synth.spec(game).max_steps) == (5.0, 10_000)
    compiled = task.grade(answer, range(30), Grading(engine="compiled", workers=1)).to_json()  # no twin: Python
    assert compiled.pop("seconds") >= 0 and compiled == fast


@pytest.mark.parametrize(
    "source, message",
    [
        (TINY_GAME + "\nTinyEnvironment = 3\n", "has no class"),
        (TINY_GAME.replace("class TinyEnvironment", "class Tiny"), "has no class"),
        (TINY_GAME.replace("(10, 10, 6)", "(10, 10, 4)"), "invalid synthetic state shape"),
        (TINY_GAME.replace("return reward, self.steps >= 40", "raise KeyError('boom')"), "KeyError"),
        ("def broken(:\n", "SyntaxError"),
    ],
)
@pytest.mark.parametrize("engine", ["fast", "reference", "compiled"])
def test_broken_game_modules_are_errors_not_crashes(synth_folder, source, message, engine):
    game = synth_folder("broken_test_game", source)
    score = MinAtarTask(MinAtarGame(game, "synth")).grade(
        "```edits\nb3[0] = 1\n```", range(3), Grading(engine=engine, workers=1)
    )
    assert score.normalized == 0.0 and message in score.error and score.episodes == ()


# The shipped synthetic suite: every game keeps the module contract (wspbench/games/synth.py).
SUITE = synth.available_games()


CALIBRATION = json.loads((resources.files("minatar_synth") / "calibration.json").read_text())


@pytest.mark.parametrize("game", SUITE)
def test_each_cap_is_the_rule_applied_to_its_source_on_calibration_episodes(game):
    """The cap is `cap_rule` of the scripted player's mean on CALIBRATION_EPISODES, or of the hindsight bound's
    mean on its own episodes where `synth.CAP_SOURCE` says so (minatar_synth/bound.json)."""
    row = CALIBRATION[game]
    assert (row["episodes"], row["first_episode"]) == (synth.CALIBRATION_EPISODES, CALIBRATION_EPISODE_OFFSET)
    found = row["scripted_raw"] if synth.CAP_SOURCE == "players" else bound_calibration()[game]["mean"]
    assert synth.environment_class(game).score_cap == row["cap"] == synth.cap_rule(found)


def test_scoring_training_and_calibration_episodes_never_share_a_seed():
    task = get_task("synth/ferry")
    scoring = task.scoring_episodes(task.max_episodes)
    training = task.training_episodes(10**9)
    calibration = task.calibration_episodes(10**9)
    assert scoring[-1] < training[0] == TRAIN_EPISODE_OFFSET and training[-1] < calibration[0]
    assert synth.cap_rule(44.43) == 45.0 and synth.cap_rule(3607.125) == 3700.0 and synth.cap_rule(17.98) == 18.0


@pytest.mark.parametrize("game", SUITE)
def test_suite_game_contract(game):
    cls = synth.environment_class(game)
    assert isinstance(cls.score_cap, float) and cls.score_cap > 0
    assert isinstance(cls.max_steps, int) and 0 < cls.max_steps <= 2500
    assert synth.description(game)
    environment = cls()
    environment.seed(3)
    environment.reset()
    state = environment.state()
    assert state.shape == (10, 10, 6) and state.dtype == bool
    for action in range(6):
        reward, terminal = environment.act(action)
        assert isinstance(float(reward), float) and isinstance(bool(terminal), bool)


def play(cls, seed, steps):
    environment = cls()
    environment.seed(seed)
    environment.reset()
    actions = np.random.RandomState(seed + 1)
    trace = []
    for _ in range(steps):
        reward, terminal = environment.act(int(actions.randint(6)))
        trace.append((environment.state().tobytes(), float(reward), bool(terminal)))
        if terminal:
            break
    return trace


@pytest.mark.parametrize("game", SUITE)
def test_suite_game_is_deterministic_and_bounded(game):
    cls = synth.environment_class(game)
    assert play(cls, 11, 300) == play(cls, 11, 300)
    assert play(cls, 11, 300) != play(cls, 12, 300)
    trace = play(cls, 5, cls.max_steps + 1)
    assert len(trace) <= cls.max_steps and trace[-1][2]


def test_each_task_reads_its_game_spec():
    """Every game is declared once (a row of minatar_original.ORIGINALS, or its own module): the task, its
    reference program and its source file come from that spec."""
    tasks = select("original,synth,gen")
    assert [spec.task_id for spec in game_specs().values()] == [task.id for task in tasks]
    for task in tasks:
        spec = game_spec(task.game.name)
        assert (task.game.score_cap, task.game.max_steps, task.game.description) == (
            spec.score_cap,
            spec.max_steps,
            spec.description,
        )
        assert task.offline_answer("reference") and spec.source_file.is_file()
    with pytest.raises(ValueError, match="unknown MinAtar game"):
        game_spec("pong")


def test_registry_lists_original_then_synth():
    tasks = select("original,synth,gen")
    assert [t.id for t in tasks[:5]] == [
        "original/asterix",
        "original/breakout",
        "original/freeway",
        "original/seaquest",
        "original/space_invaders",
    ]
    synthetic = [t.id for t in tasks[5 : 5 + len(SUITE)]]
    assert synthetic == [f"synth/{game}" for game in SUITE] == [t.id for t in select("synth/*")]
    assert all(t.id.startswith("gen/") for t in tasks[5 + len(SUITE) :])  # then the generated games
    assert get_task("ferry").game.score_cap == synth.environment_class("ferry").score_cap
    assert MINATAR_NETWORK.parameter_count == 600 * 32 + 32 + 32 * 32 + 32 + 32 * 6 + 6
