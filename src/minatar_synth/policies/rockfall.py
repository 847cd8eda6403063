"""Scripted strong player for rockfall: plans on the known landing schedule, sticky actions included."""

from minatar_synth.games.rockfall import COLS, FAST_FROM, GROUND_ROW, LEFT, NOOP, RIGHT

HORIZON = 12
MOVES = (NOOP, LEFT, RIGHT)


def _step(col, action):
    if action == LEFT:
        return max(0, col - 1)
    if action == RIGHT:
        return min(COLS - 1, col + 1)
    return col


def _landings(env):
    """Columns where rocks land at the end of each of the next HORIZON steps."""
    rows = [(r, c) for r, c, _ in env.rocks]
    timer, steps, out = env.timer, env.steps, []
    for _ in range(HORIZON):
        steps += 1
        timer -= 1
        land = set()
        if timer == 0:
            land = {c for r, c in rows if r == GROUND_ROW - 1}
            rows = [(r + 1, c) for r, c in rows if r < GROUND_ROW - 1]
            timer = 3 if steps < FAST_FROM[0] else 2 if steps < FAST_FROM[1] else 1
        out.append(land)
    return out, rows


def policy(env):
    landings, rest = _landings(env)
    # leaf value: survival plus a little preference for columns with few rocks still coming
    crowd = [0.0] * COLS
    for r, c in rest:
        crowd[c] += 0.01 * (r + 1)
    value = {}
    for col in range(COLS):
        centre = -0.001 * abs(col - 4.5)
        for last in MOVES:
            value[col, last] = 1.0 - crowd[col] + centre
    for land in reversed(landings[1:]):
        new = {}
        for col in range(COLS):
            for last in MOVES:
                best = 0.0
                for a in MOVES:
                    v = 0.0
                    for prob, done in ((0.9, a), (0.1, last)):
                        nc = _step(col, done)
                        if nc not in land:
                            v += prob * value[nc, done]
                    best = max(best, v)
                new[col, last] = best
        value = new
    col, first = env.player, landings[0]
    best_a, best_v = NOOP, -1.0
    for a in MOVES:
        nc = _step(col, a)
        v = value[nc, a] if nc not in first else 0.0
        if v > best_v + 1e-12:
            best_a, best_v = a, v
    return best_a
