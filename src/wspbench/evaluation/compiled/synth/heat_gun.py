"""Heat Gun (`minatar_synth/games/heat_gun.py`) on a state row. Random calls when the spawn timer runs out:
`randint(n)` over the n free columns of row 0, `randint(3)` (pace), `randint(3)` (the timer's jitter).

Shots and invaders are count-prefixed arrays in the module's list order."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRE, FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import bounded

SOURCE_SHA256 = "b5106469cf3b0a085979337b4525e67ffa952aae571021ff09c1af0013f4a9f3"
GUN, HEAT, JAMMED, SPAWN_TIMER, STEPS = range(FIRST_FIELD, FIRST_FIELD + 5)
SHOTS = FIRST_FIELD + 5  # count, then [row, col]
SHOT_CAPACITY = 32
INVADERS = SHOTS + 1 + 2 * SHOT_CAPACITY  # count, then [row, col, pace, steps until it moves down]
INVADER_CAPACITY = 100
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[GUN], s[HEAT], s[JAMMED], s[SPAWN_TIMER], s[STEPS], s[SHOTS], s[INVADERS] = 4, 0, 0, 2, 0, 0, 0
    s[TERMINAL] = 0


@njit(cache=True)
def _remove(s, base, width, index):
    for i in range(base + 1 + width * index, base + 1 + width * (s[base] - 1)):
        s[i] = s[i + width]
    s[base] -= 1


@njit(cache=True)
def _invader_at(s, row, col):
    for i in range(s[INVADERS]):
        at = INVADERS + 1 + 4 * i
        if s[at] == row and s[at + 1] == col:
            return i
    return -1


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    if action == LEFT:
        s[GUN] = max(0, s[GUN] - 1)
    elif action == RIGHT:
        s[GUN] = min(9, s[GUN] + 1)
    elif action == FIRE and not s[JAMMED]:
        at = SHOTS + 1 + 2 * s[SHOTS]
        s[at], s[at + 1] = 9, s[GUN]
        s[SHOTS] += 1
        s[HEAT] += 3
        if s[HEAT] >= 10:
            s[HEAT], s[JAMMED] = 10, 1
    s[HEAT] = max(0, s[HEAT] - 1)
    if s[HEAT] == 0:
        s[JAMMED] = 0
    kept = 0
    for i in range(s[SHOTS]):
        at = SHOTS + 1 + 2 * i
        flying = True
        for _ in range(2):
            s[at] -= 1
            if s[at] < 0:
                flying = False
                break
            target = _invader_at(s, s[at], s[at + 1])
            if target >= 0:
                _remove(s, INVADERS, 4, target)
                reward += 1.0
                flying = False
                break
        if flying:
            to = SHOTS + 1 + 2 * kept
            s[to], s[to + 1] = s[at], s[at + 1]
            kept += 1
    s[SHOTS] = kept
    terminal = False
    i = 0
    while i < s[INVADERS]:
        at = INVADERS + 1 + 4 * i
        s[at + 3] -= 1
        if s[at + 3] > 0:
            i += 1
            continue
        if _invader_at(s, s[at] + 1, s[at + 1]) >= 0:
            s[at + 3] = 1
            i += 1
            continue
        s[at] += 1
        s[at + 3] = s[at + 2]
        if s[at] >= 9:
            terminal = True
        removed = False
        for k in range(s[SHOTS]):
            shot = SHOTS + 1 + 2 * k
            if s[shot] == s[at] and s[shot + 1] == s[at + 1]:
                _remove(s, SHOTS, 2, k)
                _remove(s, INVADERS, 4, i)
                reward += 1.0
                removed = True
                break
        if not removed:
            i += 1
    s[SPAWN_TIMER] -= 1
    if s[SPAWN_TIMER] <= 0:
        taken = 0
        for k in range(s[INVADERS]):
            at = INVADERS + 1 + 4 * k
            if s[at] == 0:
                taken |= 1 << s[at + 1]
        free = 0
        for col in range(10):
            free += not (taken >> col) & 1
        pick = bounded(keys, positions, g, 0, free - 1)
        col = 0
        for c in range(10):
            if not (taken >> c) & 1:
                if pick == 0:
                    col = c
                    break
                pick -= 1
        pace = 2 + bounded(keys, positions, g, 0, 2)
        at = INVADERS + 1 + 4 * s[INVADERS]
        s[at], s[at + 1], s[at + 2], s[at + 3] = 0, col, pace, pace
        s[INVADERS] += 1
        ramp = min(1.0, s[STEPS] / 800)
        interval = 9 + (3 - 9) * ramp
        s[SPAWN_TIMER] = int(interval) + bounded(keys, positions, g, 0, 2) - 1
    s[STEPS] += 1
    s[TERMINAL] = terminal or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, s[GUN], 0)
    for i in range(s[INVADERS]):
        at = INVADERS + 1 + 4 * i
        count = put(active, count, s[at], s[at + 1], 1)
    for i in range(s[SHOTS]):
        at = SHOTS + 1 + 2 * i
        count = put(active, count, s[at], s[at + 1], 3)
    for col in range(s[HEAT]):
        count = put(active, count, 7 if s[JAMMED] else 8, col, 5)
    return count
