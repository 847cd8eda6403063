"""Gen 00432: move a robot around the grid to collect pearls while dodging or shooting falling rocks.

Rules
- The robot is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and wrapping round sideways. Other actions leave it in place.
- Action 5 (fire) launches a harpoon from the robot's cell when no harpoon is in flight. The harpoon moves one
  cell up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Pearls appear at the left or right edge in a random row (chance 0.40 each step, if that cell is empty) and
  cross the grid one column every third step; they are gone when they leave it.
- Rocks appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: a pearl gives +1; a rock costs 1 point (-1 reward).
- A rock removed by a harpoon gives +1.
- The episode ends after `max_steps` (250) steps.
- Each step: the robot moves, the harpoon moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the rocks.
- 2 reward: the pearls.
- 3 projectile: the harpoon.
Channels 4 (trail), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each pearl collected; +1 for each rock shot; -1 for each harpoon that misses (leaves the grid); -1
  for each rock touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
PEARL_CHANCE = 0.4  # chance each step that a new pearl appears
PEARL_PERIOD = 3  # steps per move of a pearl
ROCK_CHANCE = 0.4  # chance each step that a new rock appears
ROCK_PERIOD = 2  # steps per move of a rock
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00432Environment:
    score_cap = 150.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.pearls = []  # each is [row, col, side, countdown]
        self.rocks = []  # each is [row, col, countdown]
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
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.pearls = [pearl for pearl in self.pearls if self.move_pearl(pearl)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
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

    def move_pearl(self, pearl):
        """Every PEARL_PERIOD steps move the pearl; False once it has left the grid."""
        pearl[-1] -= 1
        if pearl[-1] > 0:
            return True
        pearl[-1] = PEARL_PERIOD
        pearl[1] += pearl[2]
        return 0 <= pearl[1] < GRID

    def move_rock(self, rock):
        """Every ROCK_PERIOD steps move the rock; False once it has left the grid."""
        rock[-1] -= 1
        if rock[-1] > 0:
            return True
        rock[-1] = ROCK_PERIOD
        rock[0] += 1
        return rock[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [pearl for pearl in self.pearls if pearl[:2] != self.player]
        reward += len(self.pearls) - len(kept)
        self.pearls = kept
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
        for pearl in self.pearls:
            if pearl[:2] == self.shot:
                self.pearls.remove(pearl)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < PEARL_CHANCE:
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.pearls.append(cell + [side, PEARL_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.rocks.append(cell + [ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.pearls + self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        for pearl in self.pearls:
            obs[pearl[0], pearl[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        return obs
