"""Missile Defense (`minatar_synth/games/missile_defense.py`) on a state row. Random calls when the spawn timer
runs out and a city stands: `randint(n)` over the n starts aimed at a standing city, then `randint(6, 12)`."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import FIRE, FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import bounded, randint

SOURCE_SHA256 = "2655cb2cb5fbdb819dc50e559d6f0712c33a50861f8008a75363eb9f71e3ea1a"
LAUNCHER, CITIES, SPAWN_TIMER, STEPS, SHOT_ON, SHOT_ROW, SHOT_COL = range(FIRST_FIELD, FIRST_FIELD + 7)
MISSILES = FIRST_FIELD + 7  # count, then [row, col, direction, trail row, trail col]
FIELDS = 5
CITY_BITS = (1 << 1) | (1 << 3) | (1 << 6) | (1 << 8)
MAX_STEPS = 1000


def _landing(col: int, direction: int) -> int:
    row = 0
    while row < 9:
        col += direction
        if col < 0:
            col, direction = 1, 1
        elif col > 9:
            col, direction = 8, -1
        row += 1
    return col


START_COL = np.array([col for col in range(10) for _ in (-1, 1)])
START_DIR = np.array([d for _ in range(10) for d in (-1, 1)])
START_LANDS = np.array([_landing(col, d) for col in range(10) for d in (-1, 1)])


@njit(cache=True)
def _move(row, col, direction):
    col += direction
    if col < 0:
        col, direction = 1, 1
    elif col > 9:
        col, direction = 8, -1
    return row + 1, col, direction


@njit(cache=True)
def reset(s, keys, positions, g):
    s[LAUNCHER], s[CITIES], s[SPAWN_TIMER], s[STEPS], s[SHOT_ON], s[MISSILES] = 4, CITY_BITS, 3, 0, 0, 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    if action == LEFT:
        s[LAUNCHER] = max(0, s[LAUNCHER] - 1)
    elif action == RIGHT:
        s[LAUNCHER] = min(9, s[LAUNCHER] + 1)
    elif action == FIRE and not s[SHOT_ON]:
        s[SHOT_ON], s[SHOT_ROW], s[SHOT_COL] = 1, 9, s[LAUNCHER]
    kept = 0
    for i in range(s[MISSILES]):
        at = MISSILES + 1 + FIELDS * i
        row, col = s[at], s[at + 1]
        new_row, new_col, direction = _move(row, col, s[at + 2])
        if new_row >= 9:
            s[CITIES] &= ~(1 << new_col)
        else:
            to = MISSILES + 1 + FIELDS * kept
            s[to], s[to + 1], s[to + 2], s[to + 3], s[to + 4] = new_row, new_col, direction, row, col
            kept += 1
    s[MISSILES] = kept
    if s[SHOT_ON]:
        for climb in range(3):
            if climb > 0:
                s[SHOT_ROW] -= 1
                if s[SHOT_ROW] < 0:
                    s[SHOT_ON] = 0
                    break
            hit = -1
            for i in range(s[MISSILES]):
                at = MISSILES + 1 + FIELDS * i
                if s[at] == s[SHOT_ROW] and s[at + 1] == s[SHOT_COL]:
                    hit = i
                    break
            if hit >= 0:
                for k in range(MISSILES + 1 + FIELDS * hit, MISSILES + 1 + FIELDS * (s[MISSILES] - 1)):
                    s[k] = s[k + FIELDS]
                s[MISSILES] -= 1
                reward += 1.0
                s[SHOT_ON] = 0
                break
    s[SPAWN_TIMER] -= 1
    if s[SPAWN_TIMER] <= 0 and s[CITIES]:
        aimed = 0
        for k in range(20):
            aimed += (s[CITIES] >> START_LANDS[k]) & 1
        pick = bounded(keys, positions, g, 0, aimed - 1)
        for k in range(20):
            if (s[CITIES] >> START_LANDS[k]) & 1:
                if pick == 0:
                    row, col, direction = _move(0, START_COL[k], START_DIR[k])
                    at = MISSILES + 1 + FIELDS * s[MISSILES]
                    s[at], s[at + 1], s[at + 2], s[at + 3], s[at + 4] = row, col, direction, 0, START_COL[k]
                    s[MISSILES] += 1
                    break
                pick -= 1
        s[SPAWN_TIMER] = randint(keys, positions, g, 6, 12)
    s[STEPS] += 1
    s[TERMINAL] = s[CITIES] == 0 or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, s[LAUNCHER], 0)
    for i in range(s[MISSILES]):
        at = MISSILES + 1 + FIELDS * i
        count = put(active, count, s[at], s[at + 1], 1)
        count = put(active, count, s[at + 3], s[at + 4], 4)
    for col in range(10):
        if (s[CITIES] >> col) & 1:
            count = put(active, count, 9, col, 2)
    if s[SHOT_ON]:
        count = put(active, count, s[SHOT_ROW], s[SHOT_COL], 3)
    return count
