"""Gravity Flip (`minatar_synth/games/gravity_flip.py`) on a state row. Random calls when a stretch is built (the
queue ran out): `rand()` (gap), `rand()` (run), per gap column `rand()` (block) and below the chance `rand()`
(its lane), `rand()` (coin) and below the chance `rand()` (its lane); then `rand()` (spike surface).

Things are only ever in the four lanes, rows 0, 3, 6 and 9, and so is the player: a column is 4 lane cells."""

from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRE, FIRST_FIELD, TERMINAL, UP, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "da53be7c2b4abd317c381b750049abb94db4efa4be830c5d2010349dc0af870f"
ROW, PULL, PREV_ROW, STEPS, QUEUED = range(FIRST_FIELD, FIRST_FIELD + 5)
COLUMNS = FIRST_FIELD + 5  # 10 on-screen columns of 4 lanes
QUEUE = COLUMNS + 40  # QUEUED columns of 4 lanes, oldest first
EMPTY, BAD, COIN = 0, 1, 2
MAX_STEPS = 1000


@njit(cache=True)
def _pick(low, high, keys, positions, g):
    return low + int(random_sample(keys, positions, g) * (high - low + 1))


@njit(cache=True)
def _blend(a, b, level):
    return int(round(a + (b - a) * level))


@njit(cache=True)
def _build_stretch(s, keys, positions, g):
    level = min(1.0, s[STEPS] / 800)
    gap = _pick(_blend(4, 1, level), _blend(7, 4, level), keys, positions, g)
    run = _pick(_blend(1, 1, level), _blend(2, 4, level), keys, positions, g)
    block = 0.05 + (0.25 - 0.05) * level
    for _ in range(gap):
        at = QUEUE + 4 * s[QUEUED]
        for lane in range(4):
            s[at + lane] = EMPTY
        if random_sample(keys, positions, g) < block:
            s[at + (1 if random_sample(keys, positions, g) < 0.5 else 2)] = BAD
        if random_sample(keys, positions, g) < 0.15:
            lane = _pick(0, 3, keys, positions, g)
            if s[at + lane] == EMPTY:
                s[at + lane] = COIN
        s[QUEUED] += 1
    surface = 3 if random_sample(keys, positions, g) < 0.5 else 0
    for _ in range(run):
        at = QUEUE + 4 * s[QUEUED]
        for lane in range(4):
            s[at + lane] = BAD if lane == surface else EMPTY
        s[QUEUED] += 1


@njit(cache=True)
def _new_column(s, at, keys, positions, g):
    """Put the next queued column (building a stretch when none is left) at `at`."""
    if s[QUEUED] == 0:
        _build_stretch(s, keys, positions, g)
    for lane in range(4):
        s[at + lane] = s[QUEUE + lane]
    for i in range(QUEUE, QUEUE + 4 * (s[QUEUED] - 1)):
        s[i] = s[i + 4]
    s[QUEUED] -= 1


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[PULL], s[PREV_ROW], s[STEPS], s[QUEUED] = 9, 1, 9, 0, 0
    for i in range(COLUMNS, COLUMNS + 12):
        s[i] = EMPTY
    for col in range(3, 10):
        _new_column(s, COLUMNS + 4 * col, keys, positions, g)
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    if s[ROW] == 9 or s[ROW] == 0:
        if action == FIRE:
            s[PULL] = -s[PULL]
        elif action == UP:
            s[PULL] = -1
        elif action == DOWN:
            s[PULL] = 1
    s[PREV_ROW] = s[ROW]
    s[ROW] = min(9, max(0, s[ROW] + 3 * s[PULL]))
    for i in range(COLUMNS, COLUMNS + 36):
        s[i] = s[i + 4]
    _new_column(s, COLUMNS + 36, keys, positions, g)
    reward = 0.0
    at = COLUMNS + 4 * 2 + s[ROW] // 3
    if s[at] == BAD:
        s[TERMINAL] = 1
    elif s[at] == COIN:
        s[at] = EMPTY
        reward = 1.0
    s[STEPS] += 1
    if s[STEPS] >= MAX_STEPS:
        s[TERMINAL] = 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], 2, 0)
    if s[PREV_ROW] != s[ROW]:
        count = put(active, count, s[PREV_ROW], 2, 4)
    for col in range(10):
        for lane in range(4):
            thing = s[COLUMNS + 4 * col + lane]
            if thing == BAD:
                count = put(active, count, 3 * lane, col, 1)
            elif thing == COIN:
                count = put(active, count, 3 * lane, col, 2)
    return count
