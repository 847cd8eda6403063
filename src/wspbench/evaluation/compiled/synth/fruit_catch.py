"""Fruit Catch (`minatar_synth/games/fruit_catch.py`) on a state row. Random calls per step: `rand()` (spawn) and
below the chance `rand()` (column), `rand()` (kind), `rand()` (period), drawn before the free-cell check."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "deadc795f12665d5bf80866af8f0ead88204847397f3dff200b54d058be8654a"
BASKET, LIVES, STEPS = range(FIRST_FIELD, FIRST_FIELD + 3)
OBJECTS = FIRST_FIELD + 3  # count, then [row, col, kind, period, countdown]
FIELDS = 5
CAPACITY = 64
TRAILS = OBJECTS + 1 + FIELDS * CAPACITY  # count, then (row, col)
FRUIT, BOMB = 0, 1
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[BASKET], s[LIVES], s[STEPS], s[OBJECTS], s[TRAILS] = 5, 3, 0, 0, 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    if action == LEFT:
        s[BASKET] = max(0, s[BASKET] - 1)
    elif action == RIGHT:
        s[BASKET] = min(9, s[BASKET] + 1)
    s[TRAILS] = 0
    kept = 0
    for i in range(s[OBJECTS]):
        at = OBJECTS + 1 + FIELDS * i
        s[at + 4] -= 1
        keep = True
        if s[at + 4] <= 0:
            s[at + 4] = s[at + 3]
            t = TRAILS + 1 + 2 * s[TRAILS]
            s[t], s[t + 1] = s[at], s[at + 1]
            s[TRAILS] += 1
            s[at] += 1
            if s[at] >= 9:
                keep = False
                if s[at + 1] == s[BASKET]:
                    if s[at + 2] == FRUIT:
                        reward += 1.0
                    else:
                        s[LIVES] -= 1
        if keep:
            to = OBJECTS + 1 + FIELDS * kept
            for f in range(FIELDS):
                s[to + f] = s[at + f]
            kept += 1
    s[OBJECTS] = kept
    if random_sample(keys, positions, g) < 0.45:
        col = int(random_sample(keys, positions, g) * 10)
        kind = FRUIT if random_sample(keys, positions, g) < 0.6 else BOMB
        period = 1 if random_sample(keys, positions, g) < 0.5 else 2
        free = True
        for i in range(s[OBJECTS]):
            at = OBJECTS + 1 + FIELDS * i
            if s[at] == 0 and s[at + 1] == col:
                free = False
        if free:
            at = OBJECTS + 1 + FIELDS * s[OBJECTS]
            s[at], s[at + 1], s[at + 2], s[at + 3], s[at + 4] = 0, col, kind, period, period
            s[OBJECTS] += 1
    s[STEPS] += 1
    s[TERMINAL] = s[LIVES] <= 0 or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, s[BASKET], 0)
    for i in range(s[OBJECTS]):
        at = OBJECTS + 1 + FIELDS * i
        count = put(active, count, s[at], s[at + 1], 1 if s[at + 2] == BOMB else 2)
    for t in range(s[TRAILS]):
        count = put(active, count, s[TRAILS + 1 + 2 * t], s[TRAILS + 2 + 2 * t], 4)
    for col in range(min(max(s[LIVES], 0), 10)):
        count = put(active, count, 9, col, 5)
    return count
