"""Scripted Coin Runner player: expected-value planning over the visible columns, sticky actions included."""

from minatar_synth.games.coin_runner import DOWN, GRID, RUNNER_COL, UP

CRASH = -1000.0
STICKY = 0.1
MOVES = ((0, 0), (UP, -1), (DOWN, 1))  # (action, row change); staying first so ties keep still
SHIFTS = {0: 0, UP: -1, DOWN: 1}


def policy(env):
    columns = env.columns

    def wall(j, row):
        return j < GRID and (columns[j][0] >> row) & 1

    def gain(k, prev, shift):
        # Step k moves by shift, checks column j, scrolls, checks column j + 1.
        row = min(max(prev + shift, 0), GRID - 1)
        j = RUNNER_COL + k - 1
        if wall(j, row) or wall(j + 1, row):
            return row, CRASH
        coins = (columns[j][1] == row and prev != row) + (j + 1 < GRID and columns[j + 1][1] == row)
        return row, coins

    # value[(row, last shift)] before step k; after the last visible step prefer the middle.
    value = {(row, s): -0.05 * abs(row - 4.5) for row in range(GRID) for s in (-1, 0, 1)}
    for k in range(GRID - 1 - RUNNER_COL, 1, -1):
        new_value = {}
        for prev in range(GRID):
            outcomes = {}
            for s in (-1, 0, 1):
                row, g = gain(k, prev, s)
                outcomes[s] = g + (value[(row, s)] if g > CRASH / 2 else 0.0)
            for last in (-1, 0, 1):
                new_value[(prev, last)] = max((1 - STICKY) * outcomes[s] + STICKY * outcomes[last] for s in (-1, 0, 1))
        value = new_value
    # First step: choose the intended move (the same expectation, knowing the last action).
    last = SHIFTS.get(env.last_action, 0)
    best_action, best = 0, None
    for action, shift in MOVES:
        total = 0.0
        for s, p in ((shift, 1 - STICKY), (last, STICKY)):
            row, g = gain(1, env.row, s)
            total += p * (g + (value[(row, s)] if g > CRASH / 2 else 0.0))
        if best is None or total > best + 1e-9:
            best_action, best = action, total
    return best_action
