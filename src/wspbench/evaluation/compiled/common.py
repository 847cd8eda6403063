"""What every compiled game shares: the slot's state row layout, the sticky-action wrapper, and observation marks.

A game's state is one int64 row. Fields 0 and 1 are the wrapper's last action and the terminal flag; a game
lays its own fields out from `FIRST_FIELD`. An observation is the list of active network inputs
`(row * 10 + column) * 6 + output_channel`: a game's `observe` `put`s every input that one of its source
channels turns on, and `unique` then keeps each input once however many channels of its OR-group are on
(writing the whole list first and removing repeats afterwards is several times faster than checking each
input as it is written).
"""

from __future__ import annotations

from numba import njit

LAST_ACTION = 0
TERMINAL = 1
FIRST_FIELD = 2
WIDTH = 1024  # the widest game's row (seaquest's lists) fits
CANDIDATES = 1024  # more inputs than any game puts before repeats are removed (space invaders: at most 501)
NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)


@njit(cache=True, inline="always")
def put(active, count, row, column, channel):
    """Append input (row, column, channel) to the list; returns the new count."""
    active[count] = (row * 10 + column) * 6 + channel
    return count + 1


@njit(cache=True)
def move_in_grid(s, row, col, action, top=0):
    """Actions 1 (left), 2 (up), 3 (right) and 4 (down) move the cell in fields `row` and `col` of row `s` one step,
    stopping at the grid's edges (and at row `top`); other actions leave it."""
    if action == LEFT:
        s[col] = max(0, s[col] - 1)
    elif action == RIGHT:
        s[col] = min(9, s[col] + 1)
    elif action == UP:
        s[row] = max(top, s[row] - 1)
    elif action == DOWN:
        s[row] = min(9, s[row] + 1)


@njit(cache=True)
def unique(active, count, seen, stamp):
    """Keep the first of each repeated input in `active[:count]`; returns the new count. `seen` holds, per
    input, the stamp of the last observation that kept it, so a fresh stamp per observation needs no clearing."""
    kept = 0
    for t in range(count):
        index = active[t]
        if seen[index] != stamp:
            seen[index] = stamp
            active[kept] = index
            kept += 1
    return kept
