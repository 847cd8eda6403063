"""Gen 00405: move a diver along the bottom row to collect eggs while dodging or shooting zigzagging bats.

Rules
- The diver is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, wrapping
  round to the other side. Other actions leave it in place.
- Action 5 (fire) launches an arrow from the diver's cell when no arrow is in flight. The arrow moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid (a miss, which
  costs 1 point).
- Eggs appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- Bats appear in row 0 at a random column (chance 0.40 each step, if that cell is empty). They move one row
  down and one column sideways every step (each picks its sideways direction when it appears), bouncing off
  the side walls; they are gone when they leave the grid.
- When the diver and an object share a cell (checked after the diver moves and again after the objects move),
  the object is removed: an egg gives +1; a bat ends the episode.
- A bat removed by an arrow gives +1.
- The episode ends at the first bat touched or after `max_steps` (300) steps.
- Each step: the diver moves, the arrow moves, the objects move, new ones appear.

Channels of state()
- 0 player: the diver.
- 1 danger: the bats.
- 2 reward: the eggs.
- 3 projectile: the arrow.
Channels 4 (trail), 5 (gauge) are unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each egg collected; +1 for each bat shot; -1 for each arrow that misses (leaves the grid).
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
EGG_CHANCE = 0.4  # chance each step that a new egg appears
EGG_PERIOD = 2  # steps per move of an egg
BAT_CHANCE = 0.4  # chance each step that a new bat appears
BAT_PERIOD = 1  # steps per move of a bat
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00405Environment:
    score_cap = 72.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.eggs = []  # each is [row, col, side, countdown]
        self.bats = []  # each is [row, col, side, countdown]
        self.shot = None  # the arrow's [row, col] while in flight
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

        # The arrow flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
                reward -= 1.0  # a miss
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.eggs = [egg for egg in self.eggs if self.move_egg(egg)]
        self.bats = [bat for bat in self.bats if self.move_bat(bat)]
        reward += self.hit_by_shot()
        reward += self.touch()
        self.spawn()

        self.steps += 1
        self.terminal = self.crashed or self.steps >= self.max_steps
        return reward, self.terminal

    def move_player(self, action):
        if action == LEFT:
            self.player[1] = (self.player[1] - 1) % GRID
        elif action == RIGHT:
            self.player[1] = (self.player[1] + 1) % GRID

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

    def move_bat(self, bat):
        """Every BAT_PERIOD steps move the bat; False once it has left the grid."""
        bat[-1] -= 1
        if bat[-1] > 0:
            return True
        bat[-1] = BAT_PERIOD
        if not 0 <= bat[1] + bat[2] < GRID:
            bat[2] = -bat[2]  # bounce off the wall
        bat[1] += bat[2]
        bat[0] += 1
        return bat[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the diver's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [egg for egg in self.eggs if egg[:2] != self.player]
        reward += len(self.eggs) - len(kept)
        self.eggs = kept
        kept = [bat for bat in self.bats if bat[:2] != self.player]
        hits = len(self.bats) - len(kept)
        self.bats = kept
        self.crashed = self.crashed or hits > 0
        return reward

    def hit_by_shot(self):
        """Remove the first object on the arrow's cell, and the arrow; the reward it gives."""
        if self.shot is None:
            return 0.0
        for bat in self.bats:
            if bat[:2] == self.shot:
                self.bats.remove(bat)
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
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.eggs.append(cell + [side, EGG_PERIOD])
        if self.random.rand() < BAT_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.bats.append(cell + [side, BAT_PERIOD])

    def is_empty(self, cell):
        objects = self.eggs + self.bats
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bat in self.bats:
            obs[bat[0], bat[1], 1] = True
        for egg in self.eggs:
            obs[egg[0], egg[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        return obs
