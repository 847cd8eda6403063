"""Scripted strong player for gravity_flip: plans over the visible columns for coins and safety, sticky actions
included."""

from minatar_synth.games.gravity_flip import (
    BAD,
    CEILING,
    COIN,
    DOWN,
    FALL,
    FIRE,
    FLOOR,
    LANES,
    NOOP,
    PLAYER_COL,
    SIZE,
    UP,
)

DEATH = -40.0
ACTIONS = (NOOP, UP, DOWN, FIRE)


def _fall(row, pull):
    return min(FLOOR, max(CEILING, row + FALL * pull))


def _pull(row, pull, action):
    if row in (FLOOR, CEILING):
        if action == FIRE:
            return -pull
        if action == UP:
            return -1
        if action == DOWN:
            return 1
    return pull


def policy(env):
    horizon = SIZE - 1 - PLAYER_COL  # columns 3..9 arrive at steps 1..7
    # value[(row, pull, last)] after the last known column: standing is a little better
    value = {
        (row, pull, last): (0.2 if row in (FLOOR, CEILING) else 0.0)
        for row in LANES
        for pull in (-1, 1)
        for last in ACTIONS
    }

    def outcome(t, row, pull, action, value):
        pull = _pull(row, pull, action)
        row = _fall(row, pull)
        cell = env.columns[PLAYER_COL + t][row]
        if cell == BAD:
            return DEATH
        return (1.0 if cell == COIN else 0.0) + value[row, pull, action]

    for t in range(horizon, 1, -1):
        new = {}
        for row, pull, last in value:
            best = max(outcome(t, row, pull, a, value) for a in ACTIONS)
            new[row, pull, last] = 0.9 * best + 0.1 * outcome(t, row, pull, last, value)
        value = new
    best_a, best_v = NOOP, None
    for a in ACTIONS:
        v = outcome(1, env.row, env.pull, a, value)
        if best_v is None or v > best_v + 1e-9:
            best_a, best_v = a, v
    return best_a
