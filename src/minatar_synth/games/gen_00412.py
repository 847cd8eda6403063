"""Gen 00412: move a frog up and down the left column to collect stars while dodging homing bombs.

Rules
- The frog is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping at
  the edges. Other actions leave it in place.
- Action 5 (fire) launches a harpoon from the frog's cell when no harpoon is in flight. The harpoon moves one
  cell to the right every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Stars appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left and one row sideways every third step (each picks its sideways direction when it appears),
  bouncing off the top and bottom walls; they are gone when they leave the grid.
- Bombs appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left every second step, each time also stepping one row toward the frog with chance 0.5; they are
  gone when they leave the grid.
- When the frog and an object share a cell (checked after the frog moves and again after the objects move),
  the object is removed: a star gives +1; a bomb costs one of the frog's 2 lives.
- The episode ends when the last life is lost or after `max_steps` (500) steps.
- Each step: the frog moves, the harpoon moves, the objects move, new ones appear.

Channels of state()
- 0 player: the frog.
- 1 danger: the bombs.
- 2 reward: the stars.
- 3 projectile: the harpoon.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each star collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 2
STAR_CHANCE = 0.2  # chance each step that a new star appears
STAR_PERIOD = 3  # steps per move of a star
BOMB_CHANCE = 0.2  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
UP, DOWN, FIRE = 2, 4, 5


class Gen00412Environment:
    score_cap = 42.0
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.stars = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, countdown]
        self.shot = None  # the harpoon's [row, col] while in flight
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

        # The harpoon flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.stars = [star for star in self.stars if self.move_star(star)]
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_star(self, star):
        """Every STAR_PERIOD steps move the star; False once it has left the grid."""
        star[-1] -= 1
        if star[-1] > 0:
            return True
        star[-1] = STAR_PERIOD
        if not 0 <= star[0] + star[2] < GRID:
            star[2] = -star[2]  # bounce off the wall
        star[0] += star[2]
        star[1] -= 1
        return star[1] >= 0

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        if self.random.rand() < 0.5:
            bomb[0] += int(np.sign(self.player[0] - bomb[0]))  # one step toward the frog
        bomb[1] -= 1
        return bomb[1] >= 0

    def touch(self):
        """Remove the objects on the frog's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [star for star in self.stars if star[:2] != self.player]
        reward += len(self.stars) - len(kept)
        self.stars = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the harpoon's cell, and the harpoon; the reward it gives."""
        if self.shot is None:
            return 0.0
        for bomb in self.bombs:
            if bomb[:2] == self.shot:
                self.bombs.remove(bomb)
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
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.stars.append(cell + [side, STAR_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.bombs.append(cell + [BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.stars + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for star in self.stars:
            obs[star[0], star[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
