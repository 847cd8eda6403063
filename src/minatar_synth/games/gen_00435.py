"""Gen 00435: move a rover along the bottom row to shoot falling spikes.

Rules
- The rover is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the rover's cell when no bolt is in flight. The bolt moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which costs
  1 point).
- Spikes appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: a spike ends the episode.
- A spike removed by a bolt gives +1.
- The episode ends at the first spike touched or after `max_steps` (400) steps.
- Each step: the rover moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the spikes.
- 3 projectile: the bolt.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 2 (reward) is unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each spike shot; -1 for each bolt that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
SPIKE_CHANCE = 0.3  # chance each step that a new spike appears
SPIKE_PERIOD = 2  # steps per move of a spike
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00435Environment:
    score_cap = 94.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.spikes = []  # each is [row, col, countdown]
        self.shot = None  # the bolt's [row, col] while in flight
        self.trail = []  # (row, col) cells left by objects that moved on the last step
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
        if action == FIRE and self.shot is None:
            self.shot = list(self.player)
        reward += self.touch()

        # The bolt flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
        reward += self.hit_by_shot()
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

    def move_spike(self, spike):
        """Every SPIKE_PERIOD steps move the spike; False once it has left the grid."""
        spike[-1] -= 1
        if spike[-1] > 0:
            return True
        spike[-1] = SPIKE_PERIOD
        self.trail.append((spike[0], spike[1]))
        spike[0] += 1
        return spike[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def hit_by_shot(self):
        """Remove the first object on the bolt's cell, and the bolt; the reward it gives."""
        if self.shot is None:
            return 0.0
        for spike in self.spikes:
            if spike[:2] == self.shot:
                self.spikes.remove(spike)
                self.shot = None
                return 1.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SPIKE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.spikes.append(cell + [SPIKE_PERIOD])

    def is_empty(self, cell):
        objects = self.spikes
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for spike in self.spikes:
            obs[spike[0], spike[1], 1] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
