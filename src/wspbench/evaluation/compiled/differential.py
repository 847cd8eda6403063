"""Step a synthetic or generated game's Python module and its compiled twin side by side (for tests and benchmarks).

Both start episode `e` as the engines do (the game seeded with EPISODE_SEED + e, then reset) and take the same
random actions through the module's own sticky-action draw. After every step the reward, the end of the
episode, the generator (key and position) and the observation's active inputs must be equal; the first
difference is returned as text, else None.
"""

from __future__ import annotations

import numpy as np

from wspbench.evaluation.compiled.common import CANDIDATES, FIRST_FIELD, TERMINAL, WIDTH
from wspbench.evaluation.compiled.engine import TWINS, act, observe, start_episode
from wspbench.evaluation.compiled.mt19937 import WORDS
from wspbench.games.minatar import EPISODE_SEED, MinAtarGame


def first_difference(
    game: MinAtarGame, twin: str, setup, episode: int, steps: int, rng: np.random.Generator
) -> str | None:
    """Play up to `steps` steps of `episode` with random actions; the first difference, or None."""
    code = TWINS.index(twin)
    states = np.zeros((1, WIDTH), np.int64)
    if setup is not None:
        states[0, FIRST_FIELD : FIRST_FIELD + len(setup)] = setup
    keys, positions = np.zeros((2, WORDS), np.uint32), np.zeros(2, np.int64)
    start_episode(code, states, keys, positions, 0, episode)
    environment = game.make_environment()
    environment.seed(EPISODE_SEED + episode)
    environment.reset()
    active, seen = np.zeros(CANDIDATES, np.int64), np.zeros(600, np.int64)
    for step in range(steps + 1):
        where = f"{game.task_id} episode {episode} step {step}"
        _, key, position, _, _ = environment.random.get_state()
        if not (np.array_equal(key, keys[0]) and position == positions[0]):
            return f"{where}: the generators differ"
        count = observe(code, states[0], active, seen, step + 1)
        ours = sorted(active[:count].tolist())
        theirs = np.flatnonzero(game.observation(environment.state())).tolist()
        if ours != theirs:
            missing, extra = sorted(set(theirs) - set(ours)), sorted(set(ours) - set(theirs))
            return f"{where}: observations differ (missing {missing}, extra {extra})"
        if step == steps:
            return None
        action = int(rng.integers(6))
        reward, terminal = environment.act(action)
        ours_reward = act(code, states[0], action, keys, positions, 0)
        if float(reward) != float(ours_reward) or bool(terminal) != bool(states[0, TERMINAL]):
            return f"{where}: action {action} gave {reward}, {terminal}; the twin {ours_reward}, {states[0, TERMINAL]}"
        if terminal:
            return None
    return None
