"""Scripted strong player for river_hop: dynamic programming over the (deterministic) lanes, sticky actions included."""

import numpy as np

from minatar_synth.games.river_hop import RIVER_ROWS, SIZE, START_ROW

HORIZON = 24
DEATH = 150.0  # cost of losing the frog, in steps (it is sent back and the time is lost)

_rows = np.repeat(np.arange(SIZE), SIZE)
_cols = np.tile(np.arange(SIZE), SIZE)
# where a hop from each cell lands, for actions 0 no-op, 1 left, 2 up, 3 right, 4 down
HOP_ROW = np.stack([_rows, _rows, _rows - 1, _rows, np.minimum(START_ROW, _rows + 1)], axis=1)
HOP_COL = np.stack([_cols, (_cols - 1) % SIZE, _cols, (_cols + 1) % SIZE, _cols], axis=1)
GOAL = HOP_ROW == 0
HOP_ROW = np.maximum(HOP_ROW, 0)
LEFT_TO_GO = 1.5 * _rows + 2.0  # rough cost of a frog still on its way when the plan ends


def _moves(t, timer, period):
    return 0 if t < timer else 1 + (t - timer) // period


def policy(env):
    # danger[t]: deadly cells after t lane moves; slide[t][row]: columns a log in row slides at step t
    danger = np.zeros((HORIZON + 1, SIZE, SIZE), dtype=bool)
    slide = np.zeros((HORIZON + 1, SIZE), dtype=np.int64)
    for row, (direction, period, timer, offset, pattern, _, _) in env.lanes.items():
        river = row in RIVER_ROWS
        base = np.array(pattern) != river
        for t in range(HORIZON + 1):
            n = _moves(t, timer, period)
            danger[t, row] = np.roll(base, offset + n * direction)
            if river and t >= 1 and n > _moves(t - 1, timer, period):
                slide[t, row] = direction
    value = np.repeat(LEFT_TO_GO[:, None], 5, axis=1)  # value[cell, last action]
    for t in range(HORIZON, 0, -1):
        dead = danger[t - 1, HOP_ROW, HOP_COL]
        col = (HOP_COL + slide[t, HOP_ROW]) % SIZE
        dead |= danger[t, HOP_ROW, col]
        after = value[HOP_ROW * SIZE + col, np.arange(5)[None, :]]
        q = np.where(GOAL, 1.0, np.where(dead, DEATH, 1.0 + after))  # q[cell, executed action]
        if t == 1:
            break
        value = 0.9 * q.min(axis=1, keepdims=True) + 0.1 * q
    return int(np.argmin(q[env.row * SIZE + env.col]))
