"""Pogo Jump (`minatar_synth/games/pogo_jump.py`) on a state row. Random calls when a wall enters: `rand()`
(height); unless it is a pair's second wall, `rand()` (a pair) and, if not, `rand()` (width); then, unless it
starts a pair, `rand()` (the gap after it)."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, UP, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "ca364c8612fd295c07572971123ec7c2f9d8c046cce858aa10e2e0c62bb571b3"
HEIGHT, PREV_HEIGHT, CHARGE, PAIR, UNTIL_WALL, STEPS, ARC = range(FIRST_FIELD, FIRST_FIELD + 7)
ARC_HEIGHTS = ARC + 1  # the jump's heights still to come, next first
WALLS = ARC_HEIGHTS + 8  # count, then [left column, width, height]
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[HEIGHT], s[PREV_HEIGHT], s[CHARGE], s[PAIR], s[UNTIL_WALL], s[STEPS], s[ARC], s[WALLS] = 0, 0, 0, 0, 6, 0, 0, 0
    s[TERMINAL] = 0


@njit(cache=True)
def _spawn(s, keys, positions, g):
    s[UNTIL_WALL] -= 1
    if s[UNTIL_WALL] > 0:
        return
    height = 1 if random_sample(keys, positions, g) < 0.5 else 2
    gap = -1
    if s[PAIR]:
        width = 1
        s[PAIR] = 0
    elif random_sample(keys, positions, g) < 0.3:
        width, gap = 1, 1
        s[PAIR] = 1
    else:
        width = 1 if random_sample(keys, positions, g) < 0.6 else 2
    if gap < 0:
        gap = 9 + int(random_sample(keys, positions, g) * 5)
    at = WALLS + 1 + 3 * s[WALLS]
    s[at], s[at + 1], s[at + 2] = 9, width, height
    s[WALLS] += 1
    s[UNTIL_WALL] = width + gap


@njit(cache=True)
def step(s, action, keys, positions, g):
    s[PREV_HEIGHT] = s[HEIGHT]
    if s[ARC] > 0:
        s[HEIGHT] = s[ARC_HEIGHTS]
        for i in range(ARC_HEIGHTS, ARC_HEIGHTS + s[ARC] - 1):
            s[i] = s[i + 1]
        s[ARC] -= 1
    elif action == UP:
        s[CHARGE] = min(s[CHARGE] + 1, 4)
    elif s[CHARGE] > 0:
        power = s[CHARGE]
        s[CHARGE] = 0
        n = 0
        for h in range(2, power + 1):
            s[ARC_HEIGHTS + n] = h
            n += 1
        for h in range(power - 1, -1, -1):
            s[ARC_HEIGHTS + n] = h
            n += 1
        s[ARC] = n
        s[HEIGHT] = 1
    reward = 0.0
    kept = 0
    for i in range(s[WALLS]):
        at = WALLS + 1 + 3 * i
        s[at] -= 1
        if s[at] + s[at + 1] == 2:
            reward += 1.0
        if s[at] + s[at + 1] > 0:
            to = WALLS + 1 + 3 * kept
            s[to], s[to + 1], s[to + 2] = s[at], s[at + 1], s[at + 2]
            kept += 1
    s[WALLS] = kept
    _spawn(s, keys, positions, g)
    s[STEPS] += 1
    row = 8 - s[HEIGHT]
    crashed = False
    for i in range(s[WALLS]):
        at = WALLS + 1 + 3 * i
        if s[at] <= 2 < s[at] + s[at + 1] and row > 8 - s[at + 2]:
            crashed = True
    if crashed:
        reward = 0.0
    s[TERMINAL] = crashed or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 8 - s[HEIGHT], 2, 0)
    count = put(active, count, 8 - s[PREV_HEIGHT], 1, 4)
    for i in range(s[WALLS]):
        at = WALLS + 1 + 3 * i
        for c in range(max(s[at], 0), min(s[at] + s[at + 1], 10)):
            for row in range(8 - s[at + 2] + 1, 9):
                count = put(active, count, row, c, 1)
    for col in range(s[CHARGE]):
        count = put(active, count, 0, col, 5)
    return count
