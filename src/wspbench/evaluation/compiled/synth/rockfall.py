"""Rockfall (`minatar_synth/games/rockfall.py`) on a state row. Random calls on each fall tick: for each unit of
the spawn rate, `rand()` (unless the unit is whole), then `rand()` (the new rock's column)."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "6307d4d95aef8f0d6e062cb5eea0a807e8219121f22061a85338baf715861b03"
PLAYER, STEPS, TIMER = range(FIRST_FIELD, FIRST_FIELD + 3)
ROCKS = FIRST_FIELD + 3  # count, then [row, col, fell]
MAX_STEPS = 1000


@njit(cache=True)
def _period(steps):
    if steps < 150:
        return 3
    if steps < 400:
        return 2
    return 1


@njit(cache=True)
def reset(s, keys, positions, g):
    s[PLAYER], s[STEPS], s[ROCKS] = 5, 0, 0
    s[TIMER] = _period(0)
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    if action == LEFT and s[PLAYER] > 0:
        s[PLAYER] -= 1
    elif action == RIGHT and s[PLAYER] < 9:
        s[PLAYER] += 1
    reward = 0.0
    s[STEPS] += 1
    s[TIMER] -= 1
    if s[TIMER] == 0:
        kept = 0
        for i in range(s[ROCKS]):
            at = ROCKS + 1 + 3 * i
            if s[at] == 8:
                if s[at + 1] == s[PLAYER]:
                    s[TERMINAL] = 1
                else:
                    reward += 1.0
            else:
                to = ROCKS + 1 + 3 * kept
                s[to], s[to + 1], s[to + 2] = s[at] + 1, s[at + 1], 1
                kept += 1
        s[ROCKS] = kept
        rate = (0.3 + 0.0012 * s[STEPS]) * _period(s[STEPS])
        while rate > 0:
            if rate >= 1 or random_sample(keys, positions, g) < rate:
                at = ROCKS + 1 + 3 * s[ROCKS]
                s[at], s[at + 1], s[at + 2] = 0, int(random_sample(keys, positions, g) * 10), 0
                s[ROCKS] += 1
            rate -= 1
        s[TIMER] = _period(s[STEPS])
    if s[STEPS] >= MAX_STEPS:
        s[TERMINAL] = 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, s[PLAYER], 0)
    for i in range(s[ROCKS]):
        at = ROCKS + 1 + 3 * i
        count = put(active, count, s[at], s[at + 1], 1)
        if s[at + 2]:
            count = put(active, count, s[at] - 1, s[at + 1], 4)
    for col in range(s[TIMER]):
        count = put(active, count, 9, col, 5)
    return count
