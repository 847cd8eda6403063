"""Treasure Dive: dive from the surface to grab treasure on the sea floor and come back up before the oxygen runs out.

Rules
- Row 0 is the surface, row 9 the sea floor. The diver starts at the surface in column 4 and moves
  one cell per step with actions 1 (left), 2 (up), 3 (right) and 4 (down); 0 and 5 stay put.
- Three treasures lie on the sea floor (row 9). Moving onto one gives +1 reward; a new treasure then
  appears at a random free column of the floor.
- Oxygen: the tank holds `OXYGEN_MAX`. Each step below the surface uses one unit; each step at the
  surface refills `REFILL` units. When the tank is empty the diver drowns and the episode ends.
- Fish swim straight across rows 2-8, entering at the left or right edge (never right onto the
  diver), some one cell per step and some one cell every second step. A fish that meets the diver
  (one moves onto the other's cell) bites: -1 reward, and the fish swims off (it disappears).
- The episode ends when the diver drowns or after `max_steps` steps.

Channels of state()
- 0 player: the diver.
- 1 danger: the fish.
- 2 reward: the treasures.
- 4 trail: the cell each fish left on this step (shows which way it swims).
- 5 gauge: the oxygen, row 0 lit from column 0, one cell per 1/10 of `OXYGEN_MAX` (rounded up).
Channel 3 (projectile) is unused.
"""

import numpy as np

GRID = 10
SURFACE, FLOOR = 0, GRID - 1
TREASURES = 3
OXYGEN_MAX = 30
REFILL = 6  # oxygen gained per step at the surface
BITE_REWARD = -1.0  # reward for a fish bite
FISH_PROB = 0.12  # chance per step that a new fish enters
FISH_ROWS = (2, 8)  # fish swim in these rows (inclusive)
# action -> (row change, column change)
MOVES = {1: (0, -1), 2: (-1, 0), 3: (0, 1), 4: (1, 0)}


class TreasureDiveEnvironment:
    score_cap = 160.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row, self.col = SURFACE, 4
        self.oxygen = OXYGEN_MAX
        self.treasures = []  # columns of the treasures on the floor
        while len(self.treasures) < TREASURES:
            self._add_treasure()
        self.fish = []  # each fish is [row, col, step (+1/-1), period, countdown]
        self.trail = []
        self.steps = 0
        self.last_action = 0
        self.terminal = False

    def _add_treasure(self):
        while True:
            col = int(self.random.rand() * GRID)
            if col not in self.treasures:
                self.treasures.append(col)
                return

    def _bitten(self):
        # Remove every fish on the diver's cell; return the number of bites.
        before = len(self.fish)
        self.fish = [f for f in self.fish if f[0] != self.row or f[1] != self.col]
        return before - len(self.fish)

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        # Move the diver.
        reward = 0.0
        move = MOVES.get(action)
        if move is not None:
            self.row = min(max(self.row + move[0], SURFACE), FLOOR)
            self.col = min(max(self.col + move[1], 0), GRID - 1)
        if self.row == FLOOR and self.col in self.treasures:
            self.treasures.remove(self.col)
            self._add_treasure()
            reward = 1.0
        bites = self._bitten()

        # Move the fish (the check above already caught a diver swimming into a fish's cell).
        self.trail = []
        swimming = []
        for fish in self.fish:
            fish[4] -= 1
            if fish[4] == 0:
                fish[4] = fish[3]
                self.trail.append((fish[0], fish[1]))
                fish[1] += fish[2]
            if 0 <= fish[1] < GRID:
                swimming.append(fish)
        self.fish = swimming
        bites += self._bitten()

        # Maybe a new fish enters at the left or right edge.
        if self.random.rand() < FISH_PROB:
            row = FISH_ROWS[0] + int(self.random.rand() * (FISH_ROWS[1] - FISH_ROWS[0] + 1))
            step = 1 if self.random.rand() < 0.5 else -1
            period = 1 if self.random.rand() < 0.5 else 2
            col = 0 if step == 1 else GRID - 1
            if (row, col) != (self.row, self.col):
                self.fish.append([row, col, step, period, period])

        # Breathe.
        if self.row == SURFACE:
            self.oxygen = min(self.oxygen + REFILL, OXYGEN_MAX)
        else:
            self.oxygen -= 1
        reward += BITE_REWARD * bites

        self.steps += 1
        self.terminal = self.oxygen <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.row, self.col, 0] = True
        for row, col, _, _, _ in self.fish:
            obs[row, col, 1] = True
        for col in self.treasures:
            obs[FLOOR, col, 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[0, : -(-max(self.oxygen, 0) * GRID // OXYGEN_MAX), 5] = True
        return obs
