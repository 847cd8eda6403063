"""Pogo Jump: wind up the spring and release it at the right moment to hop over walls scrolling towards the runner.

Rules
- The runner stays in column 2. Standing on the ground it is in row 8 (row 9 is the ground itself);
  in the air it is in row 8 - height.
- Jump power: on the ground, holding action 2 (up) winds the spring by one each step, up to
  `MAX_CHARGE`, while the runner crouches in place. The first step with any other action after that
  releases the spring: the runner jumps with power p = the charge and the spring is empty again.
  A jump of power p rises one row per step for p steps, then falls one row per step: heights
  1, 2, ..., p, p - 1, ..., 1, 0. Actions do nothing in the air.
- Walls scroll in from the right, one column per step. A wall is 1 or 2 columns wide and 1 or 2
  cells high, standing on the ground (height 1: row 8; height 2: rows 7 and 8). Walls come alone or
  in close pairs of two 1-wide walls one empty column apart (clear them with one big jump); the gap
  to the next wall or pair is random.
- Each step the runner moves first, then the walls move; if the runner then shares a cell with a
  wall, the episode ends. Every wall that has fully passed the runner gives +1 reward.
- The episode also ends after `max_steps` steps.

Channels of state()
- 0 player: the runner.
- 1 danger: the wall cells.
- 4 trail: the runner's row on the previous step, drawn in column 1 (a streak behind the runner; it
  shows whether the runner is rising or falling).
- 5 gauge: the spring charge, one lit cell per unit in row 0 from column 0.
Channels 2 (reward) and 3 (projectile) are unused.
"""

import numpy as np

GRID = 10
RUNNER_COL = 2
GROUND_ROW = 8  # the runner's row when standing
MAX_CHARGE = 4
MIN_GAP, MAX_GAP = 9, 13  # empty columns between two walls (or pairs of walls)
PAIR_PROB = 0.3  # chance that a wall has a second wall right behind it
PAIR_GAP = 1  # empty columns inside a pair
UP = 2


class PogoJumpEnvironment:
    score_cap = 97.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.height = 0
        self.prev_height = 0
        self.arc = []  # heights still to come in the current jump
        self.charge = 0
        self.walls = []  # each wall is [left column, width, height]
        self.pair = False  # the last wall was the first of a pair
        self.until_wall = 6  # columns until the next wall enters
        self.steps = 0
        self.last_action = 0
        self.terminal = False

    def _spawn(self):
        # Called once per step after the walls scroll: maybe a new wall enters at column 9.
        self.until_wall -= 1
        if self.until_wall > 0:
            return
        height = 1 if self.random.rand() < 0.5 else 2
        if self.pair:
            width, gap = 1, None  # second wall of a pair
            self.pair = False
        elif self.random.rand() < PAIR_PROB:
            width, gap = 1, PAIR_GAP  # first wall of a pair: another one follows right behind
            self.pair = True
        else:
            width, gap = (1 if self.random.rand() < 0.6 else 2), None
        if gap is None:
            gap = MIN_GAP + int(self.random.rand() * (MAX_GAP - MIN_GAP + 1))
        self.walls.append([GRID - 1, width, height])
        self.until_wall = width + gap

    def _hit(self):
        row = GROUND_ROW - self.height
        for col, width, height in self.walls:
            if col <= RUNNER_COL < col + width and row > GROUND_ROW - height:
                return True
        return False

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        # Runner: follow the jump arc, or charge / jump on the ground.
        self.prev_height = self.height
        if self.arc:
            self.height = self.arc.pop(0)
        elif action == UP:
            self.charge = min(self.charge + 1, MAX_CHARGE)
        elif self.charge > 0:
            power = self.charge
            self.charge = 0
            self.arc = list(range(2, power + 1)) + list(range(power - 1, -1, -1))
            self.height = 1

        # Walls scroll; count the ones that have passed the runner.
        reward = 0.0
        moving = []
        for wall in self.walls:
            wall[0] -= 1
            if wall[0] + wall[1] == RUNNER_COL:  # its last column just left the runner's column
                reward += 1.0
            if wall[0] + wall[1] > 0:
                moving.append(wall)
        self.walls = moving
        self._spawn()

        self.steps += 1
        crashed = self._hit()
        if crashed:
            reward = 0.0
        self.terminal = crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[GROUND_ROW - self.height, RUNNER_COL, 0] = True
        obs[GROUND_ROW - self.prev_height, RUNNER_COL - 1, 4] = True
        for col, width, height in self.walls:
            for c in range(max(col, 0), min(col + width, GRID)):
                obs[GROUND_ROW - height + 1 : GROUND_ROW + 1, c, 1] = True
        obs[0, : self.charge, 5] = True
        return obs
