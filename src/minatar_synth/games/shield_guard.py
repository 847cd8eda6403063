"""Shield Guard: swing a shield around a central core to block projectiles flying in from the edges.

Rules
-----
The core is the 2x2 block in the middle of the 10x10 grid (rows 4-5, columns 4-5). Projectiles fly
straight at it along eight lanes: down columns 4 and 5 from the top edge, up columns 4 and 5 from the
bottom edge, right along rows 4 and 5 from the left edge and left along rows 4 and 5 from the right
edge. Along a lane, d counts cells from the shield's cell next to the core (d = 0) out to the edge of
the grid (d = 3). A projectile moves 1 cell per step (slow) or 2 cells per step (fast). New ones start
just beyond the edge (slow at d = 4, fast at d = 4 or 5), so a slow projectile is first seen at d = 3
and a fast one at d = 3 or d = 2, with no trail yet.

The shield is a 2-cell bar on one side of the core: top (row 3, columns 4-5), right (column 6, rows
4-5), bottom (row 6, columns 4-5) or left (column 3, rows 4-5). It covers both lanes of that side.
Actions up, right, down and left swing the shield toward that side: to it at once when it is the
current or a neighbouring side, and one side clockwise (on the way) when it is the opposite side,
so crossing to the far side takes two steps. A projectile that reaches or passes the shield's cell
while the shield is on its side is blocked (+1). One whose move ends exactly on the shield's cell
while the shield is elsewhere waits there one step: the shield can still block it by arriving on
the next step. A projectile that reaches the core costs one health.

Each step: the shield moves, then every projectile moves, then new projectiles may enter. New
projectiles come more often, and more of them are fast, as the episode goes on.

Channels
--------
0 player:     the two shield cells.
1 danger:     unused.
2 reward:     the core (the thing being protected).
3 projectile: the projectiles.
4 trail:      the cell each visible projectile occupied on the previous step (1 cell behind a slow
              projectile, 2 cells behind a fast one), so the gap shows speed and direction.
5 gauge:      health, one lit cell per point in row 9 from column 0 (starts at 4).

Actions: 1 left, 2 up, 3 right, 4 down swing the shield; 0 no-op and 5 fire leave it in place.
Reward: +1 per blocked projectile. The episode ends when health reaches 0 or after max_steps steps.
"""

import numpy as np

CORE_CELLS = ((4, 4), (4, 5), (5, 4), (5, 5))
TOP, RIGHT, BOTTOM, LEFT = 0, 1, 2, 3  # sides in clockwise order
ACTION_SIDE = {1: LEFT, 2: TOP, 3: RIGHT, 4: BOTTOM}
START_HEALTH = 4
EDGE = 3  # d of a lane's edge cell; new projectiles start just beyond it (d = 4 or 5)
SPAWN_START, SPAWN_GROWTH, SPAWN_MAX = 0.15, 0.0003, 0.7  # chance of a new projectile per step
FAST_START, FAST_GROWTH, FAST_MAX = 0.2, 0.0005, 0.6  # chance that a new projectile is fast


def lane_cell(side, lane, d):
    """(row, col) of the cell at distance d from the core's edge (d = 0 is the shield's cell)."""
    if side == TOP:
        return 3 - d, 4 + lane
    if side == BOTTOM:
        return 6 + d, 4 + lane
    if side == LEFT:
        return 4 + lane, 3 - d
    return 4 + lane, 6 + d


class ShieldGuardEnvironment:
    score_cap = 110.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.side = TOP
        self.health = START_HEALTH
        self.projectiles = []  # each [side, lane, d, speed]; d counts cells from the shield's cell
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0

        # Swing the shield toward the chosen side (opposite side: one step clockwise).
        target = ACTION_SIDE.get(action, self.side)
        if (target - self.side) % 4 == 2:
            self.side = (self.side + 1) % 4
        else:
            self.side = target

        # Move projectiles; a projectile crossing d = 0 on the shield's side is blocked.
        alive = []
        for p in self.projectiles:
            side, lane, d, speed = p
            new_d = d - speed
            if side == self.side and new_d <= 0:
                reward += 1.0
            elif new_d < 0:
                self.health -= 1
            else:
                p[2] = new_d
                alive.append(p)
        self.projectiles = alive

        # New projectiles enter from beyond the edge.
        spawn = min(SPAWN_MAX, SPAWN_START + SPAWN_GROWTH * self.steps)
        if self.random.rand() < spawn:
            side = self.random.randint(4)
            lane = self.random.randint(2)
            fast = self.random.rand() < min(FAST_MAX, FAST_START + FAST_GROWTH * self.steps)
            speed = 2 if fast else 1
            d = EDGE + 1 + self.random.randint(speed)  # slow: 4; fast: 4 or 5
            self.projectiles.append([side, lane, d, speed])

        self.steps += 1
        terminal = self.health <= 0 or self.steps >= self.max_steps
        return reward, terminal

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        for lane in (0, 1):
            s[lane_cell(self.side, lane, 0) + (0,)] = True
        for r, c in CORE_CELLS:
            s[r, c, 2] = True
        for side, lane, d, speed in self.projectiles:
            if d <= EDGE:
                s[lane_cell(side, lane, d) + (3,)] = True
                if d + speed <= EDGE:
                    s[lane_cell(side, lane, d + speed) + (4,)] = True
        s[9, : max(self.health, 0), 5] = True
        return s
