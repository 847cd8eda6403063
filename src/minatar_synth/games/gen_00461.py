"""Gen 00461: move a knight up and down the left column to collect shells while dodging or shooting zigzagging
  wasps.

Rules
- The knight is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the knight's cell when no bolt is in flight. The bolt moves one cell to
  the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Shells appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one
  column left every second step; they are gone when they leave the grid.
- Wasps appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one
  column left and one row sideways every second step (each picks its sideways direction when it appears),
  bouncing off the top and bottom walls; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: a shell gives +1; a wasp costs one of the knight's 2 lives.
- A wasp removed by a bolt gives +1.
- The episode ends when the last life is lost or after `max_steps` (200) steps.
- Each step: the knight moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the wasps.
- 2 reward: the shells.
- 3 projectile: the bolt.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each shell collected; +1 for each wasp shot; -1 for each bolt that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 2
SHELL_CHANCE = 0.3  # chance each step that a new shell appears
SHELL_PERIOD = 2  # steps per move of a shell
WASP_CHANCE = 0.3  # chance each step that a new wasp appears
WASP_PERIOD = 2  # steps per move of a wasp
UP, DOWN, FIRE = 2, 4, 5


class Gen00461Environment:
    score_cap = 72.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.shells = []  # each is [row, col, countdown]
        self.wasps = []  # each is [row, col, side, countdown]
        self.shot = None  # the bolt's [row, col] while in flight
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

        # The bolt flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
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

    def move_shell(self, shell):
        """Every SHELL_PERIOD steps move the shell; False once it has left the grid."""
        shell[-1] -= 1
        if shell[-1] > 0:
            return True
        shell[-1] = SHELL_PERIOD
        self.trail.append((shell[0], shell[1]))
        shell[1] -= 1
        return shell[1] >= 0

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        self.trail.append((wasp[0], wasp[1]))
        if not 0 <= wasp[0] + wasp[2] < GRID:
            wasp[2] = -wasp[2]  # bounce off the wall
        wasp[0] += wasp[2]
        wasp[1] -= 1
        return wasp[1] >= 0

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the bolt's cell, and the bolt; the reward it gives."""
        if self.shot is None:
            return 0.0
        for wasp in self.wasps:
            if wasp[:2] == self.shot:
                self.wasps.remove(wasp)
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
            if self.is_empty(cell):
                self.shells.append(cell + [SHELL_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.wasps.append(cell + [side, WASP_PERIOD])

    def is_empty(self, cell):
        objects = self.shells + self.wasps
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for wasp in self.wasps:
            obs[wasp[0], wasp[1], 1] = True
        for shell in self.shells:
            obs[shell[0], shell[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
