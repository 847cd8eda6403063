"""Gen 00155: move a frog up and down the left column to collect coins while dodging or shooting falling spikes.

Rules
- The frog is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping at
  the edges. Other actions leave it in place.
- Action 5 (fire) launches a harpoon from the frog's cell when no harpoon is in flight. The harpoon moves one
  cell to the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a
  miss, which costs 1 point).
- Coins appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left every step; they are gone when they leave the grid.
- Spikes appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one
  column left every step; they are gone when they leave the grid.
- When the frog and an object share a cell (checked after the frog moves and again after the objects move),
  the object is removed: a coin gives +1; a spike costs 1 point (-1 reward).
- A spike removed by a harpoon gives +1.
- The episode ends after `max_steps` (300) steps.
- Each step: the frog moves, the harpoon moves, the objects move, new ones appear.

Channels of state()
- 0 player: the frog.
- 1 danger: the spikes.
- 2 reward: the coins.
- 3 projectile: the harpoon.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each coin collected; +1 for each spike shot; -1 for each harpoon that misses (leaves the grid); -1
  for each spike touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
COIN_CHANCE = 0.2  # chance each step that a new coin appears
COIN_PERIOD = 1  # steps per move of a coin
SPIKE_CHANCE = 0.3  # chance each step that a new spike appears
SPIKE_PERIOD = 1  # steps per move of a spike
UP, DOWN, FIRE = 2, 4, 5


class Gen00155Environment:
    score_cap = 74.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.coins = []  # each is [row, col, countdown]
        self.spikes = []  # each is [row, col, countdown]
        self.shot = None  # the harpoon's [row, col] while in flight
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

        # The harpoon flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.coins = [coin for coin in self.coins if self.move_coin(coin)]
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_coin(self, coin):
        """Every COIN_PERIOD steps move the coin; False once it has left the grid."""
        coin[-1] -= 1
        if coin[-1] > 0:
            return True
        coin[-1] = COIN_PERIOD
        coin[1] -= 1
        return coin[1] >= 0

    def move_spike(self, spike):
        """Every SPIKE_PERIOD steps move the spike; False once it has left the grid."""
        spike[-1] -= 1
        if spike[-1] > 0:
            return True
        spike[-1] = SPIKE_PERIOD
        spike[1] -= 1
        return spike[1] >= 0

    def touch(self):
        """Remove the objects on the frog's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [coin for coin in self.coins if coin[:2] != self.player]
        reward += len(self.coins) - len(kept)
        self.coins = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the harpoon's cell, and the harpoon; the reward it gives."""
        if self.shot is None:
            return 0.0
        for spike in self.spikes:
            if spike[:2] == self.shot:
                self.spikes.remove(spike)
                self.shot = None
                return 1.0
        for coin in self.coins:
            if coin[:2] == self.shot:
                self.coins.remove(coin)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < COIN_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.coins.append(cell + [COIN_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.spikes.append(cell + [SPIKE_PERIOD])

    def is_empty(self, cell):
        objects = self.coins + self.spikes
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for spike in self.spikes:
            obs[spike[0], spike[1], 1] = True
        for coin in self.coins:
            obs[coin[0], coin[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
