"""Gen 00104: move a robot along the bottom row to collect pearls while dodging homing bombs.

Rules
- The robot is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Pearls appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Bombs appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step, each time also stepping one column toward the robot with chance 0.5; they are gone
  when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: a pearl gives +1; a bomb ends the episode.
- The episode ends at the first bomb touched or after `max_steps` (500) steps.
- Each step: the robot moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the bombs.
- 2 reward: the pearls.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each pearl collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
PEARL_CHANCE = 0.2  # chance each step that a new pearl appears
PEARL_PERIOD = 2  # steps per move of a pearl
BOMB_CHANCE = 0.2  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
LEFT, RIGHT = 1, 3


class Gen00104Environment:
    score_cap = 7.6
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.pearls = []  # each is [row, col, countdown]
        self.bombs = []  # each is [row, col, countdown]
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
        self.pearls = [pearl for pearl in self.pearls if self.move_pearl(pearl)]
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_pearl(self, pearl):
        """Every PEARL_PERIOD steps move the pearl; False once it has left the grid."""
        pearl[-1] -= 1
        if pearl[-1] > 0:
            return True
        pearl[-1] = PEARL_PERIOD
        pearl[0] += 1
        return pearl[0] <= BOTTOM

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        if self.random.rand() < 0.5:
            bomb[1] += int(np.sign(self.player[1] - bomb[1]))  # one step toward the robot
        bomb[0] += 1
        return bomb[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [pearl for pearl in self.pearls if pearl[:2] != self.player]
        reward += len(self.pearls) - len(kept)
        self.pearls = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < PEARL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.pearls.append(cell + [PEARL_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [0, self.random.randint(GRID)]
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
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
