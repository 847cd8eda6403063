"""Gen 00175: move a rover around the grid to collect shells while dodging drifting spikes.

Rules
- The rover is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and wrapping round sideways. Other actions leave it in place.
- Shells appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- Spikes appear at the left or right edge in a random row (chance 0.20 each step, if that cell is empty) and
  cross the grid one column every second step; they are gone when they leave it.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: a shell gives +1; a spike ends the episode.
- The episode ends at the first spike touched or after `max_steps` (400) steps.
- Each step: the rover moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the spikes.
- 2 reward: the shells.
Channels 3 (projectile), 4 (trail), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down; 5 does nothing.

Reward
- +1 for each shell collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
SHELL_CHANCE = 0.3  # chance each step that a new shell appears
SHELL_PERIOD = 1  # steps per move of a shell
SPIKE_CHANCE = 0.2  # chance each step that a new spike appears
SPIKE_PERIOD = 2  # steps per move of a spike
LEFT, UP, RIGHT, DOWN = 1, 2, 3, 4


class Gen00175Environment:
    score_cap = 71.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.shells = []  # each is [row, col, side, countdown]
        self.spikes = []  # each is [row, col, side, countdown]
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
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
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

    def move_shell(self, shell):
        """Every SHELL_PERIOD steps move the shell; False once it has left the grid."""
        shell[-1] -= 1
        if shell[-1] > 0:
            return True
        shell[-1] = SHELL_PERIOD
        if not 0 <= shell[1] + shell[2] < GRID:
            shell[2] = -shell[2]  # bounce off the wall
        shell[1] += shell[2]
        shell[0] += 1
        return shell[0] <= BOTTOM

    def move_spike(self, spike):
        """Every SPIKE_PERIOD steps move the spike; False once it has left the grid."""
        spike[-1] -= 1
        if spike[-1] > 0:
            return True
        spike[-1] = SPIKE_PERIOD
        spike[1] += spike[2]
        return 0 <= spike[1] < GRID

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.shells.append(cell + [side, SHELL_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.spikes.append(cell + [side, SPIKE_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.spikes
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for spike in self.spikes:
            obs[spike[0], spike[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        return obs
