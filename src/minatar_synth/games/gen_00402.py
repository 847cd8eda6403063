"""Gen 00402: move a frog around the grid to collect shells while dodging or shooting falling spikes.

Rules
- The frog is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and wrapping round sideways. Other actions leave it in place.
- Action 5 (fire) launches a spark from the frog's cell when no spark is in flight. The spark moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Shells appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down and one column sideways every third step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Spikes appear in row 0 at a random column (chance 0.50 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- When the frog and an object share a cell (checked after the frog moves and again after the objects move),
  the object is removed: a shell gives +1; a spike costs 1 point (-1 reward).
- A spike removed by a spark gives +1.
- The episode ends after `max_steps` (250) steps.
- Each step: the frog moves, the spark moves, the objects move, new ones appear.

Channels of state()
- 0 player: the frog.
- 1 danger: the spikes.
- 2 reward: the shells.
- 3 projectile: the spark.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each shell collected; +1 for each spike shot; -1 for each spark that misses (leaves the grid); -1 for
  each spike touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
SHELL_CHANCE = 0.4  # chance each step that a new shell appears
SHELL_PERIOD = 3  # steps per move of a shell
SPIKE_CHANCE = 0.5  # chance each step that a new spike appears
SPIKE_PERIOD = 3  # steps per move of a spike
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00402Environment:
    score_cap = 170.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.shells = []  # each is [row, col, side, countdown]
        self.spikes = []  # each is [row, col, countdown]
        self.shot = None  # the spark's [row, col] while in flight
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

        # The spark flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
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
        spike[0] += 1
        return spike[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the frog's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the spark's cell, and the spark; the reward it gives."""
        if self.shot is None:
            return 0.0
        for spike in self.spikes:
            if spike[:2] == self.shot:
                self.spikes.remove(spike)
                self.shot = None
                return 1.0
        for shell in self.shells:
            if shell[:2] == self.shot:
                self.shells.remove(shell)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.shells.append(cell + [side, SHELL_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.spikes.append(cell + [SPIKE_PERIOD])

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
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
