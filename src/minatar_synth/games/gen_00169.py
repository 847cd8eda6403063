"""Gen 00169: move a drone up and down the left column to collect apples while dodging falling rocks.

Rules
- The drone is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Apples appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left and one row sideways every second step (each picks its sideways direction when it appears),
  bouncing off the top and bottom walls; they are gone when they leave the grid.
- Rocks appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one
  column left every third step; they are gone when they leave the grid.
- When the drone and an object share a cell (checked after the drone moves and again after the objects move),
  the object is removed: an apple gives +1; a rock ends the episode.
- The episode ends at the first rock touched or after `max_steps` (250) steps.
- Each step: the drone moves, the objects move, new ones appear.

Channels of state()
- 0 player: the drone.
- 1 danger: the rocks.
- 2 reward: the apples.
- 4 trail: the cells objects occupied before they moved on this step.
Channels 3 (projectile), 5 (gauge) are unused.

Actions
- 0 no-op, 2 up, 4 down; 1, 3 and 5 do nothing.

Reward
- +1 for each apple collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
APPLE_CHANCE = 0.2  # chance each step that a new apple appears
APPLE_PERIOD = 2  # steps per move of an apple
ROCK_CHANCE = 0.3  # chance each step that a new rock appears
ROCK_PERIOD = 3  # steps per move of a rock
UP, DOWN = 2, 4


class Gen00169Environment:
    score_cap = 17.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.apples = []  # each is [row, col, side, countdown]
        self.rocks = []  # each is [row, col, countdown]
        self.trail = []  # (row, col) cells left by objects that moved on the last step
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
        self.trail = []
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
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

    def move_apple(self, apple):
        """Every APPLE_PERIOD steps move the apple; False once it has left the grid."""
        apple[-1] -= 1
        if apple[-1] > 0:
            return True
        apple[-1] = APPLE_PERIOD
        self.trail.append((apple[0], apple[1]))
        if not 0 <= apple[0] + apple[2] < GRID:
            apple[2] = -apple[2]  # bounce off the wall
        apple[0] += apple[2]
        apple[1] -= 1
        return apple[1] >= 0

    def move_rock(self, rock):
        """Every ROCK_PERIOD steps move the rock; False once it has left the grid."""
        rock[-1] -= 1
        if rock[-1] > 0:
            return True
        rock[-1] = ROCK_PERIOD
        self.trail.append((rock[0], rock[1]))
        rock[1] -= 1
        return rock[1] >= 0

    def touch(self):
        """Remove the objects on the drone's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < APPLE_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.apples.append(cell + [side, APPLE_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.rocks.append(cell + [ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
