"""Treasure Dive (`minatar_synth/games/treasure_dive.py`) on a state row. Random calls: a new treasure draws
`rand()` (column) until the column is free (reset adds three); per step `rand()` (a fish) and below the chance
`rand()` (row), `rand()` (direction), `rand()` (period). Treasures are a bitmask of floor columns."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, move_in_grid, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "7720b8be997cbb1b9b3dadf42154b677163b9fb92cad2c949b4823243ac71c9e"
ROW, COL, OXYGEN, TREASURES, STEPS = range(FIRST_FIELD, FIRST_FIELD + 5)
FISH = FIRST_FIELD + 5  # count, then [row, col, step, period, countdown]
FIELDS = 5
CAPACITY = 64
TRAILS = FISH + 1 + FIELDS * CAPACITY  # count, then (row, col)
MAX_STEPS = 1000


@njit(cache=True)
def _add_treasure(s, keys, positions, g):
    while True:
        col = int(random_sample(keys, positions, g) * 10)
        if not (s[TREASURES] >> col) & 1:
            s[TREASURES] |= 1 << col
            return


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[COL], s[OXYGEN], s[TREASURES] = 0, 4, 30, 0
    for _ in range(3):
        _add_treasure(s, keys, positions, g)
    s[FISH], s[TRAILS], s[STEPS] = 0, 0, 0
    s[TERMINAL] = 0


@njit(cache=True)
def _bitten(s):
    kept = 0
    count = s[FISH]
    for i in range(count):
        at = FISH + 1 + FIELDS * i
        if s[at] == s[ROW] and s[at + 1] == s[COL]:
            continue
        to = FISH + 1 + FIELDS * kept
        for f in range(FIELDS):
            s[to + f] = s[at + f]
        kept += 1
    s[FISH] = kept
    return count - kept


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    move_in_grid(s, ROW, COL, action)
    if s[ROW] == 9 and (s[TREASURES] >> s[COL]) & 1:
        s[TREASURES] &= ~(1 << s[COL])
        _add_treasure(s, keys, positions, g)
        reward = 1.0
    bites = _bitten(s)
    s[TRAILS] = 0
    kept = 0
    for i in range(s[FISH]):
        at = FISH + 1 + FIELDS * i
        s[at + 4] -= 1
        if s[at + 4] == 0:
            s[at + 4] = s[at + 3]
            t = TRAILS + 1 + 2 * s[TRAILS]
            s[t], s[t + 1] = s[at], s[at + 1]
            s[TRAILS] += 1
            s[at + 1] += s[at + 2]
        if 0 <= s[at + 1] < 10:
            to = FISH + 1 + FIELDS * kept
            for f in range(FIELDS):
                s[to + f] = s[at + f]
            kept += 1
    s[FISH] = kept
    bites += _bitten(s)
    if random_sample(keys, positions, g) < 0.12:
        row = 2 + int(random_sample(keys, positions, g) * 7)
        direction = 1 if random_sample(keys, positions, g) < 0.5 else -1
        period = 1 if random_sample(keys, positions, g) < 0.5 else 2
        col = 0 if direction == 1 else 9
        if not (row == s[ROW] and col == s[COL]):
            at = FISH + 1 + FIELDS * s[FISH]
            s[at], s[at + 1], s[at + 2], s[at + 3], s[at + 4] = row, col, direction, period, period
            s[FISH] += 1
    if s[ROW] == 0:
        s[OXYGEN] = min(s[OXYGEN] + 6, 30)
    else:
        s[OXYGEN] -= 1
    reward += -1.0 * bites
    s[STEPS] += 1
    s[TERMINAL] = s[OXYGEN] <= 0 or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], s[COL], 0)
    for i in range(s[FISH]):
        at = FISH + 1 + FIELDS * i
        count = put(active, count, s[at], s[at + 1], 1)
    for col in range(10):
        if (s[TREASURES] >> col) & 1:
            count = put(active, count, 9, col, 2)
    for t in range(s[TRAILS]):
        count = put(active, count, s[TRAILS + 1 + 2 * t], s[TRAILS + 2 + 2 * t], 4)
    for col in range(-(-max(s[OXYGEN], 0) * 10 // 30)):
        count = put(active, count, 0, col, 5)
    return count
