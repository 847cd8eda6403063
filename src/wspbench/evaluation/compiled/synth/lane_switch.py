"""Lane Switch (`minatar_synth/games/lane_switch.py`) on a state row. Random calls per new road row: `rand()` per
lane (car, can or nothing), then `rand()` (the corridor's drift); reset builds six rows."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import random_sample

SOURCE_SHA256 = "2d30b9a66185ad242a1ebdb97742fc1b7c2922b397a3fc2f6d2c79778490f669"
LANE, CORRIDOR, STEPS, TIMER, SCROLLED, FUEL = range(FIRST_FIELD, FIRST_FIELD + 6)
ROAD = FIRST_FIELD + 6  # 10 rows of 5 lanes, top row first
EMPTY, CAR, CAN = 0, 1, 2
MAX_STEPS = 1000


@njit(cache=True)
def _push_row(s, keys, positions, g):
    """Move the road down one row and make the new top row."""
    for i in range(ROAD + 49, ROAD + 4, -1):
        s[i] = s[i - 5]
    car_chance = min(0.16, 0.08 + 0.00008 * s[STEPS])
    for lane in range(5):
        u = random_sample(keys, positions, g)
        s[ROAD + lane] = CAR if u < car_chance else (CAN if u < car_chance + 0.10 else EMPTY)
    s[CORRIDOR] = min(4, max(0, s[CORRIDOR] + int(random_sample(keys, positions, g) * 3) - 1))
    if s[ROAD + s[CORRIDOR]] == CAR:
        s[ROAD + s[CORRIDOR]] = EMPTY


@njit(cache=True)
def reset(s, keys, positions, g):
    s[LANE], s[CORRIDOR], s[STEPS] = 2, 2, 0
    for i in range(ROAD, ROAD + 50):
        s[i] = EMPTY
    for _ in range(6):
        _push_row(s, keys, positions, g)
    s[TIMER], s[SCROLLED], s[FUEL] = 2, 0, 60
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    if action == LEFT and s[LANE] > 0:
        s[LANE] -= 1
    elif action == RIGHT and s[LANE] < 4:
        s[LANE] += 1
    reward = 0.0
    s[TIMER] -= 1
    s[SCROLLED] = s[TIMER] == 0
    if s[SCROLLED]:
        _push_row(s, keys, positions, g)
        thing = s[ROAD + 45 + s[LANE]]
        for lane in range(5):
            s[ROAD + 45 + lane] = EMPTY
        if thing == CAR:
            s[TERMINAL] = 1
        elif thing == CAN:
            s[FUEL] = 60
            reward = 1.0
        s[TIMER] = 2
    s[STEPS] += 1
    s[FUEL] -= 1
    if s[FUEL] <= 0 or s[STEPS] >= MAX_STEPS:
        s[TERMINAL] = 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, 2 * s[LANE], 0)
    count = put(active, count, 9, 2 * s[LANE] + 1, 0)
    for r in range(9):
        for lane in range(5):
            thing = s[ROAD + 5 * r + lane]
            if thing != EMPTY:
                channel = 1 if thing == CAR else 2
                count = put(active, count, r, 2 * lane, channel)
                count = put(active, count, r, 2 * lane + 1, channel)
                if s[SCROLLED] and r > 0:
                    count = put(active, count, r - 1, 2 * lane, 4)
                    count = put(active, count, r - 1, 2 * lane + 1, 4)
    lit = -(-10 * s[FUEL] // 60)
    for col in range(min(max(lit, 0), 10)):
        count = put(active, count, 0, col, 5)
    return count
