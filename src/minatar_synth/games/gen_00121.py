"""Gen 00121: move a robot along the bottom row to collect apples while dodging or shooting falling ghosts.

Rules
- The robot is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, wrapping
  round to the other side. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the robot's cell when no bolt is in flight. The bolt moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which costs
  1 point).
- Apples appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- Ghosts appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- When the robot and an object share a cell (checked after the robot moves and again after the objects move),
  the object is removed: an apple gives +1; a ghost costs one of the robot's 4 lives.
- A ghost removed by a bolt gives +1.
- The episode ends when the last life is lost or after `max_steps` (300) steps.
- Each step: the robot moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the robot.
- 1 danger: the ghosts.
- 2 reward: the apples.
- 3 projectile: the bolt.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each apple collected; +1 for each ghost shot; -1 for each bolt that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
APPLE_CHANCE = 0.2  # chance each step that a new apple appears
APPLE_PERIOD = 3  # steps per move of an apple
GHOST_CHANCE = 0.4  # chance each step that a new ghost appears
GHOST_PERIOD = 1  # steps per move of a ghost
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00121Environment:
    score_cap = 110.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, countdown]
        self.ghosts = []  # each is [row, col, countdown]
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
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = (self.player[1] - 1) % GRID
        elif action == RIGHT:
            self.player[1] = (self.player[1] + 1) % GRID

    def move_apple(self, apple):
        """Every APPLE_PERIOD steps move the apple; False once it has left the grid."""
        apple[-1] -= 1
        if apple[-1] > 0:
            return True
        apple[-1] = APPLE_PERIOD
        self.trail.append((apple[0], apple[1]))
        apple[0] += 1
        return apple[0] <= BOTTOM

    def move_ghost(self, ghost):
        """Every GHOST_PERIOD steps move the ghost; False once it has left the grid."""
        ghost[-1] -= 1
        if ghost[-1] > 0:
            return True
        ghost[-1] = GHOST_PERIOD
        self.trail.append((ghost[0], ghost[1]))
        ghost[0] += 1
        return ghost[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the robot's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the bolt's cell, and the bolt; the reward it gives."""
        if self.shot is None:
            return 0.0
        for ghost in self.ghosts:
            if ghost[:2] == self.shot:
                self.ghosts.remove(ghost)
                self.shot = None
                return 1.0
        for apple in self.apples:
            if apple[:2] == self.shot:
                self.apples.remove(apple)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < APPLE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.apples.append(cell + [APPLE_PERIOD])
        if self.random.rand() < GHOST_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.ghosts.append(cell + [GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
