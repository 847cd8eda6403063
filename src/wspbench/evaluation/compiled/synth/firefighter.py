"""Firefighter (`minatar_synth/games/firefighter.py`) on a state row. Random calls per step: for each burning
column in order `rand()` (grow), then for a fire of height >= 2 `rand()` per neighbour inside the grid (spread);
then `rand()` (ignite) and, below the chance, `randint(10)` (column)."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRE, FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

SOURCE_SHA256 = "d7d66065528548e64e69b4dbb1464cdad5075b604af6ff3ac153bec13c1327b7"
PLANE, TANK, REFILL, STEPS = range(FIRST_FIELD, FIRST_FIELD + 4)
HOUSES = FIRST_FIELD + 4  # 10 columns: standing
FIRES = HOUSES + 10  # 10 columns: flame height
DROPS = FIRES + 10  # count, then [row, col]
CAPACITY = 64
MAX_STEPS = 800


@njit(cache=True)
def reset(s, keys, positions, g):
    s[PLANE], s[TANK], s[REFILL], s[STEPS] = 4, 3, 0, 0
    for col in range(10):
        s[HOUSES + col], s[FIRES + col] = 1, 0
    s[DROPS] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    if action == LEFT:
        s[PLANE] = max(0, s[PLANE] - 1)
    elif action == RIGHT:
        s[PLANE] = min(9, s[PLANE] + 1)
    elif action == FIRE and s[TANK] > 0:
        s[TANK] -= 1
        at = DROPS + 1 + 2 * s[DROPS]
        s[at], s[at + 1] = 1, s[PLANE]
        s[DROPS] += 1
    s[REFILL] += 1
    if s[REFILL] >= 6:
        s[REFILL] = 0
        s[TANK] = min(3, s[TANK] + 1)
    kept = 0
    for i in range(s[DROPS]):
        at = DROPS + 1 + 2 * i
        row, col = s[at], s[at + 1]
        new_row = row + 2
        if s[FIRES + col] > 0 and new_row >= 9 - s[FIRES + col]:
            s[FIRES + col] -= 1
            if s[FIRES + col] == 0:
                reward += 1.0
        elif new_row < 9:
            to = DROPS + 1 + 2 * kept
            s[to], s[to + 1] = new_row, col
            kept += 1
    s[DROPS] = kept
    spread = 0  # a bit per column that a fire spread to (the order of spreading changes nothing)
    for col in range(10):
        if s[FIRES + col] == 0:
            continue
        if random_sample(keys, positions, g) < 0.06:
            s[FIRES + col] += 1
            if s[FIRES + col] > 3:
                s[FIRES + col] = 0
                s[HOUSES + col] = 0
                continue
        if s[FIRES + col] >= 2:
            for n in (col - 1, col + 1):
                if 0 <= n < 10 and random_sample(keys, positions, g) < 0.05:
                    spread |= 1 << n
    for col in range(10):
        if (spread >> col) & 1 and s[HOUSES + col] and s[FIRES + col] == 0:
            s[FIRES + col] = 1
    ignite = min(0.3, 0.15 + 0.0002 * s[STEPS])
    if random_sample(keys, positions, g) < ignite:
        col = bounded(keys, positions, g, 0, 9)
        if s[HOUSES + col] and s[FIRES + col] == 0:
            s[FIRES + col] = 1
    s[STEPS] += 1
    standing = 0
    for col in range(10):
        standing += s[HOUSES + col]
    s[TERMINAL] = standing == 0 or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 0, s[PLANE], 0)
    for col in range(10):
        if s[HOUSES + col]:
            count = put(active, count, 9, col, 2)
        for h in range(s[FIRES + col]):
            count = put(active, count, 8 - h, col, 1)
    for i in range(s[DROPS]):
        row, col = s[DROPS + 1 + 2 * i], s[DROPS + 2 + 2 * i]
        count = put(active, count, row, col, 3)
        if row - 2 >= 0:
            count = put(active, count, row - 2, col, 4)
    for col in range(s[TANK]):
        count = put(active, count, 0, col, 5)
    return count
