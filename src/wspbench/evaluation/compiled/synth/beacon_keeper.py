"""Beacon Keeper (`minatar_synth/games/beacon_keeper.py`) on a state row. Random calls: reset `rand()` per beacon
(its burn rate), then per storm `randint(4)` (direction) and `randint(10)` (column); per step, per storm `rand()`
(turn) and below the chance `randint(4)`, then per beacon holding fuel `rand()` (burn).

A burn rate is a double: the row keeps its uniform draw as the integer k of k / 2**53 (exact), and the rate is
computed from it as the module computes it."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, move_in_grid, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

SOURCE_SHA256 = "27dd54b13e09e0a5617551b49f6e1eafd546726a3fb9f3dfd27d3a8c75f1e51f"
ROW, COL, STEPS = range(FIRST_FIELD, FIRST_FIELD + 3)
FUEL = FIRST_FIELD + 3  # 4 beacons
RATE_DRAW = FUEL + 4  # 4 beacons: the uniform draw times 2**53
STORMS = RATE_DRAW + 4  # 2 storms: row, col, row step, column step, trail on, trail row, trail col
STORM_FIELDS = 7
BEACON_ROW = np.array([2, 2, 7, 7])
BEACON_COL = np.array([2, 7, 2, 7])
GAUGE_ROW = np.array([0, 0, 9, 9])
FROM_RIGHT = np.array([0, 1, 0, 1])
DIR_ROW = np.array([-1, -1, 1, 1])
DIR_COL = np.array([-1, 1, -1, 1])
UNIT = 9007199254740992.0  # 2**53
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[COL], s[STEPS] = 4, 4, 0
    for i in range(4):
        s[FUEL + i] = 0
        s[RATE_DRAW + i] = np.int64(random_sample(keys, positions, g) * UNIT)
    for k in range(2):
        at = STORMS + STORM_FIELDS * k
        direction = bounded(keys, positions, g, 0, 3)
        s[at], s[at + 1] = 0 if k == 0 else 9, bounded(keys, positions, g, 0, 9)
        s[at + 2], s[at + 3], s[at + 4] = DIR_ROW[direction], DIR_COL[direction], 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    move_in_grid(s, ROW, COL, action)
    swept = False
    for k in range(2):
        at = STORMS + STORM_FIELDS * k
        if random_sample(keys, positions, g) < 0.1:
            direction = bounded(keys, positions, g, 0, 3)
            s[at + 2], s[at + 3] = DIR_ROW[direction], DIR_COL[direction]
        s[at + 4], s[at + 5], s[at + 6] = 1, s[at], s[at + 1]
        swept = swept or (s[at] == s[ROW] and s[at + 1] == s[COL])
        for _ in range(2):
            dr, dc = s[at + 2], s[at + 3]
            if not 0 <= s[at] + dr <= 9:
                dr = -dr
            if not 0 <= s[at + 1] + dc <= 9:
                dc = -dc
            s[at], s[at + 1], s[at + 2], s[at + 3] = s[at] + dr, s[at + 1] + dc, dr, dc
            swept = swept or (s[at] == s[ROW] and s[at + 1] == s[COL])
    if swept:
        s[ROW], s[COL] = 4, 4
    reward = 0.0
    for i in range(4):
        if BEACON_ROW[i] == s[ROW] and BEACON_COL[i] == s[COL]:
            s[FUEL + i] = min(20, s[FUEL + i] + 3)
        if s[FUEL + i] > 0:
            rate = 0.2 + (0.6 - 0.2) * (s[RATE_DRAW + i] / UNIT)
            if random_sample(keys, positions, g) < rate:
                s[FUEL + i] -= 1
        if s[FUEL + i] > 0:
            reward += 1.0
    s[STEPS] += 1
    s[TERMINAL] = s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], s[COL], 0)
    for k in range(2):
        at = STORMS + STORM_FIELDS * k
        count = put(active, count, s[at], s[at + 1], 1)
        if s[at + 4]:
            count = put(active, count, s[at + 5], s[at + 6], 4)
    for i in range(4):
        count = put(active, count, BEACON_ROW[i], BEACON_COL[i], 2)
        cells = -(-s[FUEL + i] // 4)
        for c in range(cells):
            count = put(active, count, GAUGE_ROW[i], 9 - c if FROM_RIGHT[i] else c, 5)
    return count
