"""Gen 00416: move a rover up and down the left column to shoot zigzagging rocks.

Rules
- The rover is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches an arrow from the rover's cell when no arrow is in flight. The arrow moves one cell
  to the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Rocks appear in column 9 at a random row (chance 0.50 each step, if that cell is empty). They move one
  column left and one row sideways every step (each picks its sideways direction when it appears), bouncing
  off the top and bottom walls; they are gone when they leave the grid.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: a rock costs one of the rover's 4 lives.
- A rock removed by an arrow gives +1.
- The episode ends when the last life is lost or after `max_steps` (500) steps.
- Each step: the rover moves, the arrow moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the rocks.
- 3 projectile: the arrow.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 2 (reward) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each rock shot; -1 for each arrow that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
ROCK_CHANCE = 0.5  # chance each step that a new rock appears
ROCK_PERIOD = 1  # steps per move of a rock
UP, DOWN, FIRE = 2, 4, 5


class Gen00416Environment:
    score_cap = 240.0
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.rocks = []  # each is [row, col, side, countdown]
        self.shot = None  # the arrow's [row, col] while in flight
        self.trail = []  # (row, col) cells left by objects that moved on the last step
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

        # The arrow flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_rock(self, rock):
        """Every ROCK_PERIOD steps move the rock; False once it has left the grid."""
        rock[-1] -= 1
        if rock[-1] > 0:
            return True
        rock[-1] = ROCK_PERIOD
        self.trail.append((rock[0], rock[1]))
        if not 0 <= rock[0] + rock[2] < GRID:
            rock[2] = -rock[2]  # bounce off the wall
        rock[0] += rock[2]
        rock[1] -= 1
        return rock[1] >= 0

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the arrow's cell, and the arrow; the reward it gives."""
        if self.shot is None:
            return 0.0
        for rock in self.rocks:
            if rock[:2] == self.shot:
                self.rocks.remove(rock)
                self.shot = None
                return 1.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < ROCK_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.rocks.append(cell + [side, ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
