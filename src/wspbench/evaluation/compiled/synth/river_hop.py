"""River Hop (`minatar_synth/games/river_hop.py`) on a state row. Random calls when lanes are made (reset, and
each crossing): `rand()` (flip), then per lane, river rows 1-4 then road rows 6-8: `rand()` per log or car
(length, drawn even for cars, which have one length), `rand()` per log or car (the extra gap after it),
`rand()` (period), `rand()` (offset).

A lane's pattern, its danger cells and its trail cells are bitmasks over the 10 pattern cells; a respawned frog
also clears the sticky action (`LAST_ACTION`), as the module does."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRST_FIELD, LAST_ACTION, LEFT, RIGHT, TERMINAL, UP, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "c1eb60547c41481d24b1d0e9989a8f86d4a5016c5b0708791c69c718cf4b5000"
ROW, COL, STEPS = range(FIRST_FIELD, FIRST_FIELD + 3)
LANES = FIRST_FIELD + 3  # 7 lanes: direction, period, timer, offset, pattern, danger, trail
FIELDS = 7
LANE_ROWS = np.array([1, 2, 3, 4, 6, 7, 8])
MAX_STEPS = 1000


@njit(cache=True)
def _pick(n, keys, positions, g):
    return int(random_sample(keys, positions, g) * n)


@njit(cache=True)
def _wrap(i):
    return ((i % 10) + 10) % 10


@njit(cache=True)
def _new_lanes(s, keys, positions, g):
    flip = 1 if random_sample(keys, positions, g) < 0.5 else -1
    for k in range(7):
        row = LANE_ROWS[k]
        river = row <= 4
        first = (3, 4)[_pick(2, keys, positions, g)] if river else 1 + _pick(1, keys, positions, g)  # draws too
        second = (3, 4)[_pick(2, keys, positions, g)] if river else 1 + _pick(1, keys, positions, g)
        gap = 1 if river else 2
        spare = 10 - first - second - 2 * gap
        pattern = 0
        used = 0
        for length in (first, second):
            for i in range(length):
                pattern |= 1 << (used + i)
            extra = _pick(spare + 1, keys, positions, g)
            spare -= extra
            used += length + gap + extra
        direction = flip if row % 2 else -flip
        period = (1, 2, 3)[_pick(3, keys, positions, g)] if river else (2, 3)[_pick(2, keys, positions, g)]
        danger = (~pattern & 1023) if river else pattern
        trail = 0
        for i in range(10):
            behind = _wrap(i - direction)
            if (pattern >> i) & 1 and not (pattern >> behind) & 1:
                trail |= 1 << behind
        at = LANES + FIELDS * k
        s[at], s[at + 1], s[at + 2] = direction, period, period
        s[at + 3] = _pick(10, keys, positions, g)
        s[at + 4], s[at + 5], s[at + 6] = pattern, danger, trail


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[COL], s[STEPS] = 9, 0, 0
    s[TERMINAL] = 0
    _new_lanes(s, keys, positions, g)


@njit(cache=True)
def _lost(s):
    row = s[ROW]
    if row < 1 or row > 8 or row == 5:
        return False
    at = LANES + FIELDS * (row - 1 if row <= 4 else row - 2)
    on = (s[at + 4] >> _wrap(s[COL] - s[at + 3])) & 1
    return on != (row <= 4)


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    if action == LEFT:
        s[COL] = _wrap(s[COL] - 1)
    elif action == RIGHT:
        s[COL] = _wrap(s[COL] + 1)
    elif action == UP:
        s[ROW] -= 1
    elif action == DOWN:
        s[ROW] = min(9, s[ROW] + 1)
    if s[ROW] == 0:
        reward = 1.0
        s[ROW], s[LAST_ACTION] = 9, 0
        _new_lanes(s, keys, positions, g)
    else:
        if _lost(s):
            s[ROW], s[LAST_ACTION] = 9, 0
        for k in range(7):
            at = LANES + FIELDS * k
            s[at + 2] -= 1
            if s[at + 2] == 0:
                s[at + 2] = s[at + 1]
                s[at + 3] += s[at]
                if LANE_ROWS[k] == s[ROW] and LANE_ROWS[k] <= 4:
                    s[COL] = _wrap(s[COL] + s[at])
        if _lost(s):
            s[ROW], s[LAST_ACTION] = 9, 0
    s[STEPS] += 1
    if s[STEPS] >= MAX_STEPS:
        s[TERMINAL] = 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], 4, 0)
    for col in range(10):
        count = put(active, count, 0, col, 2)
    for k in range(7):
        at = LANES + FIELDS * k
        shift = s[at + 3] + 4 - s[COL]
        for i in range(10):
            if (s[at + 5] >> i) & 1:
                count = put(active, count, LANE_ROWS[k], _wrap(i + shift), 1)
            if (s[at + 6] >> i) & 1:
                count = put(active, count, LANE_ROWS[k], _wrap(i + shift), 4)
    for col in range((10 * (MAX_STEPS - s[STEPS]) + MAX_STEPS - 1) // MAX_STEPS):
        count = put(active, count, 9, col, 5)
    return count
