"""Gen 00463: move a diver along the bottom row to collect shells while dodging zigzagging ghosts.

Rules
- The diver is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Shells appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Ghosts appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: a shell gives +1; a ghost costs one of the diver's 4 lives.
- The episode ends when the last life is lost or after `max_steps` (250) steps.
- Each step: the diver moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the ghosts.
- 2 reward: the shells.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each shell collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
SHELL_CHANCE = 0.4  # chance each step that a new shell appears
SHELL_PERIOD = 2  # steps per move of a shell
GHOST_CHANCE = 0.3  # chance each step that a new ghost appears
GHOST_PERIOD = 1  # steps per move of a ghost
LEFT, RIGHT = 1, 3


class Gen00463Environment:
    score_cap = 110.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.shells = []  # each is [row, col, countdown]
        self.ghosts = []  # each is [row, col, side, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
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
        shell[0] += 1
        return shell[0] <= BOTTOM

    def move_ghost(self, ghost):
        """Every GHOST_PERIOD steps move the ghost; False once it has left the grid."""
        ghost[-1] -= 1
        if ghost[-1] > 0:
            return True
        ghost[-1] = GHOST_PERIOD
        if not 0 <= ghost[1] + ghost[2] < GRID:
            ghost[2] = -ghost[2]  # bounce off the wall
        ghost[1] += ghost[2]
        ghost[0] += 1
        return ghost[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.shells.append(cell + [SHELL_PERIOD])
        if self.random.rand() < GHOST_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.ghosts.append(cell + [side, GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
