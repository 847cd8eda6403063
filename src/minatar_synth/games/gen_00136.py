"""Gen 00136: move a cart around the grid to collect pearls while dodging or shooting falling spikes.

Rules
- The cart is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Action 5 (fire) launches a dart from the cart's cell when no dart is in flight. The dart moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which costs
  1 point).
- Pearls appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- Spikes appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a pearl gives +1; a spike costs 1 point (-1 reward).
- A spike removed by a dart gives +1.
- The episode ends after `max_steps` (500) steps.
- Each step: the cart moves, the dart moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the spikes.
- 2 reward: the pearls.
- 3 projectile: the dart.
- 4 trail: the cells objects occupied before they moved on this step.
Channel 5 (gauge) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each pearl collected; +1 for each spike shot; -1 for each dart that misses (leaves the grid); -1 for
  each spike touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
PEARL_CHANCE = 0.2  # chance each step that a new pearl appears
PEARL_PERIOD = 3  # steps per move of a pearl
SPIKE_CHANCE = 0.3  # chance each step that a new spike appears
SPIKE_PERIOD = 1  # steps per move of a spike
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00136Environment:
    score_cap = 130.0
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.pearls = []  # each is [row, col, countdown]
        self.spikes = []  # each is [row, col, countdown]
        self.shot = None  # the dart's [row, col] while in flight
        self.trail = []  # (row, col) cells left by objects that moved on the last step
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

        # The dart flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.pearls = [pearl for pearl in self.pearls if self.move_pearl(pearl)]
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
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

    def move_pearl(self, pearl):
        """Every PEARL_PERIOD steps move the pearl; False once it has left the grid."""
        pearl[-1] -= 1
        if pearl[-1] > 0:
            return True
        pearl[-1] = PEARL_PERIOD
        self.trail.append((pearl[0], pearl[1]))
        pearl[0] += 1
        return pearl[0] <= BOTTOM

    def move_spike(self, spike):
        """Every SPIKE_PERIOD steps move the spike; False once it has left the grid."""
        spike[-1] -= 1
        if spike[-1] > 0:
            return True
        spike[-1] = SPIKE_PERIOD
        self.trail.append((spike[0], spike[1]))
        spike[0] += 1
        return spike[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [pearl for pearl in self.pearls if pearl[:2] != self.player]
        reward += len(self.pearls) - len(kept)
        self.pearls = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the dart's cell, and the dart; the reward it gives."""
        if self.shot is None:
            return 0.0
        for spike in self.spikes:
            if spike[:2] == self.shot:
                self.spikes.remove(spike)
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
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.pearls.append(cell + [PEARL_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.spikes.append(cell + [SPIKE_PERIOD])

    def is_empty(self, cell):
        objects = self.pearls + self.spikes
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for spike in self.spikes:
            obs[spike[0], spike[1], 1] = True
        for pearl in self.pearls:
            obs[pearl[0], pearl[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
