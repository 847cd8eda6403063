"""Scripted Comet Catch player: time-expanded search for the earliest comet interception that avoids the meteor."""

from minatar_synth.games.comet_catch import PLAYER_TOP

MOVES = ((0, 0, 0), (1, 0, -1), (2, -1, 0), (3, 0, 1), (4, 1, 0))  # action, drow, dcol
HORIZON = 12
HOME = (5, 4)  # where to wait for the next comet


def _comet_path(env):
    """touched[t] = cells the comet touches during future step t + 1."""
    (r, c), d, touched = env.comet, env.comet_dir, []
    for _ in range(HORIZON):
        cells = [(r, c)]
        for _ in range(env.comet_speed):
            if not 0 <= c + d <= 9:
                d = -d
            r, c = r + 1, c + d
            cells.append((r, c))
        touched.append(set(cells))
        if r > 9:
            break
    return touched


def _meteor_path(env):
    (r, c), touched = env.meteor, []
    for _ in range(HORIZON):
        touched.append({(r + k, c) for k in range(env.meteor_speed + 1)})
        r += env.meteor_speed
        if r > 9:
            break
    return touched


def policy(env):
    comet, meteor = _comet_path(env), _meteor_path(env)
    # frontier: cell -> first action that reached it safely
    frontier = {(env.row, env.col): None}
    for t in range(len(comet)):
        danger = meteor[t] if t < len(meteor) else set()
        nxt = {}
        for (r, c), first in frontier.items():
            for a, dr, dc in MOVES:
                cell = (min(9, max(PLAYER_TOP, r + dr)), min(9, max(0, c + dc)))
                if cell in danger or cell in nxt:
                    continue
                nxt[cell] = a if first is None else first
        for cell, first in nxt.items():
            if cell in comet[t]:
                return first
        frontier = nxt
    # No catch possible: head home, staying out of the meteor's way.
    danger = meteor[0] if meteor else set()
    best, best_d = 0, None
    for a, dr, dc in MOVES:
        cell = (min(9, max(PLAYER_TOP, env.row + dr)), min(9, max(0, env.col + dc)))
        d = abs(cell[0] - HOME[0]) + abs(cell[1] - HOME[1]) + (100 if cell in danger else 0)
        if best_d is None or d < best_d:
            best, best_d = a, d
    return best
