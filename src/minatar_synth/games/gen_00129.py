"""Gen 00129: move a cart up and down the left column to collect pearls while dodging or shooting falling bats.

Rules
- The cart is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, wrapping
  round to the other side. Other actions leave it in place.
- Action 5 (fire) launches a laser from the cart's cell when no laser is in flight. The laser moves one cell
  to the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Pearls appear in column 9 at a random row (chance 0.40 each step, if that cell is empty). They move one
  column left every second step; they are gone when they leave the grid.
- Bats appear in column 9 at a random row (chance 0.50 each step, if that cell is empty). They move one column
  left every third step; they are gone when they leave the grid.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a pearl gives +1; a bat costs one of the cart's 3 lives.
- A bat removed by a laser gives +1.
- The episode ends when the last life is lost or after `max_steps` (400) steps.
- Each step: the cart moves, the laser moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the bats.
- 2 reward: the pearls.
- 3 projectile: the laser.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each pearl collected; +1 for each bat shot; -1 for each laser that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 3
PEARL_CHANCE = 0.4  # chance each step that a new pearl appears
PEARL_PERIOD = 2  # steps per move of a pearl
BAT_CHANCE = 0.5  # chance each step that a new bat appears
BAT_PERIOD = 3  # steps per move of a bat
UP, DOWN, FIRE = 2, 4, 5


class Gen00129Environment:
    score_cap = 230.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.pearls = []  # each is [row, col, countdown]
        self.bats = []  # each is [row, col, countdown]
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
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.pearls = [pearl for pearl in self.pearls if self.move_pearl(pearl)]
        self.bats = [bat for bat in self.bats if self.move_bat(bat)]
        reward += self.hit_by_shot()
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

    def move_pearl(self, pearl):
        """Every PEARL_PERIOD steps move the pearl; False once it has left the grid."""
        pearl[-1] -= 1
        if pearl[-1] > 0:
            return True
        pearl[-1] = PEARL_PERIOD
        pearl[1] -= 1
        return pearl[1] >= 0

    def move_bat(self, bat):
        """Every BAT_PERIOD steps move the bat; False once it has left the grid."""
        bat[-1] -= 1
        if bat[-1] > 0:
            return True
        bat[-1] = BAT_PERIOD
        bat[1] -= 1
        return bat[1] >= 0

    def touch(self):
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [pearl for pearl in self.pearls if pearl[:2] != self.player]
        reward += len(self.pearls) - len(kept)
        self.pearls = kept
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
        for pearl in self.pearls:
            if pearl[:2] == self.shot:
                self.pearls.remove(pearl)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < PEARL_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.pearls.append(cell + [PEARL_PERIOD])
        if self.random.rand() < BAT_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.bats.append(cell + [BAT_PERIOD])

    def is_empty(self, cell):
        objects = self.pearls + self.bats
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bat in self.bats:
            obs[bat[0], bat[1], 1] = True
        for pearl in self.pearls:
            obs[pearl[0], pearl[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
