"""Rockfall: dodge the rocks that rain down in random columns, faster and thicker as time goes on.

Rules
- The board is 10x10. The player stands on the bottom row (row 9) and moves one column left or
  right per step (it stops at the walls).
- Rocks appear in row 0 in random columns and fall one row per fall tick. Fall ticks come every
  3 steps at first, every 2 steps from step 150 and every step from step 400. New rocks appear on
  the ticks, on average START_RATE + RATE_GROWTH * step of them per step, so the rain thickens.
- On a fall tick every rock moves down one row; a rock that leaves row 8 lands on the ground.
  If it lands in the player's column the player is crushed and the episode ends; otherwise the
  player earns +1 for the dodged rock. The player moves first, then the rocks fall, so stepping
  under a rock that sits in row 8 just before a tick is deadly.
- The episode also ends after MAX_STEPS steps.

Channels (state()[row, col, channel])
- 0 player: the player's cell in row 9.
- 1 danger: the rocks (rows 0-8).
- 4 trail: the cell each rock fell from on its last fall (directly above it), showing it falls.
- 5 gauge: steps until the next fall tick, as that many lit cells in row 9 from column 0
  (one lit cell means the rocks fall at the end of this step).

Actions: 1 left, 3 right; all others do nothing.
"""
import numpy as np

ROWS = 10
COLS = 10
GROUND_ROW = 9            # the player's row; rocks never stay here
MAX_STEPS = 1000
FAST_FROM = (150, 400)    # steps at which the fall period drops from 3 to 2 and from 2 to 1
START_RATE = 0.3          # expected new rocks per step at step 0 ...
RATE_GROWTH = 0.0012      # ... plus this much per step survived (they appear on fall ticks)

NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
PLAYER, DANGER, TRAIL, GAUGE = 0, 1, 4, 5


class RockfallEnvironment:
    score_cap = 890.0
    max_steps = MAX_STEPS

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = COLS // 2   # player's column
        self.rocks = []           # [row, col, fell] per rock; fell is True once it has moved
        self.steps = 0
        self.timer = self._period()  # steps until the next fall tick
        self.last_action = 0
        self.terminal = False

    def _period(self):
        if self.steps < FAST_FROM[0]:
            return 3
        if self.steps < FAST_FROM[1]:
            return 2
        return 1

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        if action == LEFT and self.player > 0:
            self.player -= 1
        elif action == RIGHT and self.player < COLS - 1:
            self.player += 1

        reward = 0.0
        self.steps += 1
        self.timer -= 1
        if self.timer == 0:
            # fall tick: every rock moves down; rocks leaving row 8 land
            falling = []
            for rock in self.rocks:
                if rock[0] == GROUND_ROW - 1:
                    if rock[1] == self.player:
                        self.terminal = True
                    else:
                        reward += 1.0
                else:
                    falling.append([rock[0] + 1, rock[1], True])
            self.rocks = falling
            # new rocks in row 0, more as time goes on
            rate = (START_RATE + RATE_GROWTH * self.steps) * self._period()
            while rate > 0:
                if rate >= 1 or self.random.rand() < rate:
                    self.rocks.append([0, int(self.random.rand() * COLS), False])
                rate -= 1
            self.timer = self._period()

        if self.steps >= MAX_STEPS:
            self.terminal = True
        return reward, self.terminal

    def state(self):
        s = np.zeros((ROWS, COLS, 6), dtype=bool)
        s[GROUND_ROW, self.player, PLAYER] = True
        for row, col, fell in self.rocks:
            s[row, col, DANGER] = True
            if fell:
                s[row - 1, col, TRAIL] = True
        s[GROUND_ROW, :self.timer, GAUGE] = True
        return s
