"""Gen 00162: move a rover along the bottom row to collect apples while dodging falling spikes.

Rules
- The rover is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Apples appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down and one column sideways every third step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Spikes appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: an apple gives +1; a spike costs 1 point (-1 reward).
- The episode ends after `max_steps` (400) steps.
- Each step: the rover moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the spikes.
- 2 reward: the apples.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each apple collected; -1 for each spike touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
APPLE_CHANCE = 0.2  # chance each step that a new apple appears
APPLE_PERIOD = 3  # steps per move of an apple
SPIKE_CHANCE = 0.2  # chance each step that a new spike appears
SPIKE_PERIOD = 3  # steps per move of a spike
LEFT, RIGHT = 1, 3


class Gen00162Environment:
    score_cap = 88.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, side, countdown]
        self.spikes = []  # each is [row, col, countdown]
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
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
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

    def move_apple(self, apple):
        """Every APPLE_PERIOD steps move the apple; False once it has left the grid."""
        apple[-1] -= 1
        if apple[-1] > 0:
            return True
        apple[-1] = APPLE_PERIOD
        if not 0 <= apple[1] + apple[2] < GRID:
            apple[2] = -apple[2]  # bounce off the wall
        apple[1] += apple[2]
        apple[0] += 1
        return apple[0] <= BOTTOM

    def move_spike(self, spike):
        """Every SPIKE_PERIOD steps move the spike; False once it has left the grid."""
        spike[-1] -= 1
        if spike[-1] > 0:
            return True
        spike[-1] = SPIKE_PERIOD
        spike[0] += 1
        return spike[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        reward -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < APPLE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.apples.append(cell + [side, APPLE_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.spikes.append(cell + [SPIKE_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.spikes
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for spike in self.spikes:
            obs[spike[0], spike[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
