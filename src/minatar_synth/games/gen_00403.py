"""Gen 00403: move a rover along the bottom row to collect eggs while dodging homing bombs.

Rules
- The rover is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Eggs appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down and one column sideways every third step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Bombs appear in row 0 at a random column (chance 0.15 each step, if that cell is empty). They move one row
  down every second step, each time also stepping one column toward the rover with chance 0.5; they are gone
  when they leave the grid.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: an egg gives +1; a bomb costs one of the rover's 4 lives.
- The episode ends when the last life is lost or after `max_steps` (250) steps.
- Each step: the rover moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the bombs.
- 2 reward: the eggs.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each egg collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
EGG_CHANCE = 0.2  # chance each step that a new egg appears
EGG_PERIOD = 3  # steps per move of an egg
BOMB_CHANCE = 0.15  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
LEFT, RIGHT = 1, 3


class Gen00403Environment:
    score_cap = 37.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.eggs = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, countdown]
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
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
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

    def move_egg(self, egg):
        """Every EGG_PERIOD steps move the egg; False once it has left the grid."""
        egg[-1] -= 1
        if egg[-1] > 0:
            return True
        egg[-1] = EGG_PERIOD
        if not 0 <= egg[1] + egg[2] < GRID:
            egg[2] = -egg[2]  # bounce off the wall
        egg[1] += egg[2]
        egg[0] += 1
        return egg[0] <= BOTTOM

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        if self.random.rand() < 0.5:
            bomb[1] += int(np.sign(self.player[1] - bomb[1]))  # one step toward the rover
        bomb[0] += 1
        return bomb[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < EGG_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.eggs.append(cell + [side, EGG_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.bombs.append(cell + [BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
