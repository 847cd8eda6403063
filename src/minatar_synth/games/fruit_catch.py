"""Fruit Catch: move a basket along the bottom row to catch falling fruit while dodging falling bombs.

Rules
- The basket is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one
  column; every other action leaves it where it is.
- Fruit and bombs appear in row 0 at random columns and fall straight down. A fast object falls one
  row every step, a slow one falls one row every second step.
- When an object falls into row 9 it is resolved at once and disappears: if the basket is in that
  column, a fruit gives +1 reward and a bomb costs one life; objects that miss the basket are lost.
- The player starts with 3 lives. The episode ends when the last life is lost or after `max_steps`.

Channels of state()
- 0 player: the basket, row 9.
- 1 danger: the falling bombs.
- 2 reward: the falling fruit.
- 4 trail: the cell an object occupied before it fell on this step (only objects that fell this
  step leave a trail, so fast objects always show one and slow objects every other step).
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 3 (projectile) is unused.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 3
SPAWN_PROB = 0.45  # chance each step that a new object appears in row 0
FRUIT_PROB = 0.6  # chance that a new object is a fruit (otherwise it is a bomb)
FAST_PROB = 0.5  # chance that a new object falls every step (otherwise every second step)
FRUIT, BOMB = 0, 1
LEFT, RIGHT = 1, 3


class FruitCatchEnvironment:
    score_cap = 160.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.basket = GRID // 2
        self.objects = []  # each object is [row, col, kind, period, countdown]
        self.trail = []  # (row, col) cells left by objects that fell on the last step
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

        # Move the basket.
        if action == LEFT:
            self.basket = max(0, self.basket - 1)
        elif action == RIGHT:
            self.basket = min(BOTTOM, self.basket + 1)

        # Let the objects fall; resolve those that reach the bottom row.
        self.trail = []
        falling = []
        for obj in self.objects:
            obj[4] -= 1
            if obj[4] > 0:
                falling.append(obj)
                continue
            obj[4] = obj[3]
            self.trail.append((obj[0], obj[1]))
            obj[0] += 1
            if obj[0] < BOTTOM:
                falling.append(obj)
            elif obj[1] == self.basket:
                if obj[2] == FRUIT:
                    reward += 1.0
                else:
                    self.lives -= 1
        self.objects = falling

        # Maybe drop a new object into a free cell of row 0.
        if self.random.rand() < SPAWN_PROB:
            col = int(self.random.rand() * GRID)
            kind = FRUIT if self.random.rand() < FRUIT_PROB else BOMB
            period = 1 if self.random.rand() < FAST_PROB else 2
            if all(obj[0] > 0 or obj[1] != col for obj in self.objects):
                self.objects.append([0, col, kind, period, period])

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[BOTTOM, self.basket, 0] = True
        for row, col, kind, _, _ in self.objects:
            obs[row, col, 1 if kind == BOMB else 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
