"""Gen 00100: move a diver along the bottom row to collect gems while dodging homing rocks.

Rules
- The diver is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Gems appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- Rocks appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every second step, each time also stepping one column toward the diver with chance 0.5; they are gone
  when they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: a gem gives +1; a rock costs one of the diver's 3 lives.
- The episode ends when the last life is lost or after `max_steps` (250) steps.
- Each step: the diver moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the rocks.
- 2 reward: the gems.
- 4 trail: the cells objects occupied before they moved on this step.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 3 (projectile) is unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each gem collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 3
GEM_CHANCE = 0.3  # chance each step that a new gem appears
GEM_PERIOD = 3  # steps per move of a gem
ROCK_CHANCE = 0.2  # chance each step that a new rock appears
ROCK_PERIOD = 2  # steps per move of a rock
LEFT, RIGHT = 1, 3


class Gen00100Environment:
    score_cap = 35.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.gems = []  # each is [row, col, countdown]
        self.rocks = []  # each is [row, col, countdown]
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
        reward += self.touch()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.gems = [gem for gem in self.gems if self.move_gem(gem)]
        self.rocks = [rock for rock in self.rocks if self.move_rock(rock)]
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

    def move_gem(self, gem):
        """Every GEM_PERIOD steps move the gem; False once it has left the grid."""
        gem[-1] -= 1
        if gem[-1] > 0:
            return True
        gem[-1] = GEM_PERIOD
        self.trail.append((gem[0], gem[1]))
        gem[0] += 1
        return gem[0] <= BOTTOM

    def move_rock(self, rock):
        """Every ROCK_PERIOD steps move the rock; False once it has left the grid."""
        rock[-1] -= 1
        if rock[-1] > 0:
            return True
        rock[-1] = ROCK_PERIOD
        self.trail.append((rock[0], rock[1]))
        if self.random.rand() < 0.5:
            rock[1] += int(np.sign(self.player[1] - rock[1]))  # one step toward the diver
        rock[0] += 1
        return rock[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [gem for gem in self.gems if gem[:2] != self.player]
        reward += len(self.gems) - len(kept)
        self.gems = kept
        kept = [rock for rock in self.rocks if rock[:2] != self.player]
        hits = len(self.rocks) - len(kept)
        self.rocks = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < GEM_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.gems.append(cell + [GEM_PERIOD])
        if self.random.rand() < ROCK_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.rocks.append(cell + [ROCK_PERIOD])

    def is_empty(self, cell):
        objects = self.gems + self.rocks
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for rock in self.rocks:
            obs[rock[0], rock[1], 1] = True
        for gem in self.gems:
            obs[gem[0], gem[1], 2] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
