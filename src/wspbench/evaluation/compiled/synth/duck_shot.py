"""Duck Shot (`minatar_synth/games/duck_shot.py`) on a state row. Random calls: `randint(1, 5)` for the spawn
timer after a hit or a duck leaving; a new duck `randint(3)` (row), `randint(2)` (speed), `rand()` (side)."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRE, FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import bounded, randint, random_sample

SOURCE_SHA256 = "393b935eff30372f7b7fbe6e72b58644b5c1b03c9d963959020fa393bc507578"
GUN, SHOT_ON, SHOT_ROW, SHOT_COL, DUCK_ON, DUCK_ROW, DUCK_COL, DUCK_DIR = range(FIRST_FIELD, FIRST_FIELD + 8)
TRAIL_ON, TRAIL_ROW, TRAIL_COL, AMMO, SPAWN_TIMER, STEPS = range(FIRST_FIELD + 8, FIRST_FIELD + 14)
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[GUN], s[SHOT_ON], s[DUCK_ON], s[TRAIL_ON], s[AMMO], s[SPAWN_TIMER], s[STEPS] = 4, 0, 0, 0, 10, 1, 0
    s[TERMINAL] = 0


@njit(cache=True)
def _duck_at_shot(s):
    return s[DUCK_ON] and s[DUCK_ROW] == s[SHOT_ROW] and s[DUCK_COL] == s[SHOT_COL]


@njit(cache=True)
def _hit(s, keys, positions, g):
    s[DUCK_ON], s[TRAIL_ON], s[SHOT_ON] = 0, 0, 0
    s[AMMO] += 1
    s[SPAWN_TIMER] = randint(keys, positions, g, 1, 5)
    return 1.0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    if action == LEFT:
        s[GUN] = max(0, s[GUN] - 1)
    elif action == RIGHT:
        s[GUN] = min(9, s[GUN] + 1)
    elif action == FIRE and not s[SHOT_ON] and s[AMMO] > 0:
        s[SHOT_ON], s[SHOT_ROW], s[SHOT_COL] = 1, 9, s[GUN]
        s[AMMO] -= 1
    if s[SHOT_ON]:
        for _ in range(2):
            s[SHOT_ROW] -= 1
            if s[SHOT_ROW] < 0:
                s[SHOT_ON] = 0
                break
            if _duck_at_shot(s):
                reward += _hit(s, keys, positions, g)
                break
    if s[DUCK_ON]:
        s[TRAIL_ON], s[TRAIL_ROW], s[TRAIL_COL] = 1, s[DUCK_ROW], s[DUCK_COL]
        s[DUCK_COL] += s[DUCK_DIR]
        if not 0 <= s[DUCK_COL] <= 9:
            s[DUCK_ON], s[TRAIL_ON] = 0, 0
            s[SPAWN_TIMER] = randint(keys, positions, g, 1, 5)
        elif s[SHOT_ON] and _duck_at_shot(s):
            reward += _hit(s, keys, positions, g)
    if not s[DUCK_ON]:
        s[SPAWN_TIMER] -= 1
        if s[SPAWN_TIMER] <= 0:
            row = 1 + bounded(keys, positions, g, 0, 2)
            speed = 1 + bounded(keys, positions, g, 0, 1)
            s[DUCK_ON], s[DUCK_ROW] = 1, row
            if random_sample(keys, positions, g) < 0.5:
                s[DUCK_COL], s[DUCK_DIR] = 0, speed
            else:
                s[DUCK_COL], s[DUCK_DIR] = 9, -speed
    s[STEPS] += 1
    s[TERMINAL] = (s[AMMO] == 0 and not s[SHOT_ON]) or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, s[GUN], 0)
    if s[DUCK_ON]:
        count = put(active, count, s[DUCK_ROW], s[DUCK_COL], 2)
    if s[SHOT_ON]:
        count = put(active, count, s[SHOT_ROW], s[SHOT_COL], 3)
    if s[TRAIL_ON]:
        count = put(active, count, s[TRAIL_ROW], s[TRAIL_COL], 4)
    for col in range(min(s[AMMO], 10)):
        count = put(active, count, 0, col, 5)
    return count
