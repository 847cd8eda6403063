"""Gen 00409: move a knight around the grid to collect stars while dodging or shooting falling ghosts.

Rules
- The knight is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and wrapping round sideways. Other actions leave it in place.
- Action 5 (fire) launches an arrow from the knight's cell when no arrow is in flight. The arrow moves one
  cell up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Stars appear at the left or right edge in a random row (chance 0.40 each step, if that cell is empty) and
  cross the grid one column every step; they are gone when they leave it.
- Ghosts appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: a star gives +1; a ghost ends the episode.
- A ghost removed by an arrow gives +1.
- The episode ends at the first ghost touched or after `max_steps` (250) steps.
- Each step: the knight moves, the arrow moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the ghosts.
- 2 reward: the stars.
- 3 projectile: the arrow.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each star collected; +1 for each ghost shot; -1 for each arrow that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
STAR_CHANCE = 0.4  # chance each step that a new star appears
STAR_PERIOD = 1  # steps per move of a star
GHOST_CHANCE = 0.4  # chance each step that a new ghost appears
GHOST_PERIOD = 2  # steps per move of a ghost
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00409Environment:
    score_cap = 130.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.stars = []  # each is [row, col, side, countdown]
        self.ghosts = []  # each is [row, col, countdown]
        self.shot = None  # the arrow's [row, col] while in flight
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

        # The arrow flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.stars = [star for star in self.stars if self.move_star(star)]
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
        reward += self.hit_by_shot()
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

    def move_star(self, star):
        """Every STAR_PERIOD steps move the star; False once it has left the grid."""
        star[-1] -= 1
        if star[-1] > 0:
            return True
        star[-1] = STAR_PERIOD
        self.trail.append((star[0], star[1]))
        star[1] += star[2]
        return 0 <= star[1] < GRID

    def move_ghost(self, ghost):
        """Every GHOST_PERIOD steps move the ghost; False once it has left the grid."""
        ghost[-1] -= 1
        if ghost[-1] > 0:
            return True
        ghost[-1] = GHOST_PERIOD
        self.trail.append((ghost[0], ghost[1]))
        ghost[0] += 1
        return ghost[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [star for star in self.stars if star[:2] != self.player]
        reward += len(self.stars) - len(kept)
        self.stars = kept
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def hit_by_shot(self):
        """Remove the first object on the arrow's cell, and the arrow; the reward it gives."""
        if self.shot is None:
            return 0.0
        for ghost in self.ghosts:
            if ghost[:2] == self.shot:
                self.ghosts.remove(ghost)
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
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.stars.append(cell + [side, STAR_PERIOD])
        if self.random.rand() < GHOST_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.ghosts.append(cell + [GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.stars + self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        for star in self.stars:
            obs[star[0], star[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
