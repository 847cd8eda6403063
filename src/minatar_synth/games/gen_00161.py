"""Gen 00161: move a ship along the bottom row to collect shells while dodging zigzagging rocks.

Rules
- The ship is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Shells appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- Rocks appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- When the ship and an object share a cell (checked after the ship moves and again after the objects move),
  the object is removed: a shell gives +1; a rock costs 1 point (-1 reward).
- The episode ends after `max_steps` (200) steps.
- Each step: the ship moves, the objects move, new ones appear.

Channels of state()
- 0 player: the ship.
- 1 danger: the rocks.
- 2 reward: the shells.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 3 (projectile) is unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each shell collected; -1 for each rock touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
SHELL_CHANCE = 0.3  # chance each step that a new shell appears
SHELL_PERIOD = 1  # steps per move of a shell
ROCK_CHANCE = 0.3  # chance each step that a new rock appears
ROCK_PERIOD = 1  # steps per move of a rock
LEFT, RIGHT = 1, 3


class Gen00161Environment:
    score_cap = 55.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.shells = []  # each is [row, col, side, countdown]
        self.rocks = []  # each is [row, col, side, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
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

    def move_shell(self, shell):
        """Every SHELL_PERIOD steps move the shell; False once it has left the grid."""
        shell[-1] -= 1
        if shell[-1] > 0:
            return True
        shell[-1] = SHELL_PERIOD
        self.trail.append((shell[0], shell[1]))
        if not 0 <= shell[1] + shell[2] < GRID:
            shell[2] = -shell[2]  # bounce off the wall
        shell[1] += shell[2]
        shell[0] += 1
        return shell[0] <= BOTTOM

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
        """Remove the objects on the ship's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        reward -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.shells.append(cell + [side, SHELL_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.rocks.append(cell + [side, ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
