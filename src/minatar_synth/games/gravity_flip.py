"""Gravity Flip: run through a spiky tunnel that scrolls left, flipping gravity to fall between floor and ceiling.

Rules
- The tunnel is 10x10 and scrolls one column to the left every step; new columns come in at the
  right edge. The player always stays in column 2 and stands on the floor (row 9) or the
  ceiling (row 0).
- Standing, the player can flip gravity: FIRE flips it, UP sets it to pull up, DOWN to pull down.
  The player then falls 3 rows per step to the other side (rows 9 -> 6 -> 3 -> 0, or back),
  passing rows 6 and 3 in the air. Actions do nothing while the player is in the air.
- Spikes line the floor and the ceiling, and blocks float in rows 3 and 6. Each step the player
  moves first, then the tunnel scrolls; if the player's cell then holds a spike or a block the
  player crashes and the episode ends. A coin there is collected for +1.
- The tunnel is built from stretches: a gap of free columns, then a run of spikes on the floor
  or on the ceiling. Gaps can hold a floating block and coins. As time goes on the gaps get
  shorter, the runs longer and the blocks more frequent.
- The episode also ends after MAX_STEPS steps.

Channels (state()[row, col, channel])
- 0 player: the player's cell (column 2).
- 1 danger: spikes (rows 0 and 9) and blocks (rows 3 and 6).
- 2 reward: coins.
- 4 trail: the player's cell on the previous step, which shows which way it is falling.

Actions: 2 up, 4 down, 5 flip (only when standing); all others do nothing.
"""
import numpy as np

SIZE = 10
PLAYER_COL = 2
FALL = 3                  # rows fallen per step
FLOOR, CEILING = SIZE - 1, 0
MAX_STEPS = 1000
RAMP_STEPS = 800          # difficulty grows from level 0 to level 1 over this many steps
GAP = (4, 7)              # a gap has GAP[0]..GAP[1] free columns at level 0 ...
GAP_LEVEL1 = (1, 4)       # ... and GAP_LEVEL1[0]..GAP_LEVEL1[1] at level 1
RUN = (1, 2)              # a spike run is RUN[0]..RUN[1] columns long at level 0 ...
RUN_LEVEL1 = (1, 4)       # ... and RUN_LEVEL1[0]..RUN_LEVEL1[1] at level 1
BLOCK_CHANCE = (0.05, 0.25)  # chance that a gap column holds a floating block at level 0 and 1
COIN_CHANCE = 0.15        # chance that a gap column holds a coin (in a random free row)

NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
PLAYER, DANGER, REWARD, TRAIL = 0, 1, 2, 4
EMPTY, BAD, COIN = 0, 1, 2
LANES = (CEILING, 3, 6, FLOOR)  # the only rows anything can be in


class GravityFlipEnvironment:
    score_cap = 66.0
    max_steps = MAX_STEPS

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row, self.pull = FLOOR, 1          # pull: +1 down, -1 up
        self.prev_row = FLOOR
        self.steps = 0
        self.last_action = 0
        self.terminal = False
        # columns[c][row] holds EMPTY, BAD or COIN; the first columns are empty
        self.columns = [[EMPTY] * SIZE for _ in range(PLAYER_COL + 1)]
        self.queue = []  # columns built but not yet on screen
        while len(self.columns) < SIZE:
            self.columns.append(self._new_column())

    @staticmethod
    def _fall(row, pull):
        return min(FLOOR, max(CEILING, row + FALL * pull))

    def _pick(self, low, high):
        return low + int(self.random.rand() * (high - low + 1))

    def _new_column(self):
        if not self.queue:
            self._build_stretch()
        return self.queue.pop(0)

    def _build_stretch(self):
        """Queue a gap (maybe with a block and coins) followed by a run of spikes."""
        level = min(1.0, self.steps / RAMP_STEPS)
        blend = lambda a, b: int(round(a + (b - a) * level))
        gap = self._pick(blend(GAP[0], GAP_LEVEL1[0]), blend(GAP[1], GAP_LEVEL1[1]))
        run = self._pick(blend(RUN[0], RUN_LEVEL1[0]), blend(RUN[1], RUN_LEVEL1[1]))
        block = BLOCK_CHANCE[0] + (BLOCK_CHANCE[1] - BLOCK_CHANCE[0]) * level
        for _ in range(gap):
            column = [EMPTY] * SIZE
            if self.random.rand() < block:
                column[3 if self.random.rand() < 0.5 else 6] = BAD
            if self.random.rand() < COIN_CHANCE:
                row = LANES[self._pick(0, 3)]
                if column[row] == EMPTY:
                    column[row] = COIN
            self.queue.append(column)
        surface = FLOOR if self.random.rand() < 0.5 else CEILING
        for _ in range(run):
            column = [EMPTY] * SIZE
            column[surface] = BAD
            self.queue.append(column)

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        if self.row in (FLOOR, CEILING):
            if action == FIRE:
                self.pull = -self.pull
            elif action == UP:
                self.pull = -1
            elif action == DOWN:
                self.pull = 1
        self.prev_row = self.row
        self.row = self._fall(self.row, self.pull)
        self.columns = self.columns[1:] + [self._new_column()]  # scroll left

        reward = 0.0
        cell = self.columns[PLAYER_COL][self.row]
        if cell == BAD:
            self.terminal = True
        elif cell == COIN:
            self.columns[PLAYER_COL][self.row] = EMPTY
            reward = 1.0
        self.steps += 1
        if self.steps >= MAX_STEPS:
            self.terminal = True
        return reward, self.terminal

    def state(self):
        s = np.zeros((SIZE, SIZE, 6), dtype=bool)
        s[self.row, PLAYER_COL, PLAYER] = True
        if self.prev_row != self.row:
            s[self.prev_row, PLAYER_COL, TRAIL] = True
        for c, column in enumerate(self.columns):
            for row in LANES:
                if column[row] == BAD:
                    s[row, c, DANGER] = True
                elif column[row] == COIN:
                    s[row, c, REWARD] = True
        return s
