"""Gen 00105: move a drone up and down the left column to collect pearls while dodging homing bombs.

Rules
- The drone is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Pearls appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left and one row sideways every second step (each picks its sideways direction when it appears),
  bouncing off the top and bottom walls; they are gone when they leave the grid.
- Bombs appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left every third step, each time also stepping one row toward the drone with chance 0.5; they are
  gone when they leave the grid.
- When the drone and an object share a cell (checked after the drone moves and again after the objects move),
  the object is removed: a pearl gives +1; a bomb costs one of the drone's 4 lives.
- The episode ends when the last life is lost or after `max_steps` (400) steps.
- Each step: the drone moves, the objects move, new ones appear.

Channels of state()
- 0 player: the drone.
- 1 danger: the bombs.
- 2 reward: the pearls.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 2 up, 4 down; 1, 3 and 5 do nothing.

Reward
- +1 for each pearl collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
PEARL_CHANCE = 0.2  # chance each step that a new pearl appears
PEARL_PERIOD = 2  # steps per move of a pearl
BOMB_CHANCE = 0.2  # chance each step that a new bomb appears
BOMB_PERIOD = 3  # steps per move of a bomb
UP, DOWN = 2, 4


class Gen00105Environment:
    score_cap = 24.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.pearls = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.pearls = [pearl for pearl in self.pearls if self.move_pearl(pearl)]
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_pearl(self, pearl):
        """Every PEARL_PERIOD steps move the pearl; False once it has left the grid."""
        pearl[-1] -= 1
        if pearl[-1] > 0:
            return True
        pearl[-1] = PEARL_PERIOD
        if not 0 <= pearl[0] + pearl[2] < GRID:
            pearl[2] = -pearl[2]  # bounce off the wall
        pearl[0] += pearl[2]
        pearl[1] -= 1
        return pearl[1] >= 0

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        if self.random.rand() < 0.5:
            bomb[0] += int(np.sign(self.player[0] - bomb[0]))  # one step toward the drone
        bomb[1] -= 1
        return bomb[1] >= 0

    def touch(self):
        """Remove the objects on the drone's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [pearl for pearl in self.pearls if pearl[:2] != self.player]
        reward += len(self.pearls) - len(kept)
        self.pearls = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < PEARL_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.pearls.append(cell + [side, PEARL_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.bombs.append(cell + [BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.pearls + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for pearl in self.pearls:
            obs[pearl[0], pearl[1], 2] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
