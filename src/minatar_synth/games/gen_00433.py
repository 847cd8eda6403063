"""Gen 00433: move a diver along the bottom row to collect stars while dodging zigzagging spikes.

Rules
- The diver is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a spark from the diver's cell when no spark is in flight. The spark moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Stars appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- Spikes appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: a star gives +1; a spike costs one of the diver's 3 lives.
- The episode ends when the last life is lost or after `max_steps` (200) steps.
- Each step: the diver moves, the spark moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the spikes.
- 2 reward: the stars.
- 3 projectile: the spark.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each star collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 3
STAR_CHANCE = 0.4  # chance each step that a new star appears
STAR_PERIOD = 3  # steps per move of a star
SPIKE_CHANCE = 0.3  # chance each step that a new spike appears
SPIKE_PERIOD = 1  # steps per move of a spike
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00433Environment:
    score_cap = 63.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.stars = []  # each is [row, col, countdown]
        self.spikes = []  # each is [row, col, side, countdown]
        self.shot = None  # the spark's [row, col] while in flight
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

        # The spark flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.stars = [star for star in self.stars if self.move_star(star)]
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
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_star(self, star):
        """Every STAR_PERIOD steps move the star; False once it has left the grid."""
        star[-1] -= 1
        if star[-1] > 0:
            return True
        star[-1] = STAR_PERIOD
        self.trail.append((star[0], star[1]))
        star[0] += 1
        return star[0] <= BOTTOM

    def move_spike(self, spike):
        """Every SPIKE_PERIOD steps move the spike; False once it has left the grid."""
        spike[-1] -= 1
        if spike[-1] > 0:
            return True
        spike[-1] = SPIKE_PERIOD
        self.trail.append((spike[0], spike[1]))
        if not 0 <= spike[1] + spike[2] < GRID:
            spike[2] = -spike[2]  # bounce off the wall
        spike[1] += spike[2]
        spike[0] += 1
        return spike[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [star for star in self.stars if star[:2] != self.player]
        reward += len(self.stars) - len(kept)
        self.stars = kept
        kept = [spike for spike in self.spikes if spike[:2] != self.player]
        hits = len(self.spikes) - len(kept)
        self.spikes = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the spark's cell, and the spark; the reward it gives."""
        if self.shot is None:
            return 0.0
        for spike in self.spikes:
            if spike[:2] == self.shot:
                self.spikes.remove(spike)
                self.shot = None
                return 0.0
        for star in self.stars:
            if star[:2] == self.shot:
                self.stars.remove(star)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < STAR_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.stars.append(cell + [STAR_PERIOD])
        if self.random.rand() < SPIKE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.spikes.append(cell + [side, SPIKE_PERIOD])

    def is_empty(self, cell):
        objects = self.stars + self.spikes
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for spike in self.spikes:
            obs[spike[0], spike[1], 1] = True
        for star in self.stars:
            obs[star[0], star[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
