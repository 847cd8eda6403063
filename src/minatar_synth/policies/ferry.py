"""Scripted Ferry player: time-expanded search for the quickest debris-free path to the passenger or landing spot."""

from minatar_synth.games.ferry import LANE_DIR

MOVES = ((0, 0, 0), (1, 0, -1), (2, -1, 0), (3, 0, 1), (4, 1, 0))  # action, drow, dcol
HORIZON = 16


def _danger(env):
    """danger[t] = set of (lane, col) cells debris touches during future step t + 1."""
    pieces = [(lane, col, speed) for lane, (col, speed, _) in env.debris.items()]
    danger = []
    for _ in range(HORIZON):
        cells, moved = set(), []
        for lane, col, speed in pieces:
            d = LANE_DIR[lane]
            new_col = col + d * speed
            for c in range(min(col, new_col), max(col, new_col) + 1):
                cells.add((lane, c))
            if (new_col > 9 and d > 0) or (new_col < 0 and d < 0):
                new_col, speed = (-1 if d > 0 else 10), 3  # re-enters: assume the worst, at once and fast
            moved.append((lane, new_col, speed))
        pieces = moved
        danger.append(cells)
    return danger


def policy(env):
    goal = (0 if env.aboard else 9, env.target)
    danger = _danger(env)
    frontier = {(env.row, env.col): None}
    for t in range(HORIZON):
        nxt = {}
        for (r, c), first in frontier.items():
            for a, dr, dc in MOVES:
                cell = (min(9, max(0, r + dr)), min(9, max(0, c + dc)))
                if cell in nxt or cell in danger[t]:
                    continue
                nxt[cell] = a if first is None else first
        if goal in nxt:
            return nxt[goal]
        frontier = nxt
    # No safe path found within the horizon: take the safe move that gets closest.
    best, best_d = 0, None
    for a, dr, dc in MOVES:
        cell = (min(9, max(0, env.row + dr)), min(9, max(0, env.col + dc)))
        d = abs(cell[0] - goal[0]) + abs(cell[1] - goal[1]) + (100 if cell in danger[0] else 0)
        if best_d is None or d < best_d:
            best, best_d = a, d
    return best
