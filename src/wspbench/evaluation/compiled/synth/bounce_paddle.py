"""Bounce Paddle (`minatar_synth/games/bounce_paddle.py`) on a state row. Random calls: reset `randint(10)`
(ball column), `rand()` (side); a hit block `randint(5, 16)` (timer); a new block `randint(1, 5)`, `randint(10)`."""

from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, LEFT, RIGHT, TERMINAL, put
from wspbench.evaluation.compiled.mt19937 import bounded, randint, random_sample

SOURCE_SHA256 = "2fa999cc990351f8539b110e4bc696e17478001fcf7807d6c6e32269c9622615"
PADDLE, BALL_ROW, BALL_COL, D_ROW, D_COL, TRAIL_ON, TRAIL_ROW, TRAIL_COL = range(FIRST_FIELD, FIRST_FIELD + 8)
BLOCK_ON, BLOCK_ROW, BLOCK_COL, BLOCK_TIMER, STEPS = range(FIRST_FIELD + 8, FIRST_FIELD + 13)
MAX_STEPS = 1000


@njit(cache=True)
def reset(s, keys, positions, g):
    s[PADDLE] = 4
    s[BALL_ROW], s[BALL_COL] = 1, bounded(keys, positions, g, 0, 9)
    s[D_ROW], s[D_COL] = 1, 1 if random_sample(keys, positions, g) < 0.5 else -1
    s[TRAIL_ON], s[BLOCK_ON], s[BLOCK_TIMER], s[STEPS] = 0, 0, 3, 0
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    terminal = False
    if action == LEFT and s[PADDLE] > 0:
        s[PADDLE] -= 1
    elif action == RIGHT and s[PADDLE] < 8:
        s[PADDLE] += 1
    row, col = s[BALL_ROW], s[BALL_COL]
    s[TRAIL_ON], s[TRAIL_ROW], s[TRAIL_COL] = 1, row, col
    d_row, d_col = s[D_ROW], s[D_COL]
    col += d_col
    if col < 0:
        col, d_col = -col, -d_col
    elif col > 9:
        col, d_col = 18 - col, -d_col
    row += d_row
    if row < 0:
        row, d_row = 1, 1
    elif row == 9:
        if s[PADDLE] <= col < s[PADDLE] + 2:
            row, d_row = 7, -1
            reward += 1.0
            d_col = -1 if col == s[PADDLE] else 1
        else:
            terminal = True
    s[BALL_ROW], s[BALL_COL], s[D_ROW], s[D_COL] = row, col, d_row, d_col
    if s[BLOCK_ON] and s[BLOCK_ROW] == row and s[BLOCK_COL] == col:
        reward += 2.0
        s[BLOCK_ON] = 0
        s[BLOCK_TIMER] = randint(keys, positions, g, 5, 16)
    elif not s[BLOCK_ON]:
        s[BLOCK_TIMER] -= 1
        if s[BLOCK_TIMER] <= 0:
            b_row = randint(keys, positions, g, 1, 5)
            b_col = bounded(keys, positions, g, 0, 9)
            if (b_row + b_col) % 2 != (row + col) % 2:
                b_col ^= 1
            s[BLOCK_ON], s[BLOCK_ROW], s[BLOCK_COL] = 1, b_row, b_col
    s[STEPS] += 1
    s[TERMINAL] = terminal or s[STEPS] >= MAX_STEPS
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, s[PADDLE], 0)
    count = put(active, count, 9, s[PADDLE] + 1, 0)
    count = put(active, count, s[BALL_ROW], s[BALL_COL], 3)
    if s[TRAIL_ON]:
        count = put(active, count, s[TRAIL_ROW], s[TRAIL_COL], 4)
    if s[BLOCK_ON]:
        count = put(active, count, s[BLOCK_ROW], s[BLOCK_COL], 2)
    return count
