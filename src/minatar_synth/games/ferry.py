"""Ferry: carry passengers across a river, timing each dash through the debris lanes between sandbars.

Rules
-----
Row 9 is the bottom bank and row 0 the top bank. In between, the river has four debris lanes (rows
1, 3, 5 and 7) separated by sandbars (rows 2, 4, 6 and 8), where the ferry is safe. Each lane
carries one piece of debris that drifts across: lanes 1 and 5 drift right, lanes 3 and 7 drift left.
A piece moves 2 or 3 cells per step (its speed is drawn each time it enters) and its trail marks
the cell it occupied on the previous step. When it leaves the river a new piece enters at once
from the upstream side (it starts just outside column 0 or 9).

A passenger (reward channel) waits at a random column of the bottom bank. The ferry picks the
passenger up by moving onto that cell; the reward cell then marks a landing spot at a random
column of the top bank, and moving onto it delivers the passenger (+1). Then the next passenger
waits on the bottom bank, so the ferry must cross back down empty.

If debris touches the ferry (the piece starts or ends its move on the ferry's cell or passes over
it) the ferry is swept back to a bank, in the same column: an empty ferry to the top bank, a ferry
with a passenger to the bottom bank, and that passenger is lost (the next passenger waits at a new
random column of the bottom bank).

Each step: the ferry moves, then the debris moves.

Channels
--------
0 player:     the ferry.
1 danger:     debris.
2 reward:     the waiting passenger (bottom bank) or, with a passenger aboard, the landing spot (top
              bank).
3 projectile: unused.
4 trail:      the cell each piece of debris occupied on the previous step (2 or 3 cells behind it).
5 gauge:      time left, a bar in row 0 that shrinks from 10 cells to 0 over the episode.

Actions: 1 left, 2 up, 3 right, 4 down move the ferry one cell; 0 and 5 wait.
Reward: +1 per passenger delivered. The episode ends after max_steps steps.
"""

import numpy as np

LANES = (1, 3, 5, 7)
LANE_DIR = {1: 1, 3: -1, 5: 1, 7: -1}  # +1 drifts right, -1 drifts left
SPEEDS = (2, 3)  # cells per step; drawn each time a piece enters
MOVES = {1: (0, -1), 2: (-1, 0), 3: (0, 1), 4: (1, 0)}


class FerryEnvironment:
    score_cap = 18.0
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row, self.col = 9, 4
        self.aboard = False
        self.target = self.random.randint(10)  # column of the passenger or of the landing spot
        self.debris = {}  # lane -> [col, speed, trail col]; col may be just outside the river
        for lane in LANES:
            speed = SPEEDS[self.random.randint(len(SPEEDS))]
            self.debris[lane] = [self.random.randint(10), speed, None]
        self.steps = 0
        self.last_action = 0

    def enter(self, lane):
        """A new piece just outside the river on its upstream side: [col, speed, trail col]."""
        speed = SPEEDS[self.random.randint(len(SPEEDS))]
        return [-1 if LANE_DIR[lane] > 0 else 10, speed, None]

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Ferry moves.
        dr, dc = MOVES.get(action, (0, 0))
        self.row = min(9, max(0, self.row + dr))
        self.col = min(9, max(0, self.col + dc))

        # Debris moves, touching every cell from its start to its end.
        hit = False
        for lane in LANES:
            col, speed, _ = self.debris[lane]
            new_col = col + LANE_DIR[lane] * speed
            if self.row == lane and min(col, new_col) <= self.col <= max(col, new_col):
                hit = True
            if (new_col > 9 and LANE_DIR[lane] > 0) or (new_col < 0 and LANE_DIR[lane] < 0):
                self.debris[lane] = self.enter(lane)  # it left the river
            else:
                self.debris[lane] = [new_col, speed, col]
        if hit:  # swept back to a bank; a passenger aboard is lost
            if self.aboard:
                self.row = 9
                self.aboard = False
                self.target = self.random.randint(10)
            else:
                self.row = 0

        # Pick up or deliver.
        if not self.aboard and self.row == 9 and self.col == self.target:
            self.aboard = True
            self.target = self.random.randint(10)
        elif self.aboard and self.row == 0 and self.col == self.target:
            reward += 1.0
            self.aboard = False
            self.target = self.random.randint(10)

        self.steps += 1
        terminal = self.steps >= self.max_steps
        return reward, terminal

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[self.row, self.col, 0] = True
        for lane in LANES:
            col, _, trail = self.debris[lane]
            if 0 <= col <= 9:
                s[lane, col, 1] = True
            if trail is not None and 0 <= trail <= 9:
                s[lane, trail, 4] = True
        s[0 if self.aboard else 9, self.target, 2] = True
        time_cells = -(-10 * (self.max_steps - self.steps) // self.max_steps)  # rounded up
        s[0, :time_cells, 5] = True
        return s
