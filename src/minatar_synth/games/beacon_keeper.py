"""Beacon Keeper: walk between four beacons to keep them fuelled while dodging two storms; each lit beacon scores every step.

Rules
-----
Four beacons stand at fixed cells: (2,2) top-left, (2,7) top-right, (7,2) bottom-left and (7,7)
bottom-right. Each holds up to 20 units of fuel and starts empty (dark). Each step a beacon that
has fuel burns one unit with its own probability, its burn rate, drawn at the start of the
episode between 0.2 and 0.6. A beacon with fuel is lit; one with none is dark until refuelled.

The keeper walks one cell per step. A keeper standing on a beacon pours 3 units of fuel into it
per step (never above 20).

Two storms fly diagonally across the field, 2 cells per step, bouncing off the walls and turning
at random now and then (one starts on the top row, one on the bottom row). A storm that passes
over the keeper (or where the keeper steps) throws the keeper to the centre cell (4,4).

Each step: the keeper moves, the storms fly, the keeper pours if on a beacon, the beacons burn,
then every lit beacon scores +1.

Channels
--------
0 player:     the keeper.
1 danger:     the storms.
2 reward:     the four beacons (lit or dark: the fuel bar tells which).
3 projectile: unused.
4 trail:      the cell each storm occupied on the previous step (2 cells behind it diagonally).
5 gauge:      the fuel of each beacon, one lit cell per 4 units (rounded up, 0-5 cells; 0 means
              dark): top-left beacon in row 0 from column 0 rightwards, top-right in row 0 from
              column 9 leftwards, bottom-left in row 9 from column 0 rightwards, bottom-right in
              row 9 from column 9 leftwards.

Actions: 1 left, 2 up, 3 right, 4 down move the keeper one cell (not past the walls); 0 and 5 wait.
Reward: +1 per lit beacon per step (at most 4 per step). The episode ends after max_steps steps.
"""

import numpy as np

BEACONS = ((2, 2), (2, 7), (7, 2), (7, 7))
GAUGE_ROW = (0, 0, 9, 9)  # where each beacon's fuel bar is drawn
GAUGE_FROM_RIGHT = (False, True, False, True)
FUEL_MAX = 20
FUEL_START = 0
FUEL_PER_CELL = 4
POUR = 3
RATE_MIN, RATE_MAX = 0.2, 0.6  # chance per step that a beacon burns one unit
MOVES = {1: (0, -1), 2: (-1, 0), 3: (0, 1), 4: (1, 0)}
STORM_TURN = 0.1  # chance per step that the storm picks a new direction
STORM_SPEED = 2  # cells per step
STORM_DIRS = ((-1, -1), (-1, 1), (1, -1), (1, 1))  # storms fly diagonally
STORM_ROWS = (0, 9)  # one storm starts on the top row, one on the bottom row
HOME = (4, 4)  # where a keeper caught by a storm is thrown


class BeaconKeeperEnvironment:
    score_cap = 3600.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row, self.col = 4, 4
        self.fuel = [FUEL_START] * 4
        self.rates = [RATE_MIN + (RATE_MAX - RATE_MIN) * self.random.rand() for _ in range(4)]
        self.storms = []  # each [row, col, (drow, dcol), trail cell (None before the first move)]
        for row in STORM_ROWS:
            direction = STORM_DIRS[self.random.randint(len(STORM_DIRS))]
            self.storms.append([row, self.random.randint(10), direction, None])
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action

        dr, dc = MOVES.get(action, (0, 0))
        self.row = min(9, max(0, self.row + dr))
        self.col = min(9, max(0, self.col + dc))

        # Each storm flies STORM_SPEED cells per step in a straight diagonal line, bouncing off the
        # walls and sometimes turning; it sweeps every cell on its way.
        swept = []
        for storm in self.storms:
            if self.random.rand() < STORM_TURN:
                storm[2] = STORM_DIRS[self.random.randint(len(STORM_DIRS))]
            storm[3] = (storm[0], storm[1])
            swept.append(storm[3])
            for _ in range(STORM_SPEED):
                dr, dc = storm[2]
                if not 0 <= storm[0] + dr <= 9:
                    dr = -dr
                if not 0 <= storm[1] + dc <= 9:
                    dc = -dc
                storm[0], storm[1], storm[2] = storm[0] + dr, storm[1] + dc, (dr, dc)
                swept.append((storm[0], storm[1]))
        if (self.row, self.col) in swept:
            self.row, self.col = HOME

        reward = 0.0
        for i, cell in enumerate(BEACONS):
            if cell == (self.row, self.col):
                self.fuel[i] = min(FUEL_MAX, self.fuel[i] + POUR)
            if self.fuel[i] > 0 and self.random.rand() < self.rates[i]:
                self.fuel[i] -= 1
            if self.fuel[i] > 0:
                reward += 1.0

        self.steps += 1
        return reward, self.steps >= self.max_steps

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[self.row, self.col, 0] = True
        for row, col, _, trail in self.storms:
            s[row, col, 1] = True
            if trail is not None:
                s[trail[0], trail[1], 4] = True
        for i, (r, c) in enumerate(BEACONS):
            s[r, c, 2] = True
            cells = -(-self.fuel[i] // FUEL_PER_CELL)
            if GAUGE_FROM_RIGHT[i]:
                s[GAUGE_ROW[i], 10 - cells :, 5] = True
            else:
                s[GAUGE_ROW[i], :cells, 5] = True
        return s
