"""Gen 00421: move a frog up and down the left column to collect shells while dodging or shooting zigzagging
  bombs.

Rules
- The frog is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping at
  the edges. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the frog's cell when no bolt is in flight. The bolt moves one cell to
  the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Shells appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one
  column left and one row sideways every second step (each picks its sideways direction when it appears),
  bouncing off the top and bottom walls; they are gone when they leave the grid.
- Bombs appear in column 9 at a random row (chance 0.40 each step, if that cell is empty). They move one
  column left and one row sideways every step (each picks its sideways direction when it appears), bouncing
  off the top and bottom walls; they are gone when they leave the grid.
- When the frog and an object share a cell (checked after the frog moves and again after the objects move),
  the object is removed: a shell gives +1; a bomb costs 1 point (-1 reward).
- A bomb removed by a bolt gives +1.
- The episode ends after `max_steps` (400) steps.
- Each step: the frog moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the frog.
- 1 danger: the bombs.
- 2 reward: the shells.
- 3 projectile: the bolt.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each shell collected; +1 for each bomb shot; -1 for each bolt that misses (leaves the grid); -1 for
  each bomb touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
SHELL_CHANCE = 0.3  # chance each step that a new shell appears
SHELL_PERIOD = 2  # steps per move of a shell
BOMB_CHANCE = 0.4  # chance each step that a new bomb appears
BOMB_PERIOD = 1  # steps per move of a bomb
UP, DOWN, FIRE = 2, 4, 5


class Gen00421Environment:
    score_cap = 200.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.shells = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, side, countdown]
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
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

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

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        if not 0 <= bomb[0] + bomb[2] < GRID:
            bomb[2] = -bomb[2]  # bounce off the wall
        bomb[0] += bomb[2]
        bomb[1] -= 1
        return bomb[1] >= 0

    def touch(self):
        """Remove the objects on the frog's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the bolt's cell, and the bolt; the reward it gives."""
        if self.shot is None:
            return 0.0
        for bomb in self.bombs:
            if bomb[:2] == self.shot:
                self.bombs.remove(bomb)
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
        if self.random.rand() < BOMB_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.bombs.append(cell + [side, BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
