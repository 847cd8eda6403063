"""Crossfire (`minatar_synth/games/crossfire.py`) on a state row. Random calls per step, after the bullets fly:
for each unit of the spawn rate, `rand()` (unless the unit is whole), then `rand()` (row) and `rand()` (side)."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, move_in_grid, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "05afda39d6f61f77983ac053add072a83dc96ad4a7128dbd034e67e2014b5a8e"
ROW, COL, STEPS, BULLETS = range(FIRST_FIELD, FIRST_FIELD + 4)  # BULLETS: count, then [row, col, direction, moved]
FIELDS = 4
CAPACITY = 200
MAX_STEPS = 600


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[COL], s[STEPS], s[BULLETS] = 5, 4, 0, 0
    s[TERMINAL] = 0


@njit(cache=True)
def _hit(s):
    for i in range(s[BULLETS]):
        at = BULLETS + 1 + FIELDS * i
        if s[at] == s[ROW] and s[at + 1] == s[COL]:
            return True
    return False


@njit(cache=True)
def _add(s, row, col, direction, moved):
    at = BULLETS + 1 + FIELDS * s[BULLETS]
    s[at], s[at + 1], s[at + 2], s[at + 3] = row, col, direction, moved
    s[BULLETS] += 1


@njit(cache=True)
def step(s, action, keys, positions, g):
    move_in_grid(s, ROW, COL, action)
    reward = 0.0
    if _hit(s):
        s[TERMINAL] = 1
    else:
        kept = 0
        for i in range(s[BULLETS]):
            at = BULLETS + 1 + FIELDS * i
            col = s[at + 1] + s[at + 2]
            if 0 <= col < 10:
                to = BULLETS + 1 + FIELDS * kept
                s[to], s[to + 1], s[to + 2], s[to + 3] = s[at], col, s[at + 2], 1
                kept += 1
            else:
                reward += 1.0
        s[BULLETS] = kept
        rate = 0.35 + 0.0012 * s[STEPS]
        while rate > 0:
            if rate >= 1 or random_sample(keys, positions, g) < rate:
                row = int(random_sample(keys, positions, g) * 10)
                if random_sample(keys, positions, g) < 0.5:
                    _add(s, row, 0, 1, 0)
                else:
                    _add(s, row, 9, -1, 0)
            rate -= 1
        if _hit(s):
            s[TERMINAL] = 1
    s[STEPS] += 1
    if s[STEPS] >= MAX_STEPS:
        s[TERMINAL] = 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], s[COL], 0)
    for i in range(s[BULLETS]):
        at = BULLETS + 1 + FIELDS * i
        count = put(active, count, s[at], s[at + 1], 3)
        if s[at + 3]:
            count = put(active, count, s[at], s[at + 1] - s[at + 2], 4)
    for col in range((10 * (MAX_STEPS - s[STEPS]) + MAX_STEPS - 1) // MAX_STEPS):
        count = put(active, count, 0, col, 5)
    return count
