"""Differential test: each compiled game steps exactly like `minatar` 1.0.15, field by field, from random states.

minatar plays a random number of steps with random actions; its state (and the shared generator's state) is
then loaded into a compiled slot, sometimes after randomising fields that random play rarely reaches, and both
step side by side with the same random actions. After every step the whole state row, the generator (key and
position) and the observation's active inputs must be equal.
"""

import numpy as np
import pytest
from minatar import Environment

from wspbench.evaluation.compiled import asterix, breakout, freeway, seaquest, space_invaders
from wspbench.evaluation.compiled.common import CANDIDATES, LAST_ACTION
from wspbench.evaluation.compiled.engine import TWINS, _reset, act, observe, start_episode
from wspbench.evaluation.compiled.mt19937 import WORDS
from wspbench.games.minatar_original import observation

MODULES = {
    "asterix": asterix,
    "breakout": breakout,
    "freeway": freeway,
    "seaquest": seaquest,
    "space_invaders": space_invaders,
}
# action weights (n, l, u, r, d, f) that keep random play alive long enough to reach the game's events
ACTION_WEIGHTS = {
    "asterix": [1, 1, 1, 1, 1, 1],
    "breakout": [1, 1, 1, 1, 1, 1],
    "freeway": [1, 1, 4, 1, 1, 1],
    "seaquest": [2, 2, 2, 2, 2, 3],
    "space_invaders": [1, 2, 1, 2, 1, 3],
}


def _perturb(game: str, env, rng) -> None:
    """Move a minatar game to states that random play seldom reaches (legal values only)."""
    inner = env.env
    if game == "breakout" and rng.random() < 0.5:
        inner.brick_map = (rng.random((10, 10)) < 0.03) * np.asarray(inner.brick_map)
    elif game == "seaquest" and rng.random() < 0.6:  # one step below the surface, with divers on board
        inner.diver_count = int(rng.integers(0, 7))
        inner.oxygen = int(rng.integers(1, 201))
        inner.sub_y, inner.surface = 1, False
    elif game == "space_invaders" and rng.random() < 0.5:
        aliens = np.asarray(inner.alien_map) * (rng.random((10, 10)) < 0.15)
        if aliens.any():
            inner.alien_map = aliens


def _load(code, env, game):
    """A compiled slot holding `env`'s game state, wrapper state and generator state."""
    states = np.zeros((1, 1024), np.int64)
    keys, positions = np.zeros((2, WORDS), np.uint32), np.zeros(2, np.int64)
    start_episode(code, states, keys, positions, 0, 0)
    states[0] = MODULES[game].from_minatar(env.env)
    states[0, LAST_ACTION] = env.last_action
    _, key, position, _, _ = env.random.get_state()
    keys[0], positions[0] = key, position
    return states, keys, positions


def _assert_same(game, env, states, keys, positions, where):
    assert np.array_equal(
        MODULES[game].from_minatar(env.env), np.where(np.arange(1024) == LAST_ACTION, 0, states[0])
    ), where
    assert env.last_action == states[0, LAST_ACTION], where
    _, key, position, _, _ = env.random.get_state()
    assert np.array_equal(key, keys[0]) and position == positions[0], where
    active = np.zeros(CANDIDATES, np.int64)
    count = observe(TWINS.index(game), states[0], active, np.zeros(600, np.int64), 1)
    ours = sorted(active[:count].tolist())
    assert len(ours) == len(set(ours)), where
    assert ours == np.flatnonzero(observation(game, env.state())).tolist(), where


@pytest.mark.parametrize("game", list(MODULES))
def test_compiled_game_steps_like_minatar(game):
    rng = np.random.default_rng(TWINS.index(game))
    code = TWINS.index(game)
    p = np.array(ACTION_WEIGHTS[game], float) / sum(ACTION_WEIGHTS[game])
    compared = 0
    for trial in range(40):
        env = Environment(game, sticky_action_prob=0.1, difficulty_ramping=False)
        env.seed(int(rng.integers(0, 2**32)))
        env.reset()
        for _ in range(int(rng.integers(0, 300))):  # minatar alone first: a random state
            _, terminal = env.act(int(rng.choice(6, p=p)))
            if terminal:
                env.reset()
        _perturb(game, env, rng)
        states, keys, positions = _load(code, env, game)
        _assert_same(game, env, states, keys, positions, (trial, "loaded"))
        for step in range(int(rng.integers(100, 600))):
            action = int(rng.choice(6, p=p))
            reward, terminal = env.act(action)
            ours = act(code, states[0], action, keys, positions, 0)
            assert ours == reward, (trial, step)
            _assert_same(game, env, states, keys, positions, (trial, step))
            compared += 1
            if terminal:  # both reset (the wrapper keeps its last action) and play on
                assert states[0, 1] == 1
                env.reset()
                _reset(code, states[0], keys, positions, 0)
                _assert_same(game, env, states, keys, positions, (trial, step, "reset"))
    assert compared > 5000


@pytest.mark.parametrize("game", list(MODULES))
def test_compiled_reset_equals_minatar_reset(game):
    code = TWINS.index(game)
    for episode in range(30):
        env = Environment(game, sticky_action_prob=0.1, difficulty_ramping=False)
        env.seed(1729 + episode)
        env.reset()
        states = np.zeros((1, 1024), np.int64)
        keys, positions = np.zeros((2, WORDS), np.uint32), np.zeros(2, np.int64)
        start_episode(code, states, keys, positions, 0, episode)
        _assert_same(game, env, states, keys, positions, episode)


def test_each_original_game_is_played_by_its_own_twin():
    from wspbench.games.minatar import game_specs

    named = {spec.name: spec.compiled for spec in game_specs().values() if spec.source == "original"}
    assert named == {game: game for game in MODULES} and set(MODULES) <= set(TWINS)
