"""Gen 00124: move a knight up and down the left column to collect crystals while dodging zigzagging ghosts.

Rules
- The knight is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Crystals appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left every second step; they are gone when they leave the grid.
- Ghosts appear in column 9 at a random row (chance 0.15 each step, if that cell is empty). They move one
  column left and one row sideways every third step (each picks its sideways direction when it appears),
  bouncing off the top and bottom walls; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: a crystal gives +1; a ghost ends the episode.
- The episode ends at the first ghost touched or after `max_steps` (200) steps.
- Each step: the knight moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the ghosts.
- 2 reward: the crystals.
Channels 3 (projectile), 4 (trail), 5 (gauge) are unused.

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
GHOST_CHANCE = 0.15  # chance each step that a new ghost appears
GHOST_PERIOD = 3  # steps per move of a ghost
UP, DOWN = 2, 4


class Gen00124Environment:
    score_cap = 22.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.crystals = []  # each is [row, col, countdown]
        self.ghosts = []  # each is [row, col, side, countdown]
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
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
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

    def move_ghost(self, ghost):
        """Every GHOST_PERIOD steps move the ghost; False once it has left the grid."""
        ghost[-1] -= 1
        if ghost[-1] > 0:
            return True
        ghost[-1] = GHOST_PERIOD
        if not 0 <= ghost[0] + ghost[2] < GRID:
            ghost[2] = -ghost[2]  # bounce off the wall
        ghost[0] += ghost[2]
        ghost[1] -= 1
        return ghost[1] >= 0

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [crystal for crystal in self.crystals if crystal[:2] != self.player]
        reward += len(self.crystals) - len(kept)
        self.crystals = kept
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < CRYSTAL_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.crystals.append(cell + [CRYSTAL_PERIOD])
        if self.random.rand() < GHOST_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.ghosts.append(cell + [side, GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.crystals + self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        for crystal in self.crystals:
            obs[crystal[0], crystal[1], 2] = True
        return obs
