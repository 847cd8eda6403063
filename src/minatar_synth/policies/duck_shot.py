"""Scripted duck_shot player: finds the earliest (column, delay) whose shot meets the duck and goes there."""

from minatar_synth.games.duck_shot import GUN_ROW, SHOT_SPEED


def _shot_hits(duck_row, duck_col, direction, fire_col, delay):
    """Would a shot fired from fire_col `delay` steps from now hit the duck (same rules as the game)?"""
    col = duck_col + direction * delay
    if not 0 <= col <= 9:
        return False
    row = GUN_ROW
    while True:
        for _ in range(SHOT_SPEED):
            row -= 1
            if row < 0:
                return False
            if row == duck_row and fire_col == col:
                return True
        col += direction
        if not 0 <= col <= 9:
            return False
        if row == duck_row and fire_col == col:
            return True


def _current_shot_hits(env):
    row, col = env.shot
    duck_row, duck_col, direction = env.duck
    while True:
        for _ in range(SHOT_SPEED):
            row -= 1
            if row < 0:
                return False
            if row == duck_row and col == duck_col:
                return True
        duck_col += direction
        if not 0 <= duck_col <= 9:
            return False
        if row == duck_row and col == duck_col:
            return True


def _toward(gun, target):
    return 0 if gun == target else (1 if target < gun else 3)


def policy(env):
    gun = env.gun
    if env.duck is None or (env.shot is not None and _current_shot_hits(env)):
        return _toward(gun, 4 if gun <= 4 else 5)
    earliest = 0 if env.shot is None else (env.shot[0] + 2) // 2
    row, col, direction = env.duck
    for delay in range(earliest, 12):
        for fire_col in range(max(0, gun - delay), min(9, gun + delay) + 1):
            if _shot_hits(row, col, direction, fire_col, delay):
                if fire_col == gun and delay == 0:
                    return 5
                return _toward(gun, fire_col)
    return _toward(gun, 4 if gun <= 4 else 5)
