"""Scripted Treasure Dive player: line up at the surface, dive, sweep the floor while oxygen lasts, dodge fish."""

from minatar_synth.games.treasure_dive import FLOOR, GRID, MOVES, OXYGEN_MAX, SURFACE

MARGIN = 4  # spare oxygen kept for the way up
LOOKAHEAD = 6  # steps searched when a fish is in the way
STAY = 0
ACTIONS = (STAY, 2, 4, 1, 3)


def _goal(env):
    """Distance-to-goal function for a cell, and the action the plan wants without fish."""
    row, col, oxygen = env.row, env.col, env.oxygen
    nearest = min(env.treasures, key=lambda t: (abs(t - col), t))
    toward = STAY if nearest == col else (3 if nearest > col else 1)
    if row == SURFACE and (nearest != col or oxygen < OXYGEN_MAX):
        # Line up with the treasure and refill at the surface.
        return (lambda r, c: r * 20 + abs(c - nearest)), toward
    # Carry on only if the nearest treasure and the way back up both fit in the tank.
    if (FLOOR - row) + abs(nearest - col) + FLOOR + MARGIN > oxygen - 1:
        return (lambda r, c: r), 2
    return (lambda r, c: (FLOOR - r) + abs(c - nearest)), (4 if row < FLOOR else toward)


def _fish_cells(env, steps):
    """cells[t]: where fish are after t steps (no new fish assumed)."""
    fish = [list(f) for f in env.fish]
    cells = [{(f[0], f[1]) for f in fish}]
    for _ in range(steps):
        for f in fish:
            f[4] -= 1
            if f[4] == 0:
                f[4] = f[3]
                f[1] += f[2]
        cells.append({(f[0], f[1]) for f in fish})
    return cells


def _step(row, col, action):
    dr, dc = MOVES.get(action, (0, 0))
    return min(max(row + dr, SURFACE), FLOOR), min(max(col + dc, 0), GRID - 1)


def policy(env):
    distance, wanted = _goal(env)
    fish = _fish_cells(env, LOOKAHEAD)

    def safe(action):
        # Safe now, and also if a sticky action repeats it on the next step.
        cell = _step(env.row, env.col, action)
        again = _step(*cell, action)
        return cell not in fish[0] | fish[1] and again not in fish[1] | fish[2]

    if safe(wanted):
        return wanted
    # A fish is in the way: search a few steps for the safe path that gets closest to the goal.
    frontier = {}
    for action in ACTIONS:
        cell = _step(env.row, env.col, action)
        if safe(action) and cell not in frontier:
            frontier[cell] = action
    for t in range(2, LOOKAHEAD + 1):
        nxt = {}
        for (row, col), first_action in frontier.items():
            for action in ACTIONS:
                cell = _step(row, col, action)
                if cell not in fish[t - 1] and cell not in fish[t] and cell not in nxt:
                    nxt[cell] = first_action
        if not nxt:
            break
        frontier = nxt
    if not frontier:
        return wanted
    best = min(frontier, key=lambda cell: distance(*cell))
    return frontier[best]
