"""Gen 00424: move a diver around the grid to collect pearls while dodging zigzagging ghosts.

Rules
- The diver is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Action 5 (fire) launches a harpoon from the diver's cell when no harpoon is in flight. The harpoon moves one
  cell up every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Pearls appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every second step; they are gone when they leave the grid.
- Ghosts appear in row 0 at a random column (chance 0.15 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: a pearl gives +1; a ghost costs 1 point (-1 reward).
- The episode ends after `max_steps` (400) steps.
- Each step: the diver moves, the harpoon moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the ghosts.
- 2 reward: the pearls.
- 3 projectile: the harpoon.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each pearl collected; -1 for each ghost touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
PEARL_CHANCE = 0.4  # chance each step that a new pearl appears
PEARL_PERIOD = 2  # steps per move of a pearl
GHOST_CHANCE = 0.15  # chance each step that a new ghost appears
GHOST_PERIOD = 2  # steps per move of a ghost
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00424Environment:
    score_cap = 220.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.pearls = []  # each is [row, col, countdown]
        self.ghosts = []  # each is [row, col, side, countdown]
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
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.pearls = [pearl for pearl in self.pearls if self.move_pearl(pearl)]
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
        reward += self.hit_by_shot()
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

    def move_pearl(self, pearl):
        """Every PEARL_PERIOD steps move the pearl; False once it has left the grid."""
        pearl[-1] -= 1
        if pearl[-1] > 0:
            return True
        pearl[-1] = PEARL_PERIOD
        self.trail.append((pearl[0], pearl[1]))
        pearl[0] += 1
        return pearl[0] <= BOTTOM

    def move_ghost(self, ghost):
        """Every GHOST_PERIOD steps move the ghost; False once it has left the grid."""
        ghost[-1] -= 1
        if ghost[-1] > 0:
            return True
        ghost[-1] = GHOST_PERIOD
        self.trail.append((ghost[0], ghost[1]))
        if not 0 <= ghost[1] + ghost[2] < GRID:
            ghost[2] = -ghost[2]  # bounce off the wall
        ghost[1] += ghost[2]
        ghost[0] += 1
        return ghost[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [pearl for pearl in self.pearls if pearl[:2] != self.player]
        reward += len(self.pearls) - len(kept)
        self.pearls = kept
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the harpoon's cell, and the harpoon; the reward it gives."""
        if self.shot is None:
            return 0.0
        for ghost in self.ghosts:
            if ghost[:2] == self.shot:
                self.ghosts.remove(ghost)
                self.shot = None
                return 0.0
        for pearl in self.pearls:
            if pearl[:2] == self.shot:
                self.pearls.remove(pearl)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < PEARL_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.pearls.append(cell + [PEARL_PERIOD])
        if self.random.rand() < GHOST_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.ghosts.append(cell + [side, GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.pearls + self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        for pearl in self.pearls:
            obs[pearl[0], pearl[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up
        obs[BOTTOM, :time_left, 5] = True
        return obs
