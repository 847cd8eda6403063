"""Coin Runner: the world scrolls left while the runner moves up and down to grab coins and slip through gaps in walls.

Rules
- The runner stays in column 1 and moves one row per step with actions 2 (up) and 4 (down); every
  other action keeps its row.
- Every step the whole world moves one column to the left and a new column enters at column 9.
- Every 5 to 8 columns a wall fills a whole column except for a gap of 3 rows; the gap of the next
  wall is never further away than the runner can travel in time. Between walls, coins come in a
  wandering line, one coin in most columns; a coin also sits in the middle of every gap.
- A coin reached by the runner gives +1 reward and disappears. Touching a wall ends the episode.
  Collisions are checked after the runner moves and again after the world scrolls.
- The episode also ends after `max_steps` steps.

Channels of state()
- 0 player: the runner, column 1.
- 1 danger: the wall cells.
- 2 reward: the coins.
- 4 trail: the runner's row on the previous step, drawn in column 0 (a streak behind the runner).
Channels 3 (projectile) and 5 (gauge) are unused.
"""

import numpy as np

GRID = 10
RUNNER_COL = 1
GAP = 3  # rows of free space in a wall
MIN_SPACING, MAX_SPACING = 5, 8  # columns from one wall to the next
COIN_PROB = 0.7  # chance that a column between walls holds a coin
UP, DOWN = 2, 4


class CoinRunnerEnvironment:
    score_cap = 280.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row = GRID // 2
        self.prev_row = self.row
        self.gap = 3  # top row of the gap of the next wall to be built
        self.until_wall = MAX_SPACING  # columns still to build before that wall
        self.coin_row = self.row
        # The screen: a list of 10 columns, each [wall bitmask over rows, coin row or -1].
        self.columns = [[0, -1] for _ in range(GRID)]
        self.steps = 0
        self.last_action = 0
        self.terminal = False

    def _new_column(self):
        self.until_wall -= 1
        if self.until_wall == 0:
            walls = ((1 << GRID) - 1) & ~(((1 << GAP) - 1) << self.gap)
            column = [walls, self.gap + GAP // 2]
            spacing = MIN_SPACING + int(self.random.rand() * (MAX_SPACING - MIN_SPACING + 1))
            reach = spacing - 2  # rows the runner can surely cover between two walls
            low, high = max(self.gap - reach, 0), min(self.gap + reach, GRID - GAP)
            self.gap = low + int(self.random.rand() * (high - low + 1))
            self.until_wall = spacing
            return column
        step = int(self.random.rand() * 3) - 1
        self.coin_row = min(max(self.coin_row + step, 0), GRID - 1)
        return [0, self.coin_row if self.random.rand() < COIN_PROB else -1]

    def _touch(self):
        # Collect a coin or hit a wall in the runner's cell; returns (reward, crashed).
        column = self.columns[RUNNER_COL]
        if (column[0] >> self.row) & 1:
            return 0.0, True
        if column[1] == self.row:
            column[1] = -1
            return 1.0, False
        return 0.0, False

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        self.prev_row = self.row
        if action == UP:
            self.row = max(0, self.row - 1)
        elif action == DOWN:
            self.row = min(GRID - 1, self.row + 1)
        reward, crashed = self._touch()
        if not crashed:
            self.columns.pop(0)
            self.columns.append(self._new_column())
            gained, crashed = self._touch()
            reward += gained

        self.steps += 1
        self.terminal = crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.row, RUNNER_COL, 0] = True
        obs[self.prev_row, 0, 4] = True
        for col, (walls, coin) in enumerate(self.columns):
            if walls:
                for row in range(GRID):
                    if (walls >> row) & 1:
                        obs[row, col, 1] = True
            if coin >= 0:
                obs[coin, col, 2] = True
        return obs
