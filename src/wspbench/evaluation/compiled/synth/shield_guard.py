"""Shield Guard (`minatar_synth/games/shield_guard.py`) on a state row. Random calls per step: `rand()` (spawn)
and below the chance `randint(4)` (side), `randint(2)` (lane), `rand()` (fast), `randint(speed)` (a slow one's
`randint(1)` draws nothing)."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

SOURCE_SHA256 = "1961f4955ccd0a143b52321fdb3ba172d05f0e068a8adee24825c9ef40c12d40"
SIDE, HEALTH, STEPS = range(FIRST_FIELD, FIRST_FIELD + 3)
PROJECTILES = FIRST_FIELD + 3  # count, then [side, lane, d, speed]
TOP, RIGHT, BOTTOM, LEFT = range(4)
ACTION_SIDE = np.array([-1, LEFT, TOP, RIGHT, BOTTOM, -1])  # -1: keep the side
MAX_STEPS = 1000


@njit(cache=True)
def _cell(side, lane, d):
    if side == TOP:
        return 3 - d, 4 + lane
    if side == BOTTOM:
        return 6 + d, 4 + lane
    if side == LEFT:
        return 4 + lane, 3 - d
    return 4 + lane, 6 + d


@njit(cache=True)
def reset(s, keys, positions, g):
    s[SIDE], s[HEALTH], s[STEPS], s[PROJECTILES] = TOP, 4, 0, 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    target = ACTION_SIDE[action] if ACTION_SIDE[action] >= 0 else s[SIDE]
    if (target - s[SIDE]) % 4 == 2:
        s[SIDE] = (s[SIDE] + 1) % 4
    else:
        s[SIDE] = target
    kept = 0
    for i in range(s[PROJECTILES]):
        at = PROJECTILES + 1 + 4 * i
        new_d = s[at + 2] - s[at + 3]
        if s[at] == s[SIDE] and new_d <= 0:
            reward += 1.0
        elif new_d < 0:
            s[HEALTH] -= 1
        else:
            to = PROJECTILES + 1 + 4 * kept
            s[to], s[to + 1], s[to + 2], s[to + 3] = s[at], s[at + 1], new_d, s[at + 3]
            kept += 1
    s[PROJECTILES] = kept
    spawn = min(0.7, 0.15 + 0.0003 * s[STEPS])
    if random_sample(keys, positions, g) < spawn:
        side = bounded(keys, positions, g, 0, 3)
        lane = bounded(keys, positions, g, 0, 1)
        fast = random_sample(keys, positions, g) < min(0.6, 0.2 + 0.0005 * s[STEPS])
        speed = 2 if fast else 1
        d = 4 + bounded(keys, positions, g, 0, speed - 1)
        at = PROJECTILES + 1 + 4 * s[PROJECTILES]
        s[at], s[at + 1], s[at + 2], s[at + 3] = side, lane, d, speed
        s[PROJECTILES] += 1
    s[STEPS] += 1
    s[TERMINAL] = s[HEALTH] <= 0 or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = 0
    for lane in range(2):
        row, col = _cell(s[SIDE], lane, 0)
        count = put(active, count, row, col, 0)
    for row in range(4, 6):
        for col in range(4, 6):
            count = put(active, count, row, col, 2)
    for i in range(s[PROJECTILES]):
        at = PROJECTILES + 1 + 4 * i
        d, speed = s[at + 2], s[at + 3]
        if d <= 3:
            row, col = _cell(s[at], s[at + 1], d)
            count = put(active, count, row, col, 3)
            if d + speed <= 3:
                row, col = _cell(s[at], s[at + 1], d + speed)
                count = put(active, count, row, col, 4)
    for col in range(min(max(s[HEALTH], 0), 10)):
        count = put(active, count, 9, col, 5)
    return count
