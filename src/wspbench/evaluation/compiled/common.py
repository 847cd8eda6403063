"""What every compiled game shares: the slot's state row layout, the sticky-action wrapper, and observation marks.

A game's state is one int64 row. Fields 0 and 1 are the wrapper's last action and the terminal flag; a game
lays its own fields out from `FIRST_FIELD`. An observation is the list of active network inputs
`(row * 10 + column) * 6 + output_channel`; `seen` (600 bytes, all zero between observations) makes each
input appear once however many source channels of its OR-group are on.
"""

from __future__ import annotations

from numba import njit

LAST_ACTION = 0
TERMINAL = 1
FIRST_FIELD = 2
WIDTH = 1024  # the widest game's row (seaquest's lists) fits
NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)


@njit(cache=True, inline="always")
def mark(seen, active, count, row, column, channel):
    """Turn input (row, column, channel) on; returns the new count of active inputs."""
    index = (row * 10 + column) * 6 + channel
    if seen[index] == 0:
        seen[index] = 1
        active[count] = index
        count += 1
    return count
