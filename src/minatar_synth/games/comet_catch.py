"""Comet Catch: roam the lower sky to intercept comets streaking diagonally downward while dodging a falling meteor.

Rules
-----
The player moves freely (one cell per step) within the lower part of the grid, rows 4-9; it starts
at (7,4).

There is always exactly one comet. It enters on the top row (row 0) and moves diagonally down: each
step one row down and one column sideways (a slow comet) or two rows down and two columns sideways
(a fast comet). It bounces off the left and right walls. Its tail (trail channel) marks the cell it
occupied on the previous step, so the comet-to-tail offset gives both its direction and its speed.
The player catches the comet (+1) by standing, after its own move, on any cell the comet touches
during that step: where it starts, the cell it jumps over (fast comets) or where it lands. A comet
that falls off the bottom is lost. Either way a new comet appears at once on the top row.

There is always exactly one meteor. It falls straight down 1 row per step (a slow meteor) or 2 rows
per step (a fast meteor) from a random column of the top row, and leaves no tail. If the player
ends its move on a cell the meteor touches during the step, the player loses one life and the
meteor is gone; a new meteor appears on the top row when the old one is gone or has fallen off.

Each step: the player moves, then the comet moves, then the meteor falls.

Channels
--------
0 player:     the player.
1 danger:     the meteor.
2 reward:     the comet.
3 projectile: unused.
4 trail:      the comet's tail (its cell on the previous step).
5 gauge:      lives left, one lit cell per life in row 9 from column 0 (starts at 3).

Actions: 1 left, 2 up, 3 right, 4 down move the player one cell (not past the walls or above row
4); 0 and 5 wait.
Reward: +1 per comet caught. The episode ends when no lives are left or after max_steps steps.
"""

import numpy as np

START_LIVES = 3
FAST_COMET = 0.35  # chance that a new comet is fast
FAST_METEOR = 0.5  # chance that a new meteor is fast
PLAYER_TOP = 4  # the player stays in rows 4-9
MOVES = {1: (0, -1), 2: (-1, 0), 3: (0, 1), 4: (1, 0)}


class CometCatchEnvironment:
    score_cap = 130.0
    max_steps = 600

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row, self.col = 7, 4
        self.lives = START_LIVES
        self.new_comet()
        self.new_meteor()
        self.steps = 0
        self.last_action = 0

    def new_comet(self):
        self.comet = [0, self.random.randint(10)]  # row, col
        self.comet_dir = 1 if self.random.rand() < 0.5 else -1  # column direction
        self.comet_speed = 2 if self.random.rand() < FAST_COMET else 1
        self.tail = None

    def new_meteor(self):
        self.meteor = [0, self.random.randint(10)]
        self.meteor_speed = 2 if self.random.rand() < FAST_METEOR else 1

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Player moves.
        dr, dc = MOVES.get(action, (0, 0))
        self.row = min(9, max(PLAYER_TOP, self.row + dr))
        self.col = min(9, max(0, self.col + dc))
        me = (self.row, self.col)

        # Comet moves one cell at a time (bouncing off the side walls), touching each cell.
        touched = [tuple(self.comet)]
        self.tail = tuple(self.comet)
        for _ in range(self.comet_speed):
            if not 0 <= self.comet[1] + self.comet_dir <= 9:
                self.comet_dir = -self.comet_dir
            self.comet[0] += 1
            self.comet[1] += self.comet_dir
            touched.append(tuple(self.comet))
        if me in touched:
            reward += 1.0
            self.new_comet()
        elif self.comet[0] > 9:
            self.new_comet()

        # Meteor falls, touching each cell on its way.
        r, c = self.meteor
        if me in [(r + k, c) for k in range(self.meteor_speed + 1)]:
            self.lives -= 1
            self.new_meteor()
        elif r + self.meteor_speed > 9:
            self.new_meteor()
        else:
            self.meteor[0] = r + self.meteor_speed

        self.steps += 1
        terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, terminal

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[self.row, self.col, 0] = True
        s[self.meteor[0], self.meteor[1], 1] = True
        s[self.comet[0], self.comet[1], 2] = True
        if self.tail is not None:
            s[self.tail[0], self.tail[1], 4] = True
        s[9, : self.lives, 5] = True
        return s
