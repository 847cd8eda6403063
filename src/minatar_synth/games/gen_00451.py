"""Gen 00451: move a diver along the bottom row to collect crystals while dodging or shooting falling wasps.

Rules
- The diver is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a laser from the diver's cell when no laser is in flight. The laser moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Crystals appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one
  row down and one column sideways every second step (each picks its sideways direction when it appears),
  bouncing off the side walls; they are gone when they leave the grid.
- Wasps appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: a crystal gives +1; a wasp costs one of the diver's 2 lives.
- A wasp removed by a laser gives +1.
- The episode ends when the last life is lost or after `max_steps` (400) steps.
- Each step: the diver moves, the laser moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the wasps.
- 2 reward: the crystals.
- 3 projectile: the laser.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each crystal collected; +1 for each wasp shot; -1 for each laser that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 2
CRYSTAL_CHANCE = 0.3  # chance each step that a new crystal appears
CRYSTAL_PERIOD = 2  # steps per move of a crystal
WASP_CHANCE = 0.3  # chance each step that a new wasp appears
WASP_PERIOD = 3  # steps per move of a wasp
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00451Environment:
    score_cap = 140.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.crystals = []  # each is [row, col, side, countdown]
        self.wasps = []  # each is [row, col, countdown]
        self.shot = None  # the laser's [row, col] while in flight
        self.trail = []  # (row, col) cells left by objects that moved on the last step
        self.lives = START_LIVES
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

        # The laser flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.crystals = [crystal for crystal in self.crystals if self.move_crystal(crystal)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_crystal(self, crystal):
        """Every CRYSTAL_PERIOD steps move the crystal; False once it has left the grid."""
        crystal[-1] -= 1
        if crystal[-1] > 0:
            return True
        crystal[-1] = CRYSTAL_PERIOD
        self.trail.append((crystal[0], crystal[1]))
        if not 0 <= crystal[1] + crystal[2] < GRID:
            crystal[2] = -crystal[2]  # bounce off the wall
        crystal[1] += crystal[2]
        crystal[0] += 1
        return crystal[0] <= BOTTOM

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        self.trail.append((wasp[0], wasp[1]))
        wasp[0] += 1
        return wasp[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [crystal for crystal in self.crystals if crystal[:2] != self.player]
        reward += len(self.crystals) - len(kept)
        self.crystals = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the laser's cell, and the laser; the reward it gives."""
        if self.shot is None:
            return 0.0
        for wasp in self.wasps:
            if wasp[:2] == self.shot:
                self.wasps.remove(wasp)
                self.shot = None
                return 1.0
        for crystal in self.crystals:
            if crystal[:2] == self.shot:
                self.crystals.remove(crystal)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < CRYSTAL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.crystals.append(cell + [side, CRYSTAL_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.wasps.append(cell + [WASP_PERIOD])

    def is_empty(self, cell):
        objects = self.crystals + self.wasps
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for wasp in self.wasps:
            obs[wasp[0], wasp[1], 1] = True
        for crystal in self.crystals:
            obs[crystal[0], crystal[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
