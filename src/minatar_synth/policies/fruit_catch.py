"""Scripted Fruit Catch player: dynamic programming over the known landing times of all falling objects."""

from minatar_synth.games.fruit_catch import BOMB, BOTTOM, GRID

BOMB_COST = 6.0  # a life is worth several fruit
NEAR_BOMB_COST = 0.3  # standing next to a landing bomb is risky (sticky actions)
MOVES = ((0, 0), (1, -1), (3, 1))  # (action, column change); "stay" first so ties keep still


def policy(env):
    # payoff[t][col]: what the basket gains by standing at col when step t (1-based) resolves.
    landings = []
    for row, col, kind, period, countdown in env.objects:
        step = countdown + (BOTTOM - row - 1) * period
        landings.append((step, col, -BOMB_COST if kind == BOMB else 1.0))
    horizon = max([step for step, _, _ in landings], default=0) + 1
    payoff = [[0.0] * GRID for _ in range(horizon + 1)]
    for step, col, value in landings:
        payoff[step][col] += value
        if value < 0:
            for side in (col - 1, col + 1):
                if 0 <= side < GRID:
                    payoff[step][side] -= NEAR_BOMB_COST
    # Slight pull to the middle at the end of the horizon (keeps new fruit reachable).
    value = [-0.01 * abs(col - 4.5) for col in range(GRID)]
    for t in range(horizon, 0, -1):
        value = [
            payoff[t][col] + max(value[c] for c in (col - 1, col, col + 1) if 0 <= c < GRID) for col in range(GRID)
        ]
    best_action, best = 0, None
    for action, shift in MOVES:
        col = env.basket + shift
        if 0 <= col < GRID and (best is None or value[col] > best + 1e-9):
            best_action, best = action, value[col]
    return best_action
