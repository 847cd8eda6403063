"""Gen 00140: move a cart along the bottom row to collect stars while dodging falling rocks.

Rules
- The cart is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, wrapping
  round to the other side. Other actions leave it in place.
- Stars appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every third step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Rocks appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a star gives +1; a rock ends the episode.
- The episode ends at the first rock touched or after `max_steps` (400) steps.
- Each step: the cart moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the rocks.
- 2 reward: the stars.
- 4 trail: the cells objects occupied before they moved on this step.
Channels 3 (projectile), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each star collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
STAR_CHANCE = 0.3  # chance each step that a new star appears
STAR_PERIOD = 3  # steps per move of a star
ROCK_CHANCE = 0.3  # chance each step that a new rock appears
ROCK_PERIOD = 2  # steps per move of a rock
LEFT, RIGHT = 1, 3


class Gen00140Environment:
    score_cap = 34.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.stars = []  # each is [row, col, side, countdown]
        self.rocks = []  # each is [row, col, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.stars = [star for star in self.stars if self.move_star(star)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = (self.player[1] - 1) % GRID
        elif action == RIGHT:
            self.player[1] = (self.player[1] + 1) % GRID

    def move_star(self, star):
        """Every STAR_PERIOD steps move the star; False once it has left the grid."""
        star[-1] -= 1
        if star[-1] > 0:
            return True
        star[-1] = STAR_PERIOD
        self.trail.append((star[0], star[1]))
        if not 0 <= star[1] + star[2] < GRID:
            star[2] = -star[2]  # bounce off the wall
        star[1] += star[2]
        star[0] += 1
        return star[0] <= BOTTOM

    def move_rock(self, rock):
        """Every ROCK_PERIOD steps move the rock; False once it has left the grid."""
        rock[-1] -= 1
        if rock[-1] > 0:
            return True
        rock[-1] = ROCK_PERIOD
        self.trail.append((rock[0], rock[1]))
        rock[0] += 1
        return rock[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [star for star in self.stars if star[:2] != self.player]
        reward += len(self.stars) - len(kept)
        self.stars = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < STAR_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.stars.append(cell + [side, STAR_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.rocks.append(cell + [ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.stars + self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        for star in self.stars:
            obs[star[0], star[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
