"""Scripted missile_defense player: intercepts the most urgent reachable missile, planning by simulation."""

from minatar_synth.games.missile_defense import GROUND, MAX_SHOTS, SHOT_SPEED, move_missile


def _fly(shot_row, col, missile):
    """Steps until an interceptor at (shot_row, col) meets `missile` (None if never); the shot is
    placed before the missiles move, as in the game."""
    row, mcol, direction = missile
    steps = 0
    while True:
        steps += 1
        row, mcol, direction = move_missile(row, mcol, direction)
        if row >= GROUND:
            return None
        for climb in range(SHOT_SPEED + 1):
            if climb > 0:
                shot_row -= 1
                if shot_row < 0:
                    return None
            if shot_row == row and col == mcol:
                return steps


def _hits_after(missile, fire_col, delay):
    row, col, direction = missile
    for _ in range(delay):
        row, col, direction = move_missile(row, col, direction)
        if row >= GROUND:
            return False
    return _fly(GROUND, fire_col, (row, col, direction)) is not None


def _steps_to_land(missile):
    row, col, direction = missile
    steps = 0
    while row < GROUND:
        row, col, direction = move_missile(row, col, direction)
        steps += 1
    return steps, col


def _toward(pos, target):
    return 0 if pos == target else (1 if target < pos else 3)


def policy(env):
    pos = env.launcher
    missiles = [tuple(m[:3]) for m in env.missiles]
    # Missiles that an interceptor already in the air will get need no new shot.
    for shot in env.shots:
        best = None
        for m in missiles:
            t = _fly(shot[0], shot[1], m)
            if t is not None and (best is None or t < best[0]):
                best = (t, m)
        if best is not None:
            missiles.remove(best[1])
    earliest = 0 if len(env.shots) < MAX_SHOTS else 1
    plans = []
    for m in missiles:
        land_steps, land_col = _steps_to_land(m)
        threat = land_col in env.cities
        for delay in range(earliest, land_steps):
            cols = [c for c in range(max(0, pos - delay), min(9, pos + delay) + 1) if _hits_after(m, c, delay)]
            if cols:
                col = min(cols, key=lambda c: abs(c - pos))
                plans.append((not threat, land_steps, delay, col))
                break
    if not plans:
        return _toward(pos, 4 if pos <= 4 else 5)
    _, _, delay, col = min(plans)
    if col == pos and delay == 0:
        return 5
    return _toward(pos, col)
