"""Gen 00413: move a robot around the grid to shoot zigzagging wasps.

Rules
- The robot is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and wrapping round sideways. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the robot's cell when no bolt is in flight. The bolt moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which costs
  1 point).
- Wasps appear in row 0 at a random column (chance 0.50 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: a wasp costs one of the robot's 4 lives.
- A wasp removed by a bolt gives +1.
- The episode ends when the last life is lost or after `max_steps` (300) steps.
- Each step: the robot moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the wasps.
- 3 projectile: the bolt.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 2 (reward) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each wasp shot; -1 for each bolt that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
START_LIVES = 4
WASP_CHANCE = 0.5  # chance each step that a new wasp appears
WASP_PERIOD = 1  # steps per move of a wasp
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00413Environment:
    score_cap = 160.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.wasps = []  # each is [row, col, side, countdown]
        self.shot = None  # the bolt's [row, col] while in flight
        self.trail = []  # (row, col) cells left by objects that moved on the last step
        self.lives = START_LIVES
        self.steps = 0
        self.last_action = 0
        self.terminal = False

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0
        if self.terminal:
            return reward, True

        self.move_player(action)
        if action == FIRE and self.shot is None:
            self.shot = list(self.player)
        reward += self.touch()

        # The bolt flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = (self.player[1] - 1) % GRID
        elif action == UP:
            self.player[0] = max(TOP, self.player[0] - 1)
        elif action == RIGHT:
            self.player[1] = (self.player[1] + 1) % GRID
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        self.trail.append((wasp[0], wasp[1]))
        if not 0 <= wasp[1] + wasp[2] < GRID:
            wasp[2] = -wasp[2]  # bounce off the wall
        wasp[1] += wasp[2]
        wasp[0] += 1
        return wasp[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the bolt's cell, and the bolt; the reward it gives."""
        if self.shot is None:
            return 0.0
        for wasp in self.wasps:
            if wasp[:2] == self.shot:
                self.wasps.remove(wasp)
                self.shot = None
                return 1.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < WASP_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.wasps.append(cell + [side, WASP_PERIOD])

    def is_empty(self, cell):
        objects = self.wasps
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for wasp in self.wasps:
            obs[wasp[0], wasp[1], 1] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
