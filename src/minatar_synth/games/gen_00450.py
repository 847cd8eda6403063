"""Gen 00450: move a diver along the bottom row to collect shells while dodging homing wasps.

Rules
- The diver is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Shells appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- Wasps appear in row 0 at a random column (chance 0.15 each step, if that cell is empty). They move one row
  down every step, each time also stepping one column toward the diver with chance 0.5; they are gone when
  they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: a shell gives +1; a wasp ends the episode.
- The episode ends at the first wasp touched or after `max_steps` (300) steps.
- Each step: the diver moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the wasps.
- 2 reward: the shells.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each shell collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
SHELL_CHANCE = 0.2  # chance each step that a new shell appears
SHELL_PERIOD = 1  # steps per move of a shell
WASP_CHANCE = 0.15  # chance each step that a new wasp appears
WASP_PERIOD = 1  # steps per move of a wasp
LEFT, RIGHT = 1, 3


class Gen00450Environment:
    score_cap = 8.2
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.shells = []  # each is [row, col, countdown]
        self.wasps = []  # each is [row, col, countdown]
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
        self.shells = [shell for shell in self.shells if self.move_shell(shell)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_shell(self, shell):
        """Every SHELL_PERIOD steps move the shell; False once it has left the grid."""
        shell[-1] -= 1
        if shell[-1] > 0:
            return True
        shell[-1] = SHELL_PERIOD
        shell[0] += 1
        return shell[0] <= BOTTOM

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        if self.random.rand() < 0.5:
            wasp[1] += int(np.sign(self.player[1] - wasp[1]))  # one step toward the diver
        wasp[0] += 1
        return wasp[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [shell for shell in self.shells if shell[:2] != self.player]
        reward += len(self.shells) - len(kept)
        self.shells = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < SHELL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.shells.append(cell + [SHELL_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.wasps.append(cell + [WASP_PERIOD])

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
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
