"""Breakout as `minatar` 1.0.15 plays it, on a state row (see `common.py` for the layout rules).

One random call: `randint(2)` at reset picks the ball's side. Bricks are the 100 cells of `BRICKS`; only rows 1
to 3 ever hold one (the wall is built there and only ever rebuilt there), so only those 30 cells are read.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import FIRST_FIELD, LEFT, RIGHT, TERMINAL, WIDTH, put
from wspbench.evaluation.compiled.mt19937 import bounded

FOLLOWS = "minatar.environments.breakout"  # the game module this twin follows (`engine.twin_of`)

BALL_Y, BALL_X, BALL_DIR, POSITION, STRIKE, LAST_X, LAST_Y = range(FIRST_FIELD, FIRST_FIELD + 7)
BRICKS = FIRST_FIELD + 7
# output channels: paddle -> player 0, ball -> projectile 3, trail -> trail 4, brick -> reward 2
PADDLE_OUT, BALL_OUT, TRAIL_OUT, BRICK_OUT = 0, 3, 4, 2
# direction 0: up-left, 1: up-right, 2: down-right, 3: down-left
STEP_X = (-1, 1, 1, -1)
STEP_Y = (-1, -1, 1, 1)
MIRROR_X = (1, 0, 3, 2)
MIRROR_Y = (3, 2, 1, 0)
PADDLE_SIDE = (2, 3, 0, 1)


@njit(cache=True)
def reset(s, keys, positions, g):
    s[BALL_Y] = 3
    if bounded(keys, positions, g, 0, 1) == 0:
        s[BALL_X], s[BALL_DIR] = 0, 2
    else:
        s[BALL_X], s[BALL_DIR] = 9, 3
    s[POSITION] = 4
    for cell in range(100):
        s[BRICKS + cell] = 1 if 10 <= cell < 40 else 0
    s[STRIKE] = 0
    s[LAST_X] = s[BALL_X]
    s[LAST_Y] = s[BALL_Y]
    s[TERMINAL] = 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0
    if action == LEFT:
        s[POSITION] = max(0, s[POSITION] - 1)
    elif action == RIGHT:
        s[POSITION] = min(9, s[POSITION] + 1)
    s[LAST_X] = s[BALL_X]
    s[LAST_Y] = s[BALL_Y]
    direction = s[BALL_DIR]
    new_x = s[BALL_X] + STEP_X[direction]
    new_y = s[BALL_Y] + STEP_Y[direction]
    struck = False
    if new_x < 0 or new_x > 9:
        new_x = min(max(new_x, 0), 9)
        s[BALL_DIR] = MIRROR_X[s[BALL_DIR]]
    if new_y < 0:
        new_y = 0
        s[BALL_DIR] = MIRROR_Y[s[BALL_DIR]]
    elif s[BRICKS + new_y * 10 + new_x] == 1:
        struck = True
        if s[STRIKE] == 0:
            reward += 1
            s[STRIKE] = 1
            s[BRICKS + new_y * 10 + new_x] = 0
            new_y = s[LAST_Y]
            s[BALL_DIR] = MIRROR_Y[s[BALL_DIR]]
    elif new_y == 9:
        remaining = 0
        for cell in range(10, 40):
            remaining += s[BRICKS + cell] != 0
        if remaining == 0:
            for cell in range(10, 40):
                s[BRICKS + cell] = 1
        if s[BALL_X] == s[POSITION]:
            s[BALL_DIR] = MIRROR_Y[s[BALL_DIR]]
            new_y = s[LAST_Y]
        elif new_x == s[POSITION]:
            s[BALL_DIR] = PADDLE_SIDE[s[BALL_DIR]]
            new_y = s[LAST_Y]
        else:
            s[TERMINAL] = 1
    if not struck:
        s[STRIKE] = 0
    s[BALL_X] = new_x
    s[BALL_Y] = new_y
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[BALL_Y], s[BALL_X], BALL_OUT)
    count = put(active, count, 9, s[POSITION], PADDLE_OUT)
    count = put(active, count, s[LAST_Y], s[LAST_X], TRAIL_OUT)
    for cell in range(10, 40):
        if s[BRICKS + cell] != 0:
            count = put(active, count, cell // 10, cell % 10, BRICK_OUT)
    return count


def from_minatar(game) -> np.ndarray:
    """The row holding a `minatar` breakout `Env`'s fields (for the differential tests)."""
    s = np.zeros(WIDTH, np.int64)
    s[TERMINAL] = game.terminal
    s[BALL_Y], s[BALL_X], s[BALL_DIR], s[POSITION] = game.ball_y, game.ball_x, game.ball_dir, game.pos
    s[STRIKE], s[LAST_X], s[LAST_Y] = game.strike, game.last_x, game.last_y
    s[BRICKS : BRICKS + 100] = np.asarray(game.brick_map).reshape(100)
    return s
