"""Gen 00442: move a knight up and down the left column to collect eggs while dodging or shooting falling ghosts.

Rules
- The knight is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a dart from the knight's cell when no dart is in flight. The dart moves one cell to
  the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Eggs appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one column
  left every second step; they are gone when they leave the grid.
- Ghosts appear in column 9 at a random row (chance 0.40 each step, if that cell is empty). They move one
  column left every second step; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: an egg gives +1; a ghost costs 1 point (-1 reward).
- A ghost removed by a dart gives +1.
- The episode ends after `max_steps` (400) steps.
- Each step: the knight moves, the dart moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the ghosts.
- 2 reward: the eggs.
- 3 projectile: the dart.
- 4 trail: the cells objects occupied before they moved on this step.
Channel 5 (gauge) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each egg collected; +1 for each ghost shot; -1 for each dart that misses (leaves the grid); -1 for
  each ghost touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
EGG_CHANCE = 0.3  # chance each step that a new egg appears
EGG_PERIOD = 2  # steps per move of an egg
GHOST_CHANCE = 0.4  # chance each step that a new ghost appears
GHOST_PERIOD = 2  # steps per move of a ghost
UP, DOWN, FIRE = 2, 4, 5


class Gen00442Environment:
    score_cap = 220.0
    max_steps = 400

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.eggs = []  # each is [row, col, countdown]
        self.ghosts = []  # each is [row, col, countdown]
        self.shot = None  # the dart's [row, col] while in flight
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

        # The dart flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
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

    def move_ghost(self, ghost):
        """Every GHOST_PERIOD steps move the ghost; False once it has left the grid."""
        ghost[-1] -= 1
        if ghost[-1] > 0:
            return True
        ghost[-1] = GHOST_PERIOD
        self.trail.append((ghost[0], ghost[1]))
        ghost[1] -= 1
        return ghost[1] >= 0

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the dart's cell, and the dart; the reward it gives."""
        if self.shot is None:
            return 0.0
        for ghost in self.ghosts:
            if ghost[:2] == self.shot:
                self.ghosts.remove(ghost)
                self.shot = None
                return 1.0
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
        if self.random.rand() < GHOST_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.ghosts.append(cell + [GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
