"""Gen 00428: move a frog up and down the left column to collect gems while dodging or shooting falling ghosts.

Rules
- The frog is one cell in the left column (column 0). Actions 2 (up) and 4 (down) move it one row, stopping at
  the edges. Other actions leave it in place.
- Action 5 (fire) launches a bolt from the frog's cell when no bolt is in flight. The bolt moves one cell to
  the right every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss,
  which costs 1 point).
- Gems appear in column 9 at a random row (chance 0.20 each step, if that cell is empty). They move one column
  left and one row sideways every third step (each picks its sideways direction when it appears), bouncing off
  the top and bottom walls; they are gone when they leave the grid.
- Ghosts appear in column 9 at a random row (chance 0.30 each step, if that cell is empty). They move one
  column left every step; they are gone when they leave the grid.
- When the frog and an object share a cell (checked after the frog moves and again after the objects move),
  the object is removed: a gem gives +1; a ghost ends the episode.
- A ghost removed by a bolt gives +1.
- The episode ends at the first ghost touched or after `max_steps` (300) steps.
- Each step: the frog moves, the bolt moves, the objects move, new ones appear.

Channels of state()
- 0 player: the frog.
- 1 danger: the ghosts.
- 2 reward: the gems.
- 3 projectile: the bolt.
- 4 trail: the cells objects occupied before they moved on this step.
Channel 5 (gauge) is unused.

Actions
- 0 no-op, 2 up, 4 down, 5 fire; 1 and 3 do nothing.

Reward
- +1 for each gem collected; +1 for each ghost shot; -1 for each bolt that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
GEM_CHANCE = 0.2  # chance each step that a new gem appears
GEM_PERIOD = 3  # steps per move of a gem
GHOST_CHANCE = 0.3  # chance each step that a new ghost appears
GHOST_PERIOD = 1  # steps per move of a ghost
UP, DOWN, FIRE = 2, 4, 5


class Gen00428Environment:
    score_cap = 76.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, 0]  # [row, col]
        self.gems = []  # each is [row, col, side, countdown]
        self.ghosts = []  # each is [row, col, countdown]
        self.shot = None  # the bolt's [row, col] while in flight
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

        # The bolt flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[1] += 1
            if self.shot[1] > BOTTOM:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.gems = [gem for gem in self.gems if self.move_gem(gem)]
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == UP:
            self.player[0] = max(0, self.player[0] - 1)
        elif action == DOWN:
            self.player[0] = min(BOTTOM, self.player[0] + 1)

    def move_gem(self, gem):
        """Every GEM_PERIOD steps move the gem; False once it has left the grid."""
        gem[-1] -= 1
        if gem[-1] > 0:
            return True
        gem[-1] = GEM_PERIOD
        self.trail.append((gem[0], gem[1]))
        if not 0 <= gem[0] + gem[2] < GRID:
            gem[2] = -gem[2]  # bounce off the wall
        gem[0] += gem[2]
        gem[1] -= 1
        return gem[1] >= 0

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
        """Remove the objects on the frog's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [gem for gem in self.gems if gem[:2] != self.player]
        reward += len(self.gems) - len(kept)
        self.gems = kept
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        self.crashed = self.crashed or hits > 0
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
        for gem in self.gems:
            if gem[:2] == self.shot:
                self.gems.remove(gem)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < GEM_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.gems.append(cell + [side, GEM_PERIOD])
        if self.random.rand() < GHOST_CHANCE:
            cell = [self.random.randint(GRID), BOTTOM]
            if self.is_empty(cell):
                self.ghosts.append(cell + [GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.gems + self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        for gem in self.gems:
            obs[gem[0], gem[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
