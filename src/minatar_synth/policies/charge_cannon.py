"""Scripted charge_cannon player: earliest deadline first, charging exactly as long as the target needs."""


def _deadline(walker):
    col, pace, timer = walker
    return (col - 1) * pace + timer


def _kill_steps(row, charge, target_row, walker):
    """Steps until the walker in target_row is destroyed if we go there and charge (None: too late)."""
    col, pace, timer = walker
    steps = 0
    if row != target_row:
        charge = 0
    while True:
        if charge >= col:
            return steps + 1
        if row != target_row:
            row += 1 if target_row > row else -1
        else:
            charge += 1
        steps += 1
        timer -= 1
        if timer == 0:
            col, timer = col - 1, pace
            if col == 0:
                return None


def _toward(row, target_row):
    if target_row == row:
        return 0
    return 2 if target_row < row else 4


def policy(env):
    row, charge, walkers = env.row, env.charge, env.walkers
    mine = walkers.get(row)
    if mine is not None and charge > 0:
        if charge < mine[0]:
            return 5  # keep charging until the beam reaches it
        others = {r: w for r, w in walkers.items() if r != row}
        return _toward(row, _pick(row, others)) if others else 0  # release (and move on)
    if not walkers:
        return _toward(row, 4 if row <= 4 else 5)
    target = _pick(row, walkers)
    if target == row:
        return 5
    return _toward(row, target)


def _pick(row, walkers):
    """Earliest deadline among the walkers we can still destroy in time; else the nearest."""
    options = []
    for target_row, walker in walkers.items():
        steps = _kill_steps(row, 0, target_row, walker)
        if steps is not None:
            options.append((_deadline(walker), steps, target_row))
    if not options:
        return min(walkers, key=lambda r: abs(r - row))
    return min(options)[2]
