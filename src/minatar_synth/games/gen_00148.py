"""Gen 00148: move a drone around the grid to collect apples while dodging drifting bombs.

Rules
- The drone is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Apples appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Bombs appear at the left or right edge in a random row (chance 0.20 each step, if that cell is empty) and
  cross the grid one column every second step; they are gone when they leave it.
- When the drone and an object share a cell (checked after the drone moves and again after the objects move),
  the object is removed: an apple gives +1; a bomb costs 1 point (-1 reward).
- The episode ends after `max_steps` (400) steps.
- Each step: the drone moves, the objects move, new ones appear.

Channels of state()
- 0 player: the drone.
- 1 danger: the bombs.
- 2 reward: the apples.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channel 3 (projectile) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down; 5 does nothing.

Reward
- +1 for each apple collected; -1 for each bomb touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
APPLE_CHANCE = 0.3  # chance each step that a new apple appears
APPLE_PERIOD = 2  # steps per move of an apple
BOMB_CHANCE = 0.2  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
LEFT, UP, RIGHT, DOWN = 1, 2, 3, 4


class Gen00148Environment:
    score_cap = 160.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, countdown]
        self.bombs = []  # each is [row, col, side, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
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

    def move_apple(self, apple):
        """Every APPLE_PERIOD steps move the apple; False once it has left the grid."""
        apple[-1] -= 1
        if apple[-1] > 0:
            return True
        apple[-1] = APPLE_PERIOD
        self.trail.append((apple[0], apple[1]))
        apple[0] += 1
        return apple[0] <= BOTTOM

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        self.trail.append((bomb[0], bomb[1]))
        bomb[1] += bomb[2]
        return 0 <= bomb[1] < GRID

    def touch(self):
        """Remove the objects on the drone's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        reward -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < APPLE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.apples.append(cell + [APPLE_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.bombs.append(cell + [side, BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
