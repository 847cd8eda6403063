"""Gen 00459: move a knight along the bottom row to collect apples while dodging falling wasps.

Rules
- The knight is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column,
  stopping at the edges. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the knight's cell when no bolt is in flight. The bolt moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Apples appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Wasps appear in row 0 at a random column (chance 0.15 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: an apple gives +1; a wasp costs 1 point (-1 reward).
- The episode ends after `max_steps` (200) steps.
- Each step: the knight moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the wasps.
- 2 reward: the apples.
- 3 projectile: the bolt.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each apple collected; -1 for each wasp touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
APPLE_CHANCE = 0.2  # chance each step that a new apple appears
APPLE_PERIOD = 2  # steps per move of an apple
WASP_CHANCE = 0.15  # chance each step that a new wasp appears
WASP_PERIOD = 2  # steps per move of a wasp
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00459Environment:
    score_cap = 57.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, countdown]
        self.wasps = []  # each is [row, col, countdown]
        self.shot = None  # the bolt's [row, col] while in flight
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
        if action == FIRE and self.shot is None:
            self.shot = list(self.player)
        reward += self.touch()

        # The bolt flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.hit_by_shot()
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
        apple[0] += 1
        return apple[0] <= BOTTOM

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        wasp[0] += 1
        return wasp[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the bolt's cell, and the bolt; the reward it gives."""
        if self.shot is None:
            return 0.0
        for wasp in self.wasps:
            if wasp[:2] == self.shot:
                self.wasps.remove(wasp)
                self.shot = None
                return 0.0
        for apple in self.apples:
            if apple[:2] == self.shot:
                self.apples.remove(apple)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < APPLE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.apples.append(cell + [APPLE_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.wasps.append(cell + [WASP_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.wasps
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for wasp in self.wasps:
            obs[wasp[0], wasp[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
