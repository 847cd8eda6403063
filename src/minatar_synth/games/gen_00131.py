"""Gen 00131: move a knight up and down the left column to collect crystals while dodging zigzagging wasps.

Rules
- The knight is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Crystals appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left every second step; they are gone when they leave the grid.
- Wasps appear in column 9 at a random row (chance 0.15 each step, if that cell is empty). They move one
  column left and one row sideways every second step (each picks its sideways direction when it appears),
  bouncing off the top and bottom walls; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: a crystal gives +1; a wasp ends the episode.
- The episode ends at the first wasp touched or after `max_steps` (400) steps.
- Each step: the knight moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the wasps.
- 2 reward: the crystals.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 2 up, 4 down; 1, 3 and 5 do nothing.

Reward
- +1 for each crystal collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
CRYSTAL_CHANCE = 0.2  # chance each step that a new crystal appears
CRYSTAL_PERIOD = 2  # steps per move of a crystal
WASP_CHANCE = 0.15  # chance each step that a new wasp appears
WASP_PERIOD = 2  # steps per move of a wasp
UP, DOWN = 2, 4


class Gen00131Environment:
    score_cap = 49.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.crystals = []  # each is [row, col, countdown]
        self.wasps = []  # each is [row, col, side, countdown]
        self.crashed = False
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.crystals = [crystal for crystal in self.crystals if self.move_crystal(crystal)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_crystal(self, crystal):
        """Every CRYSTAL_PERIOD steps move the crystal; False once it has left the grid."""
        crystal[-1] -= 1
        if crystal[-1] > 0:
            return True
        crystal[-1] = CRYSTAL_PERIOD
        crystal[1] -= 1
        return crystal[1] >= 0

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        if not 0 <= wasp[0] + wasp[2] < GRID:
            wasp[2] = -wasp[2]  # bounce off the wall
        wasp[0] += wasp[2]
        wasp[1] -= 1
        return wasp[1] >= 0

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [crystal for crystal in self.crystals if crystal[:2] != self.player]
        reward += len(self.crystals) - len(kept)
        self.crystals = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < CRYSTAL_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.crystals.append(cell + [CRYSTAL_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.wasps.append(cell + [side, WASP_PERIOD])

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
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
