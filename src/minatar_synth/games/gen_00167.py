"""Gen 00167: move a drone along the bottom row to shoot falling bombs.

Rules
- The drone is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches an arrow from the drone's cell when no arrow is in flight. The arrow moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Bombs appear in row 0 at a random column (chance 0.50 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- When the drone and an object share a cell (checked after the drone moves and again after the objects move),
  the object is removed: a bomb costs 1 point (-1 reward).
- A bomb removed by an arrow gives +1.
- The episode ends after `max_steps` (200) steps.
- Each step: the drone moves, the arrow moves, the objects move, new ones appear.

Channels of state()
- 0 player: the drone.
- 1 danger: the bombs.
- 3 projectile: the arrow.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.
Channels 2 (reward), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each bomb shot; -1 for each arrow that misses (leaves the grid); -1 for each bomb touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
BOMB_CHANCE = 0.5  # chance each step that a new bomb appears
BOMB_PERIOD = 3  # steps per move of a bomb
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00167Environment:
    score_cap = 87.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.bombs = []  # each is [row, col, countdown]
        self.shot = None  # the arrow's [row, col] while in flight
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

        # The arrow flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        bomb[0] += 1
        return bomb[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the drone's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the arrow's cell, and the arrow; the reward it gives."""
        if self.shot is None:
            return 0.0
        for bomb in self.bombs:
            if bomb[:2] == self.shot:
                self.bombs.remove(bomb)
                self.shot = None
                return 1.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < BOMB_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.bombs.append(cell + [BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
