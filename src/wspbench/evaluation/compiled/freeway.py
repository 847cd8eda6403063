"""Freeway as `minatar` 1.0.15 plays it, on a state row (see `common.py`).

Eight cars (car i in row i + 1), each `X, TIMER, SPEED` (a signed speed; its sign is the direction).
Random calls when the cars are randomised (reset, and each crossing): `randint(1, 6, 8)` then `rand(8)`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRST_FIELD, TERMINAL, UP, WIDTH, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

FOLLOWS = "minatar.environments.freeway"  # the game module this twin follows (`engine.twin_of`)

POSITION, MOVE_TIMER, TERMINATE_TIMER = range(FIRST_FIELD, FIRST_FIELD + 3)
CARS = FIRST_FIELD + 3
FIELDS = 3
X, TIMER, SPEED = range(FIELDS)
PLAYER_SPEED = 3
TIME_LIMIT = 2500
# output channels: chicken -> player 0, car -> danger 1, every speed trail -> trail 4
CHICKEN_OUT, CAR_OUT, TRAIL_OUT = 0, 1, 4


@njit(cache=True)
def _randomize_cars(s, keys, positions, g, initialize):
    speeds = np.empty(8, np.int64)
    for car in range(8):
        speeds[car] = bounded(keys, positions, g, 1, 4)
    for car in range(8):
        half = random_sample(keys, positions, g) - 0.5  # np.sign(...).astype(int): -1, 0 or 1
        speeds[car] *= 1 if half > 0 else (-1 if half < 0 else 0)
    for car in range(8):
        base = CARS + car * FIELDS
        if initialize:
            s[base + X] = 0
        s[base + TIMER] = abs(speeds[car])
        s[base + SPEED] = speeds[car]


@njit(cache=True)
def reset(s, keys, positions, g):
    _randomize_cars(s, keys, positions, g, True)
    s[POSITION] = 9
    s[MOVE_TIMER] = PLAYER_SPEED
    s[TERMINATE_TIMER] = TIME_LIMIT
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0
    if action == UP and s[MOVE_TIMER] == 0:
        s[MOVE_TIMER] = PLAYER_SPEED
        s[POSITION] = max(0, s[POSITION] - 1)
    elif action == DOWN and s[MOVE_TIMER] == 0:
        s[MOVE_TIMER] = PLAYER_SPEED
        s[POSITION] = min(9, s[POSITION] + 1)
    if s[POSITION] == 0:
        reward += 1
        _randomize_cars(s, keys, positions, g, False)
        s[POSITION] = 9
    for car in range(8):
        base = CARS + car * FIELDS
        if s[base + X] == 4 and car + 1 == s[POSITION]:
            s[POSITION] = 9
        if s[base + TIMER] == 0:
            s[base + TIMER] = abs(s[base + SPEED])
            x = s[base + X] + (1 if s[base + SPEED] > 0 else -1)
            s[base + X] = 9 if x < 0 else (0 if x > 9 else x)
            if s[base + X] == 4 and car + 1 == s[POSITION]:
                s[POSITION] = 9
        else:
            s[base + TIMER] -= 1
    s[MOVE_TIMER] -= s[MOVE_TIMER] > 0
    s[TERMINATE_TIMER] -= 1
    if s[TERMINATE_TIMER] < 0:
        s[TERMINAL] = 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[POSITION], 4, CHICKEN_OUT)
    for car in range(8):
        base = CARS + car * FIELDS
        x = s[base + X]
        count = put(active, count, car + 1, x, CAR_OUT)
        back = x - 1 if s[base + SPEED] > 0 else x + 1
        back = 9 if back < 0 else (0 if back > 9 else back)
        count = put(active, count, car + 1, back, TRAIL_OUT)
    return count


def from_minatar(game) -> np.ndarray:
    """The row holding a `minatar` freeway `Env`'s fields (for the differential tests)."""
    s = np.zeros(WIDTH, np.int64)
    s[TERMINAL] = game.terminal
    s[POSITION], s[MOVE_TIMER], s[TERMINATE_TIMER] = game.pos, game.move_timer, game.terminate_timer
    for car, (x, y, timer, speed) in enumerate(game.cars):
        assert y == car + 1
        s[CARS + car * FIELDS : CARS + (car + 1) * FIELDS] = (x, timer, speed)
    return s
