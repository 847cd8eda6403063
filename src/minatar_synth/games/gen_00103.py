"""Gen 00103: move a knight around the grid to collect crystals while dodging zigzagging bombs.

Rules
- The knight is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Crystals appear at the left or right edge in a random row (chance 0.30 each step, if that cell is empty) and
  cross the grid one column every step; they are gone when they leave it.
- Bombs appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: a crystal gives +1; a bomb ends the episode.
- The episode ends at the first bomb touched or after `max_steps` (200) steps.
- Each step: the knight moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the bombs.
- 2 reward: the crystals.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down; 5 does nothing.

Reward
- +1 for each crystal collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
CRYSTAL_CHANCE = 0.3  # chance each step that a new crystal appears
CRYSTAL_PERIOD = 1  # steps per move of a crystal
BOMB_CHANCE = 0.3  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
LEFT, UP, RIGHT, DOWN = 1, 2, 3, 4


class Gen00103Environment:
    score_cap = 23.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.crystals = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, side, countdown]
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
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
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

    def move_crystal(self, crystal):
        """Every CRYSTAL_PERIOD steps move the crystal; False once it has left the grid."""
        crystal[-1] -= 1
        if crystal[-1] > 0:
            return True
        crystal[-1] = CRYSTAL_PERIOD
        crystal[1] += crystal[2]
        return 0 <= crystal[1] < GRID

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        if not 0 <= bomb[1] + bomb[2] < GRID:
            bomb[2] = -bomb[2]  # bounce off the wall
        bomb[1] += bomb[2]
        bomb[0] += 1
        return bomb[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [crystal for crystal in self.crystals if crystal[:2] != self.player]
        reward += len(self.crystals) - len(kept)
        self.crystals = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < CRYSTAL_CHANCE:
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.crystals.append(cell + [side, CRYSTAL_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.bombs.append(cell + [side, BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.crystals + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for crystal in self.crystals:
            obs[crystal[0], crystal[1], 2] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
