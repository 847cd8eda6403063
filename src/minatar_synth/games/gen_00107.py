"""Gen 00107: move a frog along the bottom row to collect eggs while dodging or shooting zigzagging rocks.

Rules
- The frog is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a harpoon from the frog's cell when no harpoon is in flight. The harpoon moves one
  cell up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Eggs appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Rocks appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the frog and an object share a cell (checked after the frog moves and again after the objects move),
  the object is removed: an egg gives +1; a rock costs 1 point (-1 reward).
- A rock removed by a harpoon gives +1.
- The episode ends after `max_steps` (250) steps.
- Each step: the frog moves, the harpoon moves, the objects move, new ones appear.

Channels of state()
- 0 player: the frog.
- 1 danger: the rocks.
- 2 reward: the eggs.
- 3 projectile: the harpoon.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each egg collected; +1 for each rock shot; -1 for each harpoon that misses (leaves the grid); -1 for
  each rock touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
EGG_CHANCE = 0.3  # chance each step that a new egg appears
EGG_PERIOD = 2  # steps per move of an egg
ROCK_CHANCE = 0.3  # chance each step that a new rock appears
ROCK_PERIOD = 2  # steps per move of a rock
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00107Environment:
    score_cap = 120.0
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
        self.rocks = []  # each is [row, col, side, countdown]
        self.shot = None  # the harpoon's [row, col] while in flight
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

        # The harpoon flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
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

    def move_egg(self, egg):
        """Every EGG_PERIOD steps move the egg; False once it has left the grid."""
        egg[-1] -= 1
        if egg[-1] > 0:
            return True
        egg[-1] = EGG_PERIOD
        self.trail.append((egg[0], egg[1]))
        egg[0] += 1
        return egg[0] <= BOTTOM

    def move_rock(self, rock):
        """Every ROCK_PERIOD steps move the rock; False once it has left the grid."""
        rock[-1] -= 1
        if rock[-1] > 0:
            return True
        rock[-1] = ROCK_PERIOD
        self.trail.append((rock[0], rock[1]))
        if not 0 <= rock[1] + rock[2] < GRID:
            rock[2] = -rock[2]  # bounce off the wall
        rock[1] += rock[2]
        rock[0] += 1
        return rock[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the frog's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the harpoon's cell, and the harpoon; the reward it gives."""
        if self.shot is None:
            return 0.0
        for rock in self.rocks:
            if rock[:2] == self.shot:
                self.rocks.remove(rock)
                self.shot = None
                return 1.0
        for egg in self.eggs:
            if egg[:2] == self.shot:
                self.eggs.remove(egg)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < EGG_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.eggs.append(cell + [EGG_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.rocks.append(cell + [side, ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
