"""Gen 00434: move a robot up and down the left column to collect eggs while dodging falling rocks.

Rules
- The robot is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, wrapping
  round to the other side. Other actions leave it in place.
- Eggs appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one column
  left and one row sideways every second step (each picks its sideways direction when it appears), bouncing
  off the top and bottom walls; they are gone when they leave the grid.
- Rocks appear in column 9 at a random row (chance 0.15 each step, if that cell is empty). They move one
  column left every second step; they are gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: an egg gives +1; a rock costs one of the robot's 2 lives.
- The episode ends when the last life is lost or after `max_steps` (250) steps.
- Each step: the robot moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the rocks.
- 2 reward: the eggs.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 3 (projectile) is unused.

Actions
- 0 no-op, 2 up, 4 down; 1, 3 and 5 do nothing.

Reward
- +1 for each egg collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 2
EGG_CHANCE = 0.3  # chance each step that a new egg appears
EGG_PERIOD = 2  # steps per move of an egg
ROCK_CHANCE = 0.15  # chance each step that a new rock appears
ROCK_PERIOD = 2  # steps per move of a rock
UP, DOWN = 2, 4


class Gen00434Environment:
    score_cap = 70.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.eggs = []  # each is [row, col, side, countdown]
        self.rocks = []  # each is [row, col, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = (self.player[0] - 1) % GRID
        elif action == DOWN:
            self.player[0] = (self.player[0] + 1) % GRID

    def move_egg(self, egg):
        """Every EGG_PERIOD steps move the egg; False once it has left the grid."""
        egg[-1] -= 1
        if egg[-1] > 0:
            return True
        egg[-1] = EGG_PERIOD
        self.trail.append((egg[0], egg[1]))
        if not 0 <= egg[0] + egg[2] < GRID:
            egg[2] = -egg[2]  # bounce off the wall
        egg[0] += egg[2]
        egg[1] -= 1
        return egg[1] >= 0

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
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < EGG_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.eggs.append(cell + [side, EGG_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.rocks.append(cell + [ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
