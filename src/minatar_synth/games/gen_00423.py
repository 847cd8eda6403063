"""Gen 00423: move a cart up and down the left column to collect shells while dodging or shooting falling mines.

Rules
- The cart is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, wrapping
  round to the other side. Other actions leave it in place.
- Action 5 (fire) launches a spark from the cart's cell when no spark is in flight. The spark moves one cell
  to the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Shells appear in column 9 at a random row (chance 0.40 each step, if that cell is empty). They move one
  column left and one row sideways every step (each picks its sideways direction when it appears), bouncing
  off the top and bottom walls; they are gone when they leave the grid.
- Mines appear in column 9 at a random row (chance 0.40 each step, if that cell is empty). They move one
  column left every step; they are gone when they leave the grid.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a shell gives +1; a mine costs one of the cart's 3 lives.
- A mine removed by a spark gives +1.
- The episode ends when the last life is lost or after `max_steps` (200) steps.
- Each step: the cart moves, the spark moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the mines.
- 2 reward: the shells.
- 3 projectile: the spark.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each shell collected; +1 for each mine shot; -1 for each spark that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 3
SHELL_CHANCE = 0.4  # chance each step that a new shell appears
SHELL_PERIOD = 1  # steps per move of a shell
MINE_CHANCE = 0.4  # chance each step that a new mine appears
MINE_PERIOD = 1  # steps per move of a mine
UP, DOWN, FIRE = 2, 4, 5


class Gen00423Environment:
    score_cap = 97.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.shells = []  # each is [row, col, side, countdown]
        self.mines = []  # each is [row, col, countdown]
        self.shot = None  # the spark's [row, col] while in flight
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
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.mines = [mine for mine in self.mines if self.move_mine(mine)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = (self.player[0] - 1) % GRID
        elif action == DOWN:
            self.player[0] = (self.player[0] + 1) % GRID

    def move_shell(self, shell):
        """Every SHELL_PERIOD steps move the shell; False once it has left the grid."""
        shell[-1] -= 1
        if shell[-1] > 0:
            return True
        shell[-1] = SHELL_PERIOD
        if not 0 <= shell[0] + shell[2] < GRID:
            shell[2] = -shell[2]  # bounce off the wall
        shell[0] += shell[2]
        shell[1] -= 1
        return shell[1] >= 0

    def move_mine(self, mine):
        """Every MINE_PERIOD steps move the mine; False once it has left the grid."""
        mine[-1] -= 1
        if mine[-1] > 0:
            return True
        mine[-1] = MINE_PERIOD
        mine[1] -= 1
        return mine[1] >= 0

    def touch(self):
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [mine for mine in self.mines if mine[:2] != self.player]
        hits = len(self.mines) - len(kept)
        self.mines = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the spark's cell, and the spark; the reward it gives."""
        if self.shot is None:
            return 0.0
        for mine in self.mines:
            if mine[:2] == self.shot:
                self.mines.remove(mine)
                self.shot = None
                return 1.0
        for shell in self.shells:
            if shell[:2] == self.shot:
                self.shells.remove(shell)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.shells.append(cell + [side, SHELL_PERIOD])
        if self.random.rand() < MINE_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.mines.append(cell + [MINE_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.mines
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for mine in self.mines:
            obs[mine[0], mine[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
