"""Gen 00146: move a robot along the bottom row to shoot falling meteors.

Rules
- The robot is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, wrapping
  round to the other side. Other actions leave it in place.
- Action 5 (fire) launches a spark from the robot's cell when no spark is in flight. The spark moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Meteors appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: a meteor ends the episode.
- A meteor removed by a spark gives +1.
- The episode ends at the first meteor touched or after `max_steps` (300) steps.
- Each step: the robot moves, the spark moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the meteors.
- 3 projectile: the spark.
- 4 trail: the cells objects occupied before they moved on this step.
Channels 2 (reward), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each meteor shot; -1 for each spark that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
METEOR_CHANCE = 0.3  # chance each step that a new meteor appears
METEOR_PERIOD = 2  # steps per move of a meteor
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00146Environment:
    score_cap = 78.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.meteors = []  # each is [row, col, countdown]
        self.shot = None  # the spark's [row, col] while in flight
        self.trail = []  # (row, col) cells left by objects that moved on the last step
        self.crashed = False
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

        # The spark flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.meteors = [meteor for meteor in self.meteors if self.move_meteor(meteor)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = (self.player[1] - 1) % GRID
        elif action == RIGHT:
            self.player[1] = (self.player[1] + 1) % GRID

    def move_meteor(self, meteor):
        """Every METEOR_PERIOD steps move the meteor; False once it has left the grid."""
        meteor[-1] -= 1
        if meteor[-1] > 0:
            return True
        meteor[-1] = METEOR_PERIOD
        self.trail.append((meteor[0], meteor[1]))
        meteor[0] += 1
        return meteor[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [meteor for meteor in self.meteors if meteor[:2] != self.player]
        hits = len(self.meteors) - len(kept)
        self.meteors = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def hit_by_shot(self):
        """Remove the first object on the spark's cell, and the spark; the reward it gives."""
        if self.shot is None:
            return 0.0
        for meteor in self.meteors:
            if meteor[:2] == self.shot:
                self.meteors.remove(meteor)
                self.shot = None
                return 1.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < METEOR_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.meteors.append(cell + [METEOR_PERIOD])

    def is_empty(self, cell):
        objects = self.meteors
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for meteor in self.meteors:
            obs[meteor[0], meteor[1], 1] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
