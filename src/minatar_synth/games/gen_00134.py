"""Gen 00134: move a diver around the grid to collect stars while dodging falling wasps.

Rules
- The diver is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Action 5 (fire) launches a dart from the diver's cell when no dart is in flight. The dart moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Stars appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Wasps appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: a star gives +1; a wasp costs 1 point (-1 reward).
- The episode ends after `max_steps` (300) steps.
- Each step: the diver moves, the dart moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the wasps.
- 2 reward: the stars.
- 3 projectile: the dart.
Channels 4 (trail), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each star collected; -1 for each wasp touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
STAR_CHANCE = 0.4  # chance each step that a new star appears
STAR_PERIOD = 2  # steps per move of a star
WASP_CHANCE = 0.2  # chance each step that a new wasp appears
WASP_PERIOD = 1  # steps per move of a wasp
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00134Environment:
    score_cap = 170.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.stars = []  # each is [row, col, side, countdown]
        self.wasps = []  # each is [row, col, countdown]
        self.shot = None  # the dart's [row, col] while in flight
        self.steps = 0
        self.last_action = 0
        self.terminal = False

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0
        if self.terminal:
            return reward, True

        self.move_player(action)
        if action == FIRE and self.shot is None:
            self.shot = list(self.player)
        reward += self.touch()

        # The dart flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.stars = [star for star in self.stars if self.move_star(star)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == UP:
            self.player[0] = max(TOP, self.player[0] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_star(self, star):
        """Every STAR_PERIOD steps move the star; False once it has left the grid."""
        star[-1] -= 1
        if star[-1] > 0:
            return True
        star[-1] = STAR_PERIOD
        if not 0 <= star[1] + star[2] < GRID:
            star[2] = -star[2]  # bounce off the wall
        star[1] += star[2]
        star[0] += 1
        return star[0] <= BOTTOM

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        wasp[0] += 1
        return wasp[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [star for star in self.stars if star[:2] != self.player]
        reward += len(self.stars) - len(kept)
        self.stars = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the dart's cell, and the dart; the reward it gives."""
        if self.shot is None:
            return 0.0
        for wasp in self.wasps:
            if wasp[:2] == self.shot:
                self.wasps.remove(wasp)
                self.shot = None
                return 0.0
        for star in self.stars:
            if star[:2] == self.shot:
                self.stars.remove(star)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < STAR_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.stars.append(cell + [side, STAR_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.wasps.append(cell + [WASP_PERIOD])

    def is_empty(self, cell):
        objects = self.stars + self.wasps
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for wasp in self.wasps:
            obs[wasp[0], wasp[1], 1] = True
        for star in self.stars:
            obs[star[0], star[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        return obs
