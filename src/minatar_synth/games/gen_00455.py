"""Gen 00455: move a robot along the bottom row to collect pearls while dodging zigzagging spikes.

Rules
- The robot is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Pearls appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- Spikes appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: a pearl gives +1; a spike costs one of the robot's 2 lives.
- The episode ends when the last life is lost or after `max_steps` (400) steps.
- Each step: the robot moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the spikes.
- 2 reward: the pearls.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each pearl collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 2
PEARL_CHANCE = 0.4  # chance each step that a new pearl appears
PEARL_PERIOD = 3  # steps per move of a pearl
SPIKE_CHANCE = 0.2  # chance each step that a new spike appears
SPIKE_PERIOD = 1  # steps per move of a spike
LEFT, RIGHT = 1, 3


class Gen00455Environment:
    score_cap = 150.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.pearls = []  # each is [row, col, countdown]
        self.spikes = []  # each is [row, col, side, countdown]
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
        self.pearls = [pearl for pearl in self.pearls if self.move_pearl(pearl)]
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
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

    def move_pearl(self, pearl):
        """Every PEARL_PERIOD steps move the pearl; False once it has left the grid."""
        pearl[-1] -= 1
        if pearl[-1] > 0:
            return True
        pearl[-1] = PEARL_PERIOD
        pearl[0] += 1
        return pearl[0] <= BOTTOM

    def move_spike(self, spike):
        """Every SPIKE_PERIOD steps move the spike; False once it has left the grid."""
        spike[-1] -= 1
        if spike[-1] > 0:
            return True
        spike[-1] = SPIKE_PERIOD
        if not 0 <= spike[1] + spike[2] < GRID:
            spike[2] = -spike[2]  # bounce off the wall
        spike[1] += spike[2]
        spike[0] += 1
        return spike[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [pearl for pearl in self.pearls if pearl[:2] != self.player]
        reward += len(self.pearls) - len(kept)
        self.pearls = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < PEARL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.pearls.append(cell + [PEARL_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.spikes.append(cell + [side, SPIKE_PERIOD])

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
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
