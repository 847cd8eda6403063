"""Gen 00177: move a ship along the bottom row to collect apples while dodging homing bombs.

Rules
- The ship is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Apples appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- Bombs appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step, each time also stepping one column toward the ship with chance 0.5; they are gone
  when they leave the grid.
- When the ship and an object share a cell (checked after the ship moves and again after the objects move),
  the object is removed: an apple gives +1; a bomb costs 1 point (-1 reward).
- The episode ends after `max_steps` (400) steps.
- Each step: the ship moves, the objects move, new ones appear.

Channels of state()
- 0 player: the ship.
- 1 danger: the bombs.
- 2 reward: the apples.
Channels 3 (projectile), 4 (trail), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each apple collected; -1 for each bomb touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
APPLE_CHANCE = 0.2  # chance each step that a new apple appears
APPLE_PERIOD = 1  # steps per move of an apple
BOMB_CHANCE = 0.2  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
LEFT, RIGHT = 1, 3


class Gen00177Environment:
    score_cap = 25.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, countdown]
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
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_apple(self, apple):
        """Every APPLE_PERIOD steps move the apple; False once it has left the grid."""
        apple[-1] -= 1
        if apple[-1] > 0:
            return True
        apple[-1] = APPLE_PERIOD
        if not 0 <= apple[1] + apple[2] < GRID:
            apple[2] = -apple[2]  # bounce off the wall
        apple[1] += apple[2]
        apple[0] += 1
        return apple[0] <= BOTTOM

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        if self.random.rand() < 0.5:
            bomb[1] += int(np.sign(self.player[1] - bomb[1]))  # one step toward the ship
        bomb[0] += 1
        return bomb[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the ship's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        reward -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < APPLE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.apples.append(cell + [side, APPLE_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.bombs.append(cell + [BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        return obs
