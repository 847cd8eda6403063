"""Gen 00130: move a ship around the grid to collect stars while dodging or shooting drifting mines.

Rules
- The ship is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the ship's cell when no bolt is in flight. The bolt moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which costs
  1 point).
- Stars appear at the left or right edge in a random row (chance 0.20 each step, if that cell is empty) and
  cross the grid one column every second step; they are gone when they leave it.
- Mines appear at the left or right edge in a random row (chance 0.50 each step, if that cell is empty) and
  cross the grid one column every step; they are gone when they leave it.
- When the ship and an object share a cell (checked after the ship moves and again after the objects move),
  the object is removed: a star gives +1; a mine costs 1 point (-1 reward).
- A mine removed by a bolt gives +1.
- The episode ends after `max_steps` (300) steps.
- Each step: the ship moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the ship.
- 1 danger: the mines.
- 2 reward: the stars.
- 3 projectile: the bolt.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each star collected; +1 for each mine shot; -1 for each bolt that misses (leaves the grid); -1 for
  each mine touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
STAR_CHANCE = 0.2  # chance each step that a new star appears
STAR_PERIOD = 2  # steps per move of a star
MINE_CHANCE = 0.5  # chance each step that a new mine appears
MINE_PERIOD = 1  # steps per move of a mine
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00130Environment:
    score_cap = 150.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.stars = []  # each is [row, col, side, countdown]
        self.mines = []  # each is [row, col, side, countdown]
        self.shot = None  # the bolt's [row, col] while in flight
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
        self.stars = [star for star in self.stars if self.move_star(star)]
        self.mines = [mine for mine in self.mines if self.move_mine(mine)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
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

    def move_star(self, star):
        """Every STAR_PERIOD steps move the star; False once it has left the grid."""
        star[-1] -= 1
        if star[-1] > 0:
            return True
        star[-1] = STAR_PERIOD
        star[1] += star[2]
        return 0 <= star[1] < GRID

    def move_mine(self, mine):
        """Every MINE_PERIOD steps move the mine; False once it has left the grid."""
        mine[-1] -= 1
        if mine[-1] > 0:
            return True
        mine[-1] = MINE_PERIOD
        mine[1] += mine[2]
        return 0 <= mine[1] < GRID

    def touch(self):
        """Remove the objects on the ship's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [star for star in self.stars if star[:2] != self.player]
        reward += len(self.stars) - len(kept)
        self.stars = kept
        kept = [mine for mine in self.mines if mine[:2] != self.player]
        hits = len(self.mines) - len(kept)
        self.mines = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the bolt's cell, and the bolt; the reward it gives."""
        if self.shot is None:
            return 0.0
        for mine in self.mines:
            if mine[:2] == self.shot:
                self.mines.remove(mine)
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
        if self.random.rand() < MINE_CHANCE:
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.mines.append(cell + [side, MINE_PERIOD])

    def is_empty(self, cell):
        objects = self.stars + self.mines
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for mine in self.mines:
            obs[mine[0], mine[1], 1] = True
        for star in self.stars:
            obs[star[0], star[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
