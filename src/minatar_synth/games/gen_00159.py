"""Gen 00159: move a cart around the grid to collect stars while dodging or shooting zigzagging rocks.

Rules
- The cart is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and wrapping round sideways. Other actions leave it in place.
- Action 5 (fire) launches a spark from the cart's cell when no spark is in flight. The spark moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Stars appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- Rocks appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every third step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a star gives +1; a rock costs one of the cart's 4 lives.
- A rock removed by a spark gives +1.
- The episode ends when the last life is lost or after `max_steps` (300) steps.
- Each step: the cart moves, the spark moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the rocks.
- 2 reward: the stars.
- 3 projectile: the spark.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each star collected; +1 for each rock shot; -1 for each spark that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
START_LIVES = 4
STAR_CHANCE = 0.3  # chance each step that a new star appears
STAR_PERIOD = 3  # steps per move of a star
ROCK_CHANCE = 0.3  # chance each step that a new rock appears
ROCK_PERIOD = 3  # steps per move of a rock
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00159Environment:
    score_cap = 65.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.stars = []  # each is [row, col, countdown]
        self.rocks = []  # each is [row, col, side, countdown]
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
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.stars = [star for star in self.stars if self.move_star(star)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
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

    def move_star(self, star):
        """Every STAR_PERIOD steps move the star; False once it has left the grid."""
        star[-1] -= 1
        if star[-1] > 0:
            return True
        star[-1] = STAR_PERIOD
        self.trail.append((star[0], star[1]))
        star[0] += 1
        return star[0] <= BOTTOM

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
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [star for star in self.stars if star[:2] != self.player]
        reward += len(self.stars) - len(kept)
        self.stars = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the spark's cell, and the spark; the reward it gives."""
        if self.shot is None:
            return 0.0
        for rock in self.rocks:
            if rock[:2] == self.shot:
                self.rocks.remove(rock)
                self.shot = None
                return 1.0
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
        if self.random.rand() < ROCK_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.rocks.append(cell + [side, ROCK_PERIOD])

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
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
