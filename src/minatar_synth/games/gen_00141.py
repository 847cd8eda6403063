"""Gen 00141: move a rover along the bottom row to collect apples while dodging or shooting zigzagging bats.

Rules
- The rover is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a laser from the rover's cell when no laser is in flight. The laser moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Apples appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Bats appear in row 0 at a random column (chance 0.50 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: an apple gives +1; a bat costs one of the rover's 4 lives.
- A bat removed by a laser gives +1.
- The episode ends when the last life is lost or after `max_steps` (500) steps.
- Each step: the rover moves, the laser moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the bats.
- 2 reward: the apples.
- 3 projectile: the laser.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each apple collected; +1 for each bat shot; -1 for each laser that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
APPLE_CHANCE = 0.3  # chance each step that a new apple appears
APPLE_PERIOD = 2  # steps per move of an apple
BAT_CHANCE = 0.5  # chance each step that a new bat appears
BAT_PERIOD = 2  # steps per move of a bat
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00141Environment:
    score_cap = 130.0
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, countdown]
        self.bats = []  # each is [row, col, side, countdown]
        self.shot = None  # the laser's [row, col] while in flight
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
        if action == FIRE and self.shot is None:
            self.shot = list(self.player)
        reward += self.touch()

        # The laser flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.bats = [bat for bat in self.bats if self.move_bat(bat)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
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

    def move_bat(self, bat):
        """Every BAT_PERIOD steps move the bat; False once it has left the grid."""
        bat[-1] -= 1
        if bat[-1] > 0:
            return True
        bat[-1] = BAT_PERIOD
        if not 0 <= bat[1] + bat[2] < GRID:
            bat[2] = -bat[2]  # bounce off the wall
        bat[1] += bat[2]
        bat[0] += 1
        return bat[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [bat for bat in self.bats if bat[:2] != self.player]
        hits = len(self.bats) - len(kept)
        self.bats = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the laser's cell, and the laser; the reward it gives."""
        if self.shot is None:
            return 0.0
        for bat in self.bats:
            if bat[:2] == self.shot:
                self.bats.remove(bat)
                self.shot = None
                return 1.0
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
        if self.random.rand() < BAT_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.bats.append(cell + [side, BAT_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.bats
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bat in self.bats:
            obs[bat[0], bat[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
