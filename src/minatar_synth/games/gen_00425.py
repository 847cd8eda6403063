"""Gen 00425: move a cart around the grid to shoot drifting bats.

Rules
- The cart is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and wrapping round sideways. Other actions leave it in place.
- Action 5 (fire) launches a spark from the cart's cell when no spark is in flight. The spark moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Bats appear at the left or right edge in a random row (chance 0.40 each step, if that cell is empty) and
  cross the grid one column every second step; they are gone when they leave it.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a bat ends the episode.
- A bat removed by a spark gives +1.
- The episode ends at the first bat touched or after `max_steps` (250) steps.
- Each step: the cart moves, the spark moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the bats.
- 3 projectile: the spark.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 2 (reward), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each bat shot; -1 for each spark that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
BAT_CHANCE = 0.4  # chance each step that a new bat appears
BAT_PERIOD = 2  # steps per move of a bat
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00425Environment:
    score_cap = 43.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.bats = []  # each is [row, col, side, countdown]
        self.shot = None  # the spark's [row, col] while in flight
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
        if action == FIRE and self.shot is None:
            self.shot = list(self.player)
        reward += self.touch()

        # The spark flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.bats = [bat for bat in self.bats if self.move_bat(bat)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = (self.player[1] - 1) % GRID
        elif action == UP:
            self.player[0] = max(TOP, self.player[0] - 1)
        elif action == RIGHT:
            self.player[1] = (self.player[1] + 1) % GRID
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_bat(self, bat):
        """Every BAT_PERIOD steps move the bat; False once it has left the grid."""
        bat[-1] -= 1
        if bat[-1] > 0:
            return True
        bat[-1] = BAT_PERIOD
        bat[1] += bat[2]
        return 0 <= bat[1] < GRID

    def touch(self):
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [bat for bat in self.bats if bat[:2] != self.player]
        hits = len(self.bats) - len(kept)
        self.bats = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def hit_by_shot(self):
        """Remove the first object on the spark's cell, and the spark; the reward it gives."""
        if self.shot is None:
            return 0.0
        for bat in self.bats:
            if bat[:2] == self.shot:
                self.bats.remove(bat)
                self.shot = None
                return 1.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < BAT_CHANCE:
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.bats.append(cell + [side, BAT_PERIOD])

    def is_empty(self, cell):
        objects = self.bats
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bat in self.bats:
            obs[bat[0], bat[1], 1] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
