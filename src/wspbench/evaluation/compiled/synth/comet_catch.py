"""Comet Catch (`minatar_synth/games/comet_catch.py`) on a state row. Random calls: a new comet `randint(10)`,
`rand()` (direction), `rand()` (speed); a new meteor `randint(10)`, `rand()` (speed); reset makes both."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, TERMINAL, move_in_grid, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

SOURCE_SHA256 = "a26b8328dc84e35389964931bbfb14ba4fcdeb43afbb446a6402f8bb3ca37d1c"
ROW, COL, LIVES, STEPS, COMET_ROW, COMET_COL, COMET_DIR, COMET_SPEED, TAIL_ON, TAIL_ROW, TAIL_COL = range(
    FIRST_FIELD, FIRST_FIELD + 11
)
METEOR_ROW, METEOR_COL, METEOR_SPEED = range(FIRST_FIELD + 11, FIRST_FIELD + 14)
MAX_STEPS = 600


@njit(cache=True)
def _new_comet(s, keys, positions, g):
    s[COMET_ROW], s[COMET_COL] = 0, bounded(keys, positions, g, 0, 9)
    s[COMET_DIR] = 1 if random_sample(keys, positions, g) < 0.5 else -1
    s[COMET_SPEED] = 2 if random_sample(keys, positions, g) < 0.35 else 1
    s[TAIL_ON] = 0


@njit(cache=True)
def _new_meteor(s, keys, positions, g):
    s[METEOR_ROW], s[METEOR_COL] = 0, bounded(keys, positions, g, 0, 9)
    s[METEOR_SPEED] = 2 if random_sample(keys, positions, g) < 0.5 else 1


@njit(cache=True)
def reset(s, keys, positions, g):
    s[ROW], s[COL], s[LIVES] = 7, 4, 3
    _new_comet(s, keys, positions, g)
    _new_meteor(s, keys, positions, g)
    s[STEPS] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    move_in_grid(s, ROW, COL, action, 4)
    touched = s[COMET_ROW] == s[ROW] and s[COMET_COL] == s[COL]
    s[TAIL_ON], s[TAIL_ROW], s[TAIL_COL] = 1, s[COMET_ROW], s[COMET_COL]
    for _ in range(s[COMET_SPEED]):
        if not 0 <= s[COMET_COL] + s[COMET_DIR] <= 9:
            s[COMET_DIR] = -s[COMET_DIR]
        s[COMET_ROW] += 1
        s[COMET_COL] += s[COMET_DIR]
        touched = touched or (s[COMET_ROW] == s[ROW] and s[COMET_COL] == s[COL])
    if touched:
        reward += 1.0
        _new_comet(s, keys, positions, g)
    elif s[COMET_ROW] > 9:
        _new_comet(s, keys, positions, g)
    r, c = s[METEOR_ROW], s[METEOR_COL]
    if c == s[COL] and r <= s[ROW] <= r + s[METEOR_SPEED]:
        s[LIVES] -= 1
        _new_meteor(s, keys, positions, g)
    elif r + s[METEOR_SPEED] > 9:
        _new_meteor(s, keys, positions, g)
    else:
        s[METEOR_ROW] = r + s[METEOR_SPEED]
    s[STEPS] += 1
    s[TERMINAL] = s[LIVES] <= 0 or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[ROW], s[COL], 0)
    count = put(active, count, s[METEOR_ROW], s[METEOR_COL], 1)
    count = put(active, count, s[COMET_ROW], s[COMET_COL], 2)
    if s[TAIL_ON]:
        count = put(active, count, s[TAIL_ROW], s[TAIL_COL], 4)
    lives = s[LIVES] if s[LIVES] >= 0 else max(0, 10 + s[LIVES])  # numpy's slice [:lives]
    for col in range(min(lives, 10)):
        count = put(active, count, 9, col, 5)
    return count
