"""Gen 00404: move a drone along the bottom row to collect eggs while dodging falling wasps.

Rules
- The drone is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Eggs appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- Wasps appear in row 0 at a random column (chance 0.15 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- When the drone and an object share a cell (checked after the drone moves and again after the objects move),
  the object is removed: an egg gives +1; a wasp ends the episode.
- The episode ends at the first wasp touched or after `max_steps` (250) steps.
- Each step: the drone moves, the objects move, new ones appear.

Channels of state()
- 0 player: the drone.
- 1 danger: the wasps.
- 2 reward: the eggs.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each egg collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
EGG_CHANCE = 0.4  # chance each step that a new egg appears
EGG_PERIOD = 1  # steps per move of an egg
WASP_CHANCE = 0.15  # chance each step that a new wasp appears
WASP_PERIOD = 1  # steps per move of a wasp
LEFT, RIGHT = 1, 3


class Gen00404Environment:
    score_cap = 82.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.eggs = []  # each is [row, col, countdown]
        self.wasps = []  # each is [row, col, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_egg(self, egg):
        """Every EGG_PERIOD steps move the egg; False once it has left the grid."""
        egg[-1] -= 1
        if egg[-1] > 0:
            return True
        egg[-1] = EGG_PERIOD
        egg[0] += 1
        return egg[0] <= BOTTOM

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        wasp[0] += 1
        return wasp[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the drone's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < EGG_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.eggs.append(cell + [EGG_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.wasps.append(cell + [WASP_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.wasps
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for wasp in self.wasps:
            obs[wasp[0], wasp[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
