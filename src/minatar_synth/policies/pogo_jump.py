"""Scripted Pogo Jump player: expectimax over wind-up and release timings against the visible walls, sticky
actions included."""

from functools import cache

from minatar_synth.games.pogo_jump import GRID, GROUND_ROW, MAX_CHARGE, RUNNER_COL, UP

HORIZON = 16
PHANTOM = (2, 2)  # (width, height) assumed for the next wall, whose entry time is known
STICKY = 0.1
RELEASE = 0


def policy(env):
    if env.arc:
        return RELEASE  # nothing to decide in the air; keeps a sticky repeat harmless after landing
    # Walls as (column now, width, height); the next wall enters column 9 in env.until_wall steps.
    walls = [(col, width, height) for col, width, height in env.walls]
    walls.append((GRID - 1 + env.until_wall, *PHANTOM))

    def hit(t, height):
        row = GROUND_ROW - height
        for col, width, wall_height in walls:
            left = col - t
            if left <= RUNNER_COL < left + width and row > GROUND_ROW - wall_height:
                return True
        return False

    @cache
    def value(t, arc, charge, last):
        """Survival chance from step t on (arc: heights to come; last: last executed action)."""
        if t > HORIZON:
            return 1.0 - 0.02 * len(arc)  # prefer being back on the ground for unseen walls
        if arc:
            return 0.0 if hit(t, arc[0]) else value(t + 1, arc[1:], charge, RELEASE)
        return max(choice(t, charge, last, intended) for intended in (RELEASE, UP))

    def choice(t, charge, last, intended):
        return sum(p * outcome(t, charge, a) for a, p in ((intended, 1 - STICKY), (last, STICKY)))

    def outcome(t, charge, action):
        if action == UP:
            return 0.0 if hit(t, 0) else value(t + 1, (), min(charge + 1, MAX_CHARGE), UP)
        if charge > 0:
            arc = tuple(range(1, charge + 1)) + tuple(range(charge - 1, -1, -1))
            return 0.0 if hit(t, 1) else value(t + 1, arc[1:], 0, RELEASE)
        return 0.0 if hit(t, 0) else value(t + 1, (), 0, RELEASE)

    last = UP if env.last_action == UP else RELEASE
    release, wind = choice(1, env.charge, last, RELEASE), choice(1, env.charge, last, UP)
    return UP if wind > release + 1e-9 else RELEASE
