"""Gen 00127: move a knight along the bottom row to collect apples while dodging zigzagging mines.

Rules
- The knight is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column,
  stopping at the edges. Other actions leave it in place.
- Action 5 (fire) launches a harpoon from the knight's cell when no harpoon is in flight. The harpoon moves
  one cell up every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Apples appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down and one column sideways every third step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Mines appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: an apple gives +1; a mine costs one of the knight's 2 lives.
- The episode ends when the last life is lost or after `max_steps` (200) steps.
- Each step: the knight moves, the harpoon moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the mines.
- 2 reward: the apples.
- 3 projectile: the harpoon.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each apple collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 2
APPLE_CHANCE = 0.2  # chance each step that a new apple appears
APPLE_PERIOD = 3  # steps per move of an apple
MINE_CHANCE = 0.2  # chance each step that a new mine appears
MINE_PERIOD = 1  # steps per move of a mine
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00127Environment:
    score_cap = 35.0
    max_steps = 200

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.apples = []  # each is [row, col, side, countdown]
        self.mines = []  # each is [row, col, side, countdown]
        self.shot = None  # the harpoon's [row, col] while in flight
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

        # The harpoon flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.apples = [apple for apple in self.apples if self.move_apple(apple)]
        self.mines = [mine for mine in self.mines if self.move_mine(mine)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.lives <= 0 or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

    def move_apple(self, apple):
        """Every APPLE_PERIOD steps move the apple; False once it has left the grid."""
        apple[-1] -= 1
        if apple[-1] > 0:
            return True
        apple[-1] = APPLE_PERIOD
        self.trail.append((apple[0], apple[1]))
        if not 0 <= apple[1] + apple[2] < GRID:
            apple[2] = -apple[2]  # bounce off the wall
        apple[1] += apple[2]
        apple[0] += 1
        return apple[0] <= BOTTOM

    def move_mine(self, mine):
        """Every MINE_PERIOD steps move the mine; False once it has left the grid."""
        mine[-1] -= 1
        if mine[-1] > 0:
            return True
        mine[-1] = MINE_PERIOD
        self.trail.append((mine[0], mine[1]))
        if not 0 <= mine[1] + mine[2] < GRID:
            mine[2] = -mine[2]  # bounce off the wall
        mine[1] += mine[2]
        mine[0] += 1
        return mine[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [apple for apple in self.apples if apple[:2] != self.player]
        reward += len(self.apples) - len(kept)
        self.apples = kept
        kept = [mine for mine in self.mines if mine[:2] != self.player]
        hits = len(self.mines) - len(kept)
        self.mines = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the harpoon's cell, and the harpoon; the reward it gives."""
        if self.shot is None:
            return 0.0
        for mine in self.mines:
            if mine[:2] == self.shot:
                self.mines.remove(mine)
                self.shot = None
                return 0.0
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
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.apples.append(cell + [side, APPLE_PERIOD])
        if self.random.rand() < MINE_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.mines.append(cell + [side, MINE_PERIOD])

    def is_empty(self, cell):
        objects = self.apples + self.mines
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for mine in self.mines:
            obs[mine[0], mine[1], 1] = True
        for apple in self.apples:
            obs[apple[0], apple[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
