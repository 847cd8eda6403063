"""Ferry (`minatar_synth/games/ferry.py`) on a state row. Random calls: reset `randint(10)` for the target, then
per lane `randint(2)` (speed) and `randint(10)` (column); a new piece `randint(2)`; a new target `randint(10)`."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, move_in_grid, put
from wspbench.evaluation.compiled.mt19937 import bounded

SOURCE_SHA256 = "339c341c2bf20a8e028b1fa9d29572b4180873727294315d2b5c062d61a4a719"
ROW, COL, ABOARD, TARGET, STEPS = range(FIRST_FIELD, FIRST_FIELD + 5)
DEBRIS = FIRST_FIELD + 5  # per lane: column, speed, trail column (NONE before its first move)
NONE = -100
LANES = np.array([1, 3, 5, 7])
DIRECTION = np.array([1, -1, 1, -1])
MAX_STEPS = 500


@njit(cache=True)
def _speed(keys, positions, g):
    return 2 + bounded(keys, positions, g, 0, 1)


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[COL], s[ABOARD] = 9, 4, 0
    s[TARGET] = bounded(keys, positions, g, 0, 9)
    for lane in range(4):
        speed = _speed(keys, positions, g)
        s[DEBRIS + 3 * lane] = bounded(keys, positions, g, 0, 9)
        s[DEBRIS + 3 * lane + 1] = speed
        s[DEBRIS + 3 * lane + 2] = NONE
    s[STEPS] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    move_in_grid(s, ROW, COL, action)
    hit = False
    for lane in range(4):
        at = DEBRIS + 3 * lane
        col, speed = s[at], s[at + 1]
        new_col = col + DIRECTION[lane] * speed
        if s[ROW] == LANES[lane] and min(col, new_col) <= s[COL] <= max(col, new_col):
            hit = True
        if (new_col > 9 and DIRECTION[lane] > 0) or (new_col < 0 and DIRECTION[lane] < 0):
            s[at + 1] = _speed(keys, positions, g)
            s[at] = -1 if DIRECTION[lane] > 0 else 10
            s[at + 2] = NONE
        else:
            s[at], s[at + 2] = new_col, col
    if hit:
        if s[ABOARD]:
            s[ROW], s[ABOARD] = 9, 0
            s[TARGET] = bounded(keys, positions, g, 0, 9)
        else:
            s[ROW] = 0
    if not s[ABOARD] and s[ROW] == 9 and s[COL] == s[TARGET]:
        s[ABOARD] = 1
        s[TARGET] = bounded(keys, positions, g, 0, 9)
    elif s[ABOARD] and s[ROW] == 0 and s[COL] == s[TARGET]:
        reward += 1.0
        s[ABOARD] = 0
        s[TARGET] = bounded(keys, positions, g, 0, 9)
    s[STEPS] += 1
    s[TERMINAL] = s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], s[COL], 0)
    for lane in range(4):
        col, trail = s[DEBRIS + 3 * lane], s[DEBRIS + 3 * lane + 2]
        if 0 <= col <= 9:
            count = put(active, count, LANES[lane], col, 1)
        if 0 <= trail <= 9:
            count = put(active, count, LANES[lane], trail, 4)
    count = put(active, count, 0 if s[ABOARD] else 9, s[TARGET], 2)
    for col in range(-(-10 * (MAX_STEPS - s[STEPS]) // MAX_STEPS)):
        count = put(active, count, 0, col, 5)
    return count
