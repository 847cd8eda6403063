"""Charge Cannon (`minatar_synth/games/charge_cannon.py`) on a state row. Random calls when the spawn timer runs
out: `randint(n)` over the n empty rows (if any) and `randint(2)` (pace), then `randint(3)` (the timer's jitter).
The module's walkers are a dict by row; the row keeps one walker slot per row (their order changes nothing)."""

from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRE, FIRST_FIELD, TERMINAL, UP, put
from wspbench.evaluation.compiled.mt19937 import bounded

SOURCE_SHA256 = "cd2c998487f06a1f671155e43c37d312d6fcbf588f8ba459d4c452428834f4da"
ROW, CHARGE, BEAM, BEAM_ROW, SPAWN_TIMER, STEPS = range(FIRST_FIELD, FIRST_FIELD + 6)
WALKERS = FIRST_FIELD + 6  # per row: present, col, pace, steps until its next move
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[CHARGE], s[BEAM], s[BEAM_ROW], s[SPAWN_TIMER], s[STEPS] = 4, 0, 0, 0, 2, 0
    for row in range(10):
        s[WALKERS + 4 * row] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    s[BEAM] = 0
    if action == FIRE:
        s[CHARGE] = min(9, s[CHARGE] + 1)
    elif s[CHARGE] > 0:
        s[BEAM], s[BEAM_ROW] = s[CHARGE], s[ROW]
        at = WALKERS + 4 * s[ROW]
        if s[at] and s[at + 1] <= s[CHARGE]:
            s[at] = 0
            reward += 1.0
        s[CHARGE] = 0
    if action == UP:
        s[ROW] = max(0, s[ROW] - 1)
    elif action == DOWN:
        s[ROW] = min(9, s[ROW] + 1)
    terminal = False
    for row in range(10):
        at = WALKERS + 4 * row
        if s[at]:
            s[at + 3] -= 1
            if s[at + 3] == 0:
                s[at + 1] -= 1
                s[at + 3] = s[at + 2]
                if s[at + 1] == 0:
                    terminal = True
    s[SPAWN_TIMER] -= 1
    if s[SPAWN_TIMER] <= 0:
        empty = 0
        for row in range(10):
            empty += s[WALKERS + 4 * row] == 0
        if empty:
            pick = bounded(keys, positions, g, 0, empty - 1)
            pace = 2 if bounded(keys, positions, g, 0, 1) == 0 else 4
            for row in range(10):
                at = WALKERS + 4 * row
                if s[at] == 0:
                    if pick == 0:
                        s[at], s[at + 1], s[at + 2], s[at + 3] = 1, 9, pace, pace
                        break
                    pick -= 1
        ramp = min(1.0, s[STEPS] / 600)
        interval = 12 + (4 - 12) * ramp
        s[SPAWN_TIMER] = int(interval) + bounded(keys, positions, g, 0, 2) - 1
    s[STEPS] += 1
    s[TERMINAL] = terminal or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], 0, 0)
    for row in range(10):
        at = WALKERS + 4 * row
        if s[at]:
            count = put(active, count, row, s[at + 1], 1)
    for col in range(1, min(s[BEAM], 9) + 1):
        count = put(active, count, s[BEAM_ROW], col, 3)
    for col in range(1, min(s[CHARGE], 9) + 1):
        count = put(active, count, s[ROW], col, 5)
    return count
