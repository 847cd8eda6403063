"""Scripted strong player for crossfire: maximises the chance of surviving the known bullets, sticky actions
included."""

import numpy as np

from minatar_synth.games.crossfire import RATE_GROWTH, SIZE, START_RATE

HORIZON = 9
_rows = np.repeat(np.arange(SIZE), SIZE)
_cols = np.tile(np.arange(SIZE), SIZE)
# NEXT[a]: the cell reached from each cell by action a (0 no-op, 1 left, 2 up, 3 right, 4 down)
NEXT = np.stack(
    [
        _rows * SIZE + _cols,
        _rows * SIZE + np.maximum(_cols - 1, 0),
        np.maximum(_rows - 1, 0) * SIZE + _cols,
        _rows * SIZE + np.minimum(_cols + 1, SIZE - 1),
        np.minimum(_rows + 1, SIZE - 1) * SIZE + _cols,
    ]
)
CENTRE = 1.0 - 0.002 * (np.abs(_cols - 4.5) + np.abs(_rows - 4.5))


def policy(env):
    # bullets[k]: cells holding a known bullet after k more bullet moves
    bullets = np.zeros((HORIZON + 1, SIZE * SIZE), dtype=bool)
    for row, col, direction, _ in env.bullets:
        for k in range(HORIZON + 1):
            c = col + k * direction
            if not 0 <= c < SIZE:
                break
            bullets[k, row * SIZE + c] = True
    # bullets not on the field yet enter at the edges: chance that one of them is in a cell
    per_row_side = (START_RATE + RATE_GROWTH * env.steps) / (2 * SIZE)
    value = np.repeat(CENTRE[:, None], 5, axis=1)  # value[cell, last action] = chance of surviving
    for k in range(HORIZON, 0, -1):
        unseen = ((_cols <= k - 1).astype(float) + (SIZE - 1 - _cols <= k - 1)) * per_row_side
        alive = ~(bullets[k - 1] | bullets[k]) * (1.0 - unseen)
        q = np.stack([alive[NEXT[a]] * value[NEXT[a], a] for a in range(5)], axis=1)
        if k == 1:
            break
        value = 0.9 * q.max(axis=1, keepdims=True) + 0.1 * q
    here = q[env.row * SIZE + env.col]
    return int(np.argmax(here + 1e-9 * (np.arange(5) == 0)))
