"""Gen 00150: move a robot up and down the left column to collect eggs while dodging homing meteors.

Rules
- The robot is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a harpoon from the robot's cell when no harpoon is in flight. The harpoon moves one
  cell to the right every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Eggs appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one column
  left every second step; they are gone when they leave the grid.
- Meteors appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one
  column left every third step, each time also stepping one row toward the robot with chance 0.5; they are
  gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: an egg gives +1; a meteor costs 1 point (-1 reward).
- The episode ends after `max_steps` (250) steps.
- Each step: the robot moves, the harpoon moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the meteors.
- 2 reward: the eggs.
- 3 projectile: the harpoon.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each egg collected; -1 for each meteor touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
EGG_CHANCE = 0.3  # chance each step that a new egg appears
EGG_PERIOD = 2  # steps per move of an egg
METEOR_CHANCE = 0.2  # chance each step that a new meteor appears
METEOR_PERIOD = 3  # steps per move of a meteor
UP, DOWN, FIRE = 2, 4, 5


class Gen00150Environment:
    score_cap = 72.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.eggs = []  # each is [row, col, countdown]
        self.meteors = []  # each is [row, col, countdown]
        self.shot = None  # the harpoon's [row, col] while in flight
        self.trail = []  # (row, col) cells left by objects that moved on the last step
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

        # The harpoon flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.meteors = [meteor for meteor in self.meteors if self.move_meteor(meteor)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_egg(self, egg):
        """Every EGG_PERIOD steps move the egg; False once it has left the grid."""
        egg[-1] -= 1
        if egg[-1] > 0:
            return True
        egg[-1] = EGG_PERIOD
        self.trail.append((egg[0], egg[1]))
        egg[1] -= 1
        return egg[1] >= 0

    def move_meteor(self, meteor):
        """Every METEOR_PERIOD steps move the meteor; False once it has left the grid."""
        meteor[-1] -= 1
        if meteor[-1] > 0:
            return True
        meteor[-1] = METEOR_PERIOD
        self.trail.append((meteor[0], meteor[1]))
        if self.random.rand() < 0.5:
            meteor[0] += int(np.sign(self.player[0] - meteor[0]))  # one step toward the robot
        meteor[1] -= 1
        return meteor[1] >= 0

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [meteor for meteor in self.meteors if meteor[:2] != self.player]
        hits = len(self.meteors) - len(kept)
        self.meteors = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the harpoon's cell, and the harpoon; the reward it gives."""
        if self.shot is None:
            return 0.0
        for meteor in self.meteors:
            if meteor[:2] == self.shot:
                self.meteors.remove(meteor)
                self.shot = None
                return 0.0
        for egg in self.eggs:
            if egg[:2] == self.shot:
                self.eggs.remove(egg)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < EGG_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.eggs.append(cell + [EGG_PERIOD])
        if self.random.rand() < METEOR_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.meteors.append(cell + [METEOR_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.meteors
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for meteor in self.meteors:
            obs[meteor[0], meteor[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
