"""Scripted heat_gun player: shoots the lowest invader no shot is after yet; cools down rather than jam."""

from minatar_synth.games.heat_gun import GUN_ROW, HEAT_PER_SHOT, MAX_HEAT


def _steps_to_land(invader):
    row, _, pace, timer = invader
    return (GUN_ROW - 1 - row) * pace + timer


def _open_targets(env):
    """Invaders not already taken care of by a shot in the air (a shot gets the lowest invader above it)."""
    targets = []
    for col in range(10):
        column = sorted((inv for inv in env.invaders if inv[1] == col), key=lambda inv: -inv[0])
        shots = sum(1 for shot in env.shots if shot[1] == col)
        targets.extend(column[shots:])
    return targets


def _toward(gun, col):
    return 0 if gun == col else (1 if col < gun else 3)


def policy(env):
    targets = _open_targets(env)
    if not targets:
        return _toward(env.gun, 4 if env.gun <= 4 else 5)
    # Most urgent first; among equally urgent ones, the nearest.
    targets.sort(key=lambda inv: (_steps_to_land(inv) + abs(inv[1] - env.gun), abs(inv[1] - env.gun)))
    aligned = [inv for inv in targets if inv[1] == env.gun]
    if aligned and not env.jammed:
        would_jam = env.heat + HEAT_PER_SHOT >= MAX_HEAT
        urgent = _steps_to_land(aligned[0]) <= 6 + (GUN_ROW - aligned[0][0]) // 2
        if not would_jam or urgent:
            return 5
    return _toward(env.gun, targets[0][1])
