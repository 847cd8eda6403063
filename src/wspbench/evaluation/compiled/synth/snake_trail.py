"""Snake Trail (`minatar_synth/games/snake_trail.py`) on a state row. Random calls: reset draws cells, each
`rand()` (row) then `rand()` (column), until 4 rocks lie off row 5, then until the food lies on a free cell;
eating draws cells until the new food lies on a free cell. The body is an array, head first."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "eddb5186b472f06a5e1a197fa852a417e34a5e1033224b2e783ab731257feb71"
DIR_ROW, DIR_COL, HEADING_ROW, HEADING_COL, HUNGER, STEPS, FOOD_ROW, FOOD_COL, LENGTH = range(
    FIRST_FIELD, FIRST_FIELD + 9
)
ROCKS = FIRST_FIELD + 9  # 4 rocks: row, col
BODY = ROCKS + 8  # LENGTH cells: row, col, head first
TURN_ROW = np.array([0, 0, -1, 0, 1, 0])
TURN_COL = np.array([0, -1, 0, 1, 0, 0])
MAX_STEPS = 1000


@njit(cache=True)
def _cell(keys, positions, g):
    row = int(random_sample(keys, positions, g) * 10)
    return row, int(random_sample(keys, positions, g) * 10)


@njit(cache=True)
def _rock_at(s, row, col):
    for k in range(4):
        if s[ROCKS + 2 * k] == row and s[ROCKS + 2 * k + 1] == col:
            return True
    return False


@njit(cache=True)
def _body_at(s, row, col, length):
    for i in range(length):
        if s[BODY + 2 * i] == row and s[BODY + 2 * i + 1] == col:
            return True
    return False


@njit(cache=True)
def _place_food(s, keys, positions, g):
    while True:
        row, col = _cell(keys, positions, g)
        if not _rock_at(s, row, col) and not _body_at(s, row, col, s[LENGTH]):
            s[FOOD_ROW], s[FOOD_COL] = row, col
            return


@njit(cache=True)
def reset(s, keys, positions, g):
    s[LENGTH] = 3
    for i in range(3):
        s[BODY + 2 * i], s[BODY + 2 * i + 1] = 5, 5 - i
    s[DIR_ROW], s[DIR_COL], s[HEADING_ROW], s[HEADING_COL] = 0, 1, 0, 1
    for k in range(4):
        s[ROCKS + 2 * k], s[ROCKS + 2 * k + 1] = -1, -1
    rocks = 0
    while rocks < 4:
        row, col = _cell(keys, positions, g)
        if row != 5 and not _rock_at(s, row, col):
            s[ROCKS + 2 * rocks], s[ROCKS + 2 * rocks + 1] = row, col
            rocks += 1
    s[HUNGER], s[STEPS] = 0, 0
    s[TERMINAL] = 0
    _place_food(s, keys, positions, g)


@njit(cache=True)
def step(s, action, keys, positions, g):
    if 1 <= action <= 4:
        turn_row, turn_col = TURN_ROW[action], TURN_COL[action]
        if not (turn_row == -s[HEADING_ROW] and turn_col == -s[HEADING_COL]):
            s[DIR_ROW], s[DIR_COL] = turn_row, turn_col
    s[STEPS] += 1
    s[HUNGER] += 1
    if s[STEPS] % 2:
        s[TERMINAL] = s[HUNGER] >= 40 or s[STEPS] >= MAX_STEPS
        return 0.0
    s[HEADING_ROW], s[HEADING_COL] = s[DIR_ROW], s[DIR_COL]
    row = (s[BODY] + s[DIR_ROW] + 10) % 10
    col = (s[BODY + 1] + s[DIR_COL] + 10) % 10
    eats = row == s[FOOD_ROW] and col == s[FOOD_COL]
    if _rock_at(s, row, col) or _body_at(s, row, col, s[LENGTH] if eats else s[LENGTH] - 1):
        s[TERMINAL] = 1
        return 0.0
    for i in range(BODY + 2 * s[LENGTH] + 1, BODY + 1, -1):
        s[i] = s[i - 2]
    s[BODY], s[BODY + 1] = row, col
    s[LENGTH] += 1
    reward = 0.0
    full = False
    if eats:
        reward = 1.0
        s[HUNGER] = 0
        full = s[LENGTH] + 4 >= 100
        if not full:
            _place_food(s, keys, positions, g)
    else:
        s[LENGTH] -= 1
    s[TERMINAL] = full or s[HUNGER] >= 40 or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    shift_row, shift_col = 5 - s[BODY], 5 - s[BODY + 1]
    count = put(active, 0, 5, 5, 0)
    for i in range(1, s[LENGTH]):
        count = put(
            active, count, (s[BODY + 2 * i] + shift_row + 10) % 10, (s[BODY + 2 * i + 1] + shift_col + 10) % 10, 4
        )
    for k in range(4):
        count = put(
            active, count, (s[ROCKS + 2 * k] + shift_row + 10) % 10, (s[ROCKS + 2 * k + 1] + shift_col + 10) % 10, 1
        )
    count = put(active, count, (s[FOOD_ROW] + shift_row + 10) % 10, (s[FOOD_COL] + shift_col + 10) % 10, 2)
    cells = -(-(40 - s[HUNGER]) * 10 // 40)
    for col in range(min(max(cells, 0), 10)):
        count = put(active, count, 0, col, 5)
    return count
