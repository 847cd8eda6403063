"""Firefighter: fly a water bomber along the top row and drop water on fires before they burn the houses below.

Rules
-----
Ten houses stand on the bottom row (row 9), one per column. A house can catch fire; its fire has a
height of 1 to 3 flame cells stacked above it (row 8, then 7, then 6). A fire grows one cell taller
at random moments; a fire of height 3 that grows again burns the house down (house and fire are
gone for good). A fire of height 2 or more may spread to the houses left and right of it, and new
fires start at random on standing houses, more often as the episode goes on.

The player is a plane on the top row (row 0). Left and right move it one column. Fire releases a
water bomb below the plane if the tank holds at least one load; the tank holds 3 loads and gains
one load every 6 steps (loads beyond 3 are lost). A water bomb falls straight down 2 rows per step,
starting from row 1 in the step it is released, so it shows in rows 3, 5 and 7. When it reaches the
top flame of a fire it is used up and the fire loses one cell of height; a fire that loses its last
cell is put out (+1). A bomb that reaches the bottom without meeting a flame is wasted.

Each step: the plane moves or drops water, bombs fall, then fires grow, spread and start.

Channels
--------
0 player:     the plane (row 0).
1 danger:     flame cells (rows 6-8 above a burning house).
2 reward:     standing houses (row 9).
3 projectile: falling water bombs.
4 trail:      the cell each water bomb occupied on the previous step (2 rows above it).
5 gauge:      water in the tank, one lit cell per load in row 0 from column 0 (0-3 cells).

Actions: 1 left, 3 right, 5 fire (drop water); the others do nothing.
Reward: +1 per fire put out. The episode ends when every house has burned down or after
max_steps steps.
"""

import numpy as np

HOUSE_ROW = 9
MAX_FLAME = 3  # flame cells rise from row 8 up to row 6
TANK_MAX = 3
REFILL_STEPS = 6  # one load of water comes back every 6 steps
DROP_SPEED = 2  # rows per step
GROW = 0.06  # chance per step that a fire grows one cell
SPREAD = 0.05  # chance per step that a fire of height >= 2 spreads to each neighbouring house
IGNITE_START, IGNITE_GROWTH, IGNITE_MAX = 0.15, 0.0002, 0.3  # chance per step of a new fire


class FirefighterEnvironment:
    score_cap = 55.0
    max_steps = 800

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.plane = 4
        self.houses = [True] * 10  # house standing in each column
        self.fire = [0] * 10  # flame height over each house (0 = not burning)
        self.drops = []  # water bombs, each [row, col]
        self.tank = TANK_MAX
        self.refill = 0
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Plane: move or drop water.
        if action == 1:
            self.plane = max(0, self.plane - 1)
        elif action == 3:
            self.plane = min(9, self.plane + 1)
        elif action == 5 and self.tank > 0:
            self.tank -= 1
            self.drops.append([1, self.plane])
        self.refill += 1
        if self.refill >= REFILL_STEPS:
            self.refill = 0
            self.tank = min(TANK_MAX, self.tank + 1)

        # Water bombs fall (a bomb released this step falls from row 1 to row 3 at once).
        kept = []
        for drop in self.drops:
            row, col = drop
            top_flame = HOUSE_ROW - self.fire[col]  # row of the highest flame cell
            new_row = row + DROP_SPEED
            if self.fire[col] > 0 and new_row >= top_flame:
                self.fire[col] -= 1
                if self.fire[col] == 0:
                    reward += 1.0
            elif new_row < HOUSE_ROW:
                drop[0] = new_row
                kept.append(drop)
        self.drops = kept

        # Fires grow (and burn houses down), spread, and start.
        spread_to = []
        for col in range(10):
            if self.fire[col] == 0:
                continue
            if self.random.rand() < GROW:
                self.fire[col] += 1
                if self.fire[col] > MAX_FLAME:
                    self.fire[col] = 0
                    self.houses[col] = False
                    continue
            if self.fire[col] >= 2:
                for n in (col - 1, col + 1):
                    if 0 <= n < 10 and self.random.rand() < SPREAD:
                        spread_to.append(n)
        for col in spread_to:
            if self.houses[col] and self.fire[col] == 0:
                self.fire[col] = 1
        ignite = min(IGNITE_MAX, IGNITE_START + IGNITE_GROWTH * self.steps)
        if self.random.rand() < ignite:
            col = self.random.randint(10)
            if self.houses[col] and self.fire[col] == 0:
                self.fire[col] = 1

        self.steps += 1
        terminal = not any(self.houses) or self.steps >= self.max_steps
        return reward, terminal

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[0, self.plane, 0] = True
        for col in range(10):
            if self.houses[col]:
                s[HOUSE_ROW, col, 2] = True
            for h in range(self.fire[col]):
                s[HOUSE_ROW - 1 - h, col, 1] = True
        for row, col in self.drops:
            s[row, col, 3] = True
            if row - DROP_SPEED >= 0:
                s[row - DROP_SPEED, col, 4] = True
        s[0, : self.tank, 5] = True
        return s
