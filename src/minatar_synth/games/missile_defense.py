"""Missile defense: shoot down missiles that fall diagonally toward your cities before they land.

Rules
- Four cities stand on the bottom row (row 9) in columns 1, 3, 6 and 8.
- A missile enters every few steps: it starts in row 0 and is first shown one step later, on row 1
  with its trail on row 0. Each step a missile moves one row down and one column sideways
  (diagonally), bouncing off the side walls. Every missile is aimed at a city that is still
  standing when it appears. A missile that reaches row 9 explodes there and destroys the city in
  that cell, if any.
- The launcher moves left or right along row 9 (it cannot be destroyed). Fire launches an
  interceptor from the launcher's cell; it climbs two rows per step, straight up. Only one
  interceptor can be in the air at a time (fire is ignored while one flies).
- Each step: the launcher moves or fires, then the missiles move, then the interceptor climbs.
  The interceptor destroys the first missile it meets: a missile in its cell after the missiles
  moved, or in one of the two cells it climbs through. Because missiles also move, aim ahead of
  them: the trail shows which way each missile is heading.

Channels
- 0 player: the launcher (row 9).
- 1 danger: missiles.
- 2 reward: cities still standing (row 9).
- 3 projectile: the interceptor.
- 4 trail: the cell each missile occupied on the previous step.

Actions: 1 left, 3 right, 5 fire; all others do nothing.
Reward: +1 for each missile destroyed.
The episode ends when every city is destroyed, or after max_steps steps.
"""
import numpy as np

GROUND = 9
CITY_COLS = (1, 3, 6, 8)
SHOT_SPEED = 2  # rows per step
MAX_SHOTS = 1  # interceptors in the air at once
SPAWN_DELAY = (6, 12)  # steps between missiles: randint(low, high)


def move_missile(row, col, direction):
    """One diagonal step down, bouncing off the side walls."""
    col += direction
    if col < 0:
        col, direction = 1, 1
    elif col > 9:
        col, direction = 8, -1
    return row + 1, col, direction


def landing_col(col, direction):
    """The column where a missile starting at row 0 will land."""
    row = 0
    while row < GROUND:
        row, col, direction = move_missile(row, col, direction)
    return col


# Every possible start (column, direction) of a missile and the column it lands in.
STARTS = [(col, d, landing_col(col, d)) for col in range(10) for d in (-1, 1)]


class MissileDefenseEnvironment:
    score_cap = 100.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.launcher = 4
        self.cities = list(CITY_COLS)
        self.missiles = []  # [row, col, direction, (row, col) one step ago]
        self.shots = []  # [row, col] of each interceptor
        self.spawn_timer = 3
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Launcher: move or fire.
        if action == 1:
            self.launcher = max(0, self.launcher - 1)
        elif action == 3:
            self.launcher = min(9, self.launcher + 1)
        elif action == 5 and len(self.shots) < MAX_SHOTS:
            self.shots.append([GROUND, self.launcher])

        # Missiles fall; a missile reaching the ground destroys the city there.
        falling = []
        for row, col, direction, _ in self.missiles:
            new_row, new_col, direction = move_missile(row, col, direction)
            if new_row >= GROUND:
                if new_col in self.cities:
                    self.cities.remove(new_col)
            else:
                falling.append([new_row, new_col, direction, (row, col)])
        self.missiles = falling

        # Each interceptor checks its cell, then climbs one row at a time.
        flying = []
        for shot in self.shots:
            for climb in range(SHOT_SPEED + 1):
                if climb > 0:
                    shot[0] -= 1
                    if shot[0] < 0:
                        break
                hit = self._missile_at(shot)
                if hit is not None:
                    self.missiles.remove(hit)
                    reward += 1.0
                    break
            else:
                flying.append(shot)
        self.shots = flying

        # A new missile appears, aimed at a city still standing.
        self.spawn_timer -= 1
        if self.spawn_timer <= 0 and self.cities:
            starts = [s for s in STARTS if s[2] in self.cities]
            col, direction, _ = starts[self.random.randint(len(starts))]
            # It enters from row 0: shown after its first step, so its trail gives its heading.
            row, new_col, direction = move_missile(0, col, direction)
            self.missiles.append([row, new_col, direction, (0, col)])
            self.spawn_timer = self.random.randint(*SPAWN_DELAY)

        self.steps += 1
        return reward, not self.cities or self.steps >= self.max_steps

    def _missile_at(self, cell):
        for missile in self.missiles:
            if missile[0] == cell[0] and missile[1] == cell[1]:
                return missile
        return None

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[GROUND, self.launcher, 0] = True
        for row, col, _, trail in self.missiles:
            s[row, col, 1] = True
            s[trail[0], trail[1], 4] = True
        for col in self.cities:
            s[GROUND, col, 2] = True
        for row, col in self.shots:
            s[row, col, 3] = True
        return s
