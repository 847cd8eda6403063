"""Crossfire: survive a hail of bullets that cross the field from both sides; trails tell their direction.

Rules
- The field is 10x10. The player starts in the middle (row 5, column 4) and moves one cell up,
  down, left or right per step (it stops at the borders).
- Bullets enter at a random row from the left edge (column 0, flying right) or the right edge
  (column 9, flying left) and move one cell per step along their row until they leave the field.
  New bullets come more and more often as time goes on.
- The player moves first, then the bullets move. The player is hit, and the episode ends, if a
  bullet is in the player's cell after either of those moves (walking into a bullet, or a bullet
  flying into the player). Each bullet that leaves the field while the player is alive gives +1.
- The episode ends after MAX_STEPS steps; the gauge shows the time that is left.

Channels (state()[row, col, channel])
- 0 player: the player's cell.
- 3 projectile: the bullets.
- 4 trail: the cell each bullet was in on the previous step (just behind it), so a bullet with
  its trail on the left flies right, and one with its trail on the right flies left.
- 5 gauge: time left, as lit cells in row 0 from column 0 (10 cells at the start, 0 at the end).

Actions: 1 left, 2 up, 3 right, 4 down; 0 and 5 do nothing.
"""
import numpy as np

SIZE = 10
MAX_STEPS = 600
START_ROW, START_COL = 5, 4
START_RATE = 0.35     # expected new bullets per step at step 0 ...
RATE_GROWTH = 0.0012  # ... plus this much per step

NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
PLAYER, PROJECTILE, TRAIL, GAUGE = 0, 3, 4, 5


class CrossfireEnvironment:
    score_cap = 420.0
    max_steps = MAX_STEPS

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.row, self.col = START_ROW, START_COL
        self.bullets = []  # [row, col, direction (+1 right, -1 left), moved (has a trail)]
        self.steps = 0
        self.last_action = 0
        self.terminal = False

    def _hit(self):
        for row, col, _, _ in self.bullets:
            if row == self.row and col == self.col:
                return True
        return False

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        if action == LEFT:
            self.col = max(0, self.col - 1)
        elif action == RIGHT:
            self.col = min(SIZE - 1, self.col + 1)
        elif action == UP:
            self.row = max(0, self.row - 1)
        elif action == DOWN:
            self.row = min(SIZE - 1, self.row + 1)
        reward = 0.0
        if self._hit():
            self.terminal = True
        else:
            # bullets fly on; those leaving the field count for the player
            flying = []
            for row, col, direction, _ in self.bullets:
                col += direction
                if 0 <= col < SIZE:
                    flying.append([row, col, direction, True])
                else:
                    reward += 1.0
            # new bullets enter at the edges
            rate = START_RATE + RATE_GROWTH * self.steps
            while rate > 0:
                if rate >= 1 or self.random.rand() < rate:
                    row = int(self.random.rand() * SIZE)
                    if self.random.rand() < 0.5:
                        flying.append([row, 0, 1, False])
                    else:
                        flying.append([row, SIZE - 1, -1, False])
                rate -= 1
            self.bullets = flying
            if self._hit():
                self.terminal = True

        self.steps += 1
        if self.steps >= MAX_STEPS:
            self.terminal = True
        return reward, self.terminal

    def state(self):
        s = np.zeros((SIZE, SIZE, 6), dtype=bool)
        s[self.row, self.col, PLAYER] = True
        for row, col, direction, moved in self.bullets:
            s[row, col, PROJECTILE] = True
            if moved:
                s[row, col - direction, TRAIL] = True
        left = (SIZE * (MAX_STEPS - self.steps) + MAX_STEPS - 1) // MAX_STEPS  # ceil
        s[0, :left, GAUGE] = True
        return s
