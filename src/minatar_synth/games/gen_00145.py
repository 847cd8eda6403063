"""Gen 00145: move a rover around the grid to collect apples while dodging drifting rocks.

Rules
- The rover is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Apples appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Rocks appear at the left or right edge in a random row (chance 0.15 each step, if that cell is empty) and
  cross the grid one column every third step; they are gone when they leave it.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: an apple gives +1; a rock costs one of the rover's 4 lives.
- The episode ends when the last life is lost or after `max_steps` (300) steps.
- Each step: the rover moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the rocks.
- 2 reward: the apples.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down; 5 does nothing.

Reward
- +1 for each apple collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
START_LIVES = 4
APPLE_CHANCE = 0.2  # chance each step that a new apple appears
APPLE_PERIOD = 2  # steps per move of an apple
ROCK_CHANCE = 0.15  # chance each step that a new rock appears
ROCK_PERIOD = 3  # steps per move of a rock
LEFT, UP, RIGHT, DOWN = 1, 2, 3, 4


class Gen00145Environment:
    score_cap = 83.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, countdown]
        self.rocks = []  # each is [row, col, side, countdown]
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
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
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

    def move_apple(self, apple):
        """Every APPLE_PERIOD steps move the apple; False once it has left the grid."""
        apple[-1] -= 1
        if apple[-1] > 0:
            return True
        apple[-1] = APPLE_PERIOD
        apple[0] += 1
        return apple[0] <= BOTTOM

    def move_rock(self, rock):
        """Every ROCK_PERIOD steps move the rock; False once it has left the grid."""
        rock[-1] -= 1
        if rock[-1] > 0:
            return True
        rock[-1] = ROCK_PERIOD
        rock[1] += rock[2]
        return 0 <= rock[1] < GRID

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < APPLE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.apples.append(cell + [APPLE_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.rocks.append(cell + [side, ROCK_PERIOD])

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
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
