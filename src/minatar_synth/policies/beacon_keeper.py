"""Scripted Beacon Keeper player: tours the beacons clockwise, refuels each nearly to full, and sidesteps the storms."""

from minatar_synth.games.beacon_keeper import BEACONS, STORM_SPEED

TL, TR, BL, BR = 0, 1, 2, 3
NEXT = {TL: TR, TR: BR, BR: BL, BL: TL}  # clockwise tour
FILL = 18  # leave a beacon once it holds this much fuel
MOVES = ((0, 0, 0), (1, 0, -1), (2, -1, 0), (3, 0, 1), (4, 1, 0))  # action, drow, dcol


def _route(row, col):
    """Direction of the clockwise tour from any cell (the same route the reference program uses)."""
    if row <= 2 and col < 7:
        return 4 if row < 2 else 3
    if col >= 7 and row < 7:
        return 1 if col > 7 else 4
    if row >= 7 and col > 2:
        return 2 if row > 7 else 1
    if col <= 2 and row > 2:
        return 3 if col < 2 else 2
    return 2


def _swept(env):
    """Cells the storms sweep on the next step if they keep their course."""
    cells = set()
    for r, c, (dr, dc), _ in env.storms:
        cells.add((r, c))
        for _ in range(STORM_SPEED):
            if not 0 <= r + dr <= 9:
                dr = -dr
            if not 0 <= c + dc <= 9:
                dc = -dc
            r, c = r + dr, c + dc
            cells.add((r, c))
    return cells


def policy(env):
    here = [i for i, cell in enumerate(BEACONS) if cell == (env.row, env.col)]
    action = 0 if here and env.fuel[here[0]] < FILL else _route(env.row, env.col)
    danger = _swept(env)
    landing = {a: (min(9, max(0, env.row + dr)), min(9, max(0, env.col + dc))) for a, dr, dc in MOVES}
    if landing[action] not in danger:
        return action
    for a, _, _ in MOVES:  # sidestep: wait, or any safe move
        if landing[a] not in danger:
            return a
    return action
