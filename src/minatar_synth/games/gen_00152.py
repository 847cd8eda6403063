"""Gen 00152: move a ship around the grid to collect gems while dodging or shooting zigzagging spikes.

Rules
- The ship is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Action 5 (fire) launches a laser from the ship's cell when no laser is in flight. The laser moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Gems appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Spikes appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the ship and an object share a cell (checked after the ship moves and again after the objects move),
  the object is removed: a gem gives +1; a spike costs one of the ship's 2 lives.
- A spike removed by a laser gives +1.
- The episode ends when the last life is lost or after `max_steps` (300) steps.
- Each step: the ship moves, the laser moves, the objects move, new ones appear.

Channels of state()
- 0 player: the ship.
- 1 danger: the spikes.
- 2 reward: the gems.
- 3 projectile: the laser.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each gem collected; +1 for each spike shot; -1 for each laser that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
START_LIVES = 2
GEM_CHANCE = 0.3  # chance each step that a new gem appears
GEM_PERIOD = 2  # steps per move of a gem
SPIKE_CHANCE = 0.3  # chance each step that a new spike appears
SPIKE_PERIOD = 2  # steps per move of a spike
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00152Environment:
    score_cap = 76.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.gems = []  # each is [row, col, countdown]
        self.spikes = []  # each is [row, col, side, countdown]
        self.shot = None  # the laser's [row, col] while in flight
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

        # The laser flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.gems = [gem for gem in self.gems if self.move_gem(gem)]
        self.spikes = [spike for spike in self.spikes if self.move_spike(spike)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == UP:
            self.player[0] = max(TOP, self.player[0] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_gem(self, gem):
        """Every GEM_PERIOD steps move the gem; False once it has left the grid."""
        gem[-1] -= 1
        if gem[-1] > 0:
            return True
        gem[-1] = GEM_PERIOD
        gem[0] += 1
        return gem[0] <= BOTTOM

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
        """Remove the objects on the ship's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [gem for gem in self.gems if gem[:2] != self.player]
        reward += len(self.gems) - len(kept)
        self.gems = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the laser's cell, and the laser; the reward it gives."""
        if self.shot is None:
            return 0.0
        for spike in self.spikes:
            if spike[:2] == self.shot:
                self.spikes.remove(spike)
                self.shot = None
                return 1.0
        for gem in self.gems:
            if gem[:2] == self.shot:
                self.gems.remove(gem)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < GEM_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.gems.append(cell + [GEM_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.spikes.append(cell + [side, SPIKE_PERIOD])

    def is_empty(self, cell):
        objects = self.gems + self.spikes
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for spike in self.spikes:
            obs[spike[0], spike[1], 1] = True
        for gem in self.gems:
            obs[gem[0], gem[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
