"""Coin Runner (`minatar_synth/games/coin_runner.py`) on a state row. Random calls per new column: a wall
`rand()` (spacing), `rand()` (next gap); otherwise `rand()` (coin row's step), `rand()` (a coin or none)."""

from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRST_FIELD, TERMINAL, UP, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "2027a2fa811df01bd8f419cd8a5c0a14a96773dec45e1986af3cfc82c517d9be"
ROW, PREV_ROW, GAP, UNTIL_WALL, COIN_ROW, STEPS = range(FIRST_FIELD, FIRST_FIELD + 6)
COLUMNS = FIRST_FIELD + 6  # 10 columns, left to right: wall bitmask over rows, coin row (-1: none)
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[PREV_ROW], s[GAP], s[UNTIL_WALL], s[COIN_ROW], s[STEPS] = 5, 5, 3, 8, 5, 0
    for col in range(10):
        s[COLUMNS + 2 * col], s[COLUMNS + 2 * col + 1] = 0, -1
    s[TERMINAL] = 0


@njit(cache=True)
def _new_column(s, keys, positions, g):
    """The new rightmost column's walls and coin."""
    s[UNTIL_WALL] -= 1
    if s[UNTIL_WALL] == 0:
        walls = 1023 & ~(7 << s[GAP])
        coin = s[GAP] + 1
        spacing = 5 + int(random_sample(keys, positions, g) * 4)
        reach = spacing - 2
        low, high = max(s[GAP] - reach, 0), min(s[GAP] + reach, 7)
        s[GAP] = low + int(random_sample(keys, positions, g) * (high - low + 1))
        s[UNTIL_WALL] = spacing
        return walls, coin
    move = int(random_sample(keys, positions, g) * 3) - 1
    s[COIN_ROW] = min(max(s[COIN_ROW] + move, 0), 9)
    return 0, s[COIN_ROW] if random_sample(keys, positions, g) < 0.7 else -1


@njit(cache=True)
def _touch(s):
    """(reward, crashed) in the runner's cell (column 1)."""
    walls, coin = s[COLUMNS + 2], s[COLUMNS + 3]
    if (walls >> s[ROW]) & 1:
        return 0.0, True
    if coin == s[ROW]:
        s[COLUMNS + 3] = -1
        return 1.0, False
    return 0.0, False


@njit(cache=True)
def step(s, action, keys, positions, g):
    s[PREV_ROW] = s[ROW]
    if action == UP:
        s[ROW] = max(0, s[ROW] - 1)
    elif action == DOWN:
        s[ROW] = min(9, s[ROW] + 1)
    reward, crashed = _touch(s)
    if not crashed:
        for i in range(COLUMNS, COLUMNS + 18):
            s[i] = s[i + 2]
        s[COLUMNS + 18], s[COLUMNS + 19] = _new_column(s, keys, positions, g)
        gained, crashed = _touch(s)
        reward += gained
    s[STEPS] += 1
    s[TERMINAL] = crashed or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], 1, 0)
    count = put(active, count, s[PREV_ROW], 0, 4)
    for col in range(10):
        walls, coin = s[COLUMNS + 2 * col], s[COLUMNS + 2 * col + 1]
        for row in range(10):
            if (walls >> row) & 1:
                count = put(active, count, row, col, 1)
        if coin >= 0:
            count = put(active, count, coin, col, 2)
    return count
