"""Gen 00447: move a robot around the grid to collect eggs while dodging homing wasps.

Rules
- The robot is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Eggs appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Wasps appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step, each time also stepping one column toward the robot with chance 0.5; they are gone
  when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: an egg gives +1; a wasp costs 1 point (-1 reward).
- The episode ends after `max_steps` (500) steps.
- Each step: the robot moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the wasps.
- 2 reward: the eggs.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down; 5 does nothing.

Reward
- +1 for each egg collected; -1 for each wasp touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
EGG_CHANCE = 0.2  # chance each step that a new egg appears
EGG_PERIOD = 2  # steps per move of an egg
WASP_CHANCE = 0.3  # chance each step that a new wasp appears
WASP_PERIOD = 2  # steps per move of a wasp
LEFT, UP, RIGHT, DOWN = 1, 2, 3, 4


class Gen00447Environment:
    score_cap = 41.0
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.eggs = []  # each is [row, col, countdown]
        self.wasps = []  # each is [row, col, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.wasps = [wasp for wasp in self.wasps if self.move_wasp(wasp)]
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == UP:
            self.player[0] = max(TOP, self.player[0] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_egg(self, egg):
        """Every EGG_PERIOD steps move the egg; False once it has left the grid."""
        egg[-1] -= 1
        if egg[-1] > 0:
            return True
        egg[-1] = EGG_PERIOD
        egg[0] += 1
        return egg[0] <= BOTTOM

    def move_wasp(self, wasp):
        """Every WASP_PERIOD steps move the wasp; False once it has left the grid."""
        wasp[-1] -= 1
        if wasp[-1] > 0:
            return True
        wasp[-1] = WASP_PERIOD
        if self.random.rand() < 0.5:
            wasp[1] += int(np.sign(self.player[1] - wasp[1]))  # one step toward the robot
        wasp[0] += 1
        return wasp[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [wasp for wasp in self.wasps if wasp[:2] != self.player]
        hits = len(self.wasps) - len(kept)
        self.wasps = kept
        reward -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < EGG_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.eggs.append(cell + [EGG_PERIOD])
        if self.random.rand() < WASP_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.wasps.append(cell + [WASP_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.wasps
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for wasp in self.wasps:
            obs[wasp[0], wasp[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
