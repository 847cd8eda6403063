"""Gen 00429: move a cart along the bottom row to shoot falling ghosts.

Rules
- The cart is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches a dart from the cart's cell when no dart is in flight. The dart moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which costs
  1 point).
- Ghosts appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a ghost ends the episode.
- A ghost removed by a dart gives +1.
- The episode ends at the first ghost touched or after `max_steps` (300) steps.
- Each step: the cart moves, the dart moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the ghosts.
- 3 projectile: the dart.
- 4 trail: the cells objects occupied before they moved on this step.
Channels 2 (reward), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each ghost shot; -1 for each dart that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
GHOST_CHANCE = 0.4  # chance each step that a new ghost appears
GHOST_PERIOD = 1  # steps per move of a ghost
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00429Environment:
    score_cap = 65.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.ghosts = []  # each is [row, col, countdown]
        self.shot = None  # the dart's [row, col] while in flight
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

        # The dart flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.ghosts = [ghost for ghost in self.ghosts if self.move_ghost(ghost)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = max(0, self.player[1] - 1)
        elif action == RIGHT:
            self.player[1] = min(BOTTOM, self.player[1] + 1)

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
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [ghost for ghost in self.ghosts if ghost[:2] != self.player]
        hits = len(self.ghosts) - len(kept)
        self.ghosts = kept
        self.crashed = self.crashed or hits > 0
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
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < GHOST_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.ghosts.append(cell + [GHOST_PERIOD])

    def is_empty(self, cell):
        objects = self.ghosts
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for ghost in self.ghosts:
            obs[ghost[0], ghost[1], 1] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
