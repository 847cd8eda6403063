"""Gen 00158: move a rover along the bottom row to collect coins while dodging falling meteors.

Rules
- The rover is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column, stopping
  at the edges. Other actions leave it in place.
- Action 5 (fire) launches an arrow from the rover's cell when no arrow is in flight. The arrow moves one cell
  up every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Coins appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- Meteors appear in row 0 at a random column (chance 0.15 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- When the rover and an object share a cell (checked after the rover moves and again after the objects move),
  the object is removed: a coin gives +1; a meteor costs one of the rover's 4 lives.
- The episode ends when the last life is lost or after `max_steps` (500) steps.
- Each step: the rover moves, the arrow moves, the objects move, new ones appear.

Channels of state()
- 0 player: the rover.
- 1 danger: the meteors.
- 2 reward: the coins.
- 3 projectile: the arrow.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channel 4 (trail) is unused.

Actions
- 0 no-op, 1 left, 3 right, 5 fire; 2 and 4 do nothing.

Reward
- +1 for each coin collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
COIN_CHANCE = 0.2  # chance each step that a new coin appears
COIN_PERIOD = 1  # steps per move of a coin
METEOR_CHANCE = 0.15  # chance each step that a new meteor appears
METEOR_PERIOD = 1  # steps per move of a meteor
LEFT, RIGHT, FIRE = 1, 3, 5


class Gen00158Environment:
    score_cap = 130.0
    max_steps = 500

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.coins = []  # each is [row, col, countdown]
        self.meteors = []  # each is [row, col, countdown]
        self.shot = None  # the arrow's [row, col] while in flight
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

        # The arrow flies on; it may meet an object before or after the objects move.
        if self.shot is not None:
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.coins = [coin for coin in self.coins if self.move_coin(coin)]
        self.meteors = [meteor for meteor in self.meteors if self.move_meteor(meteor)]
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

    def move_coin(self, coin):
        """Every COIN_PERIOD steps move the coin; False once it has left the grid."""
        coin[-1] -= 1
        if coin[-1] > 0:
            return True
        coin[-1] = COIN_PERIOD
        coin[0] += 1
        return coin[0] <= BOTTOM

    def move_meteor(self, meteor):
        """Every METEOR_PERIOD steps move the meteor; False once it has left the grid."""
        meteor[-1] -= 1
        if meteor[-1] > 0:
            return True
        meteor[-1] = METEOR_PERIOD
        meteor[0] += 1
        return meteor[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the rover's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [coin for coin in self.coins if coin[:2] != self.player]
        reward += len(self.coins) - len(kept)
        self.coins = kept
        kept = [meteor for meteor in self.meteors if meteor[:2] != self.player]
        hits = len(self.meteors) - len(kept)
        self.meteors = kept
        self.lives -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the arrow's cell, and the arrow; the reward it gives."""
        if self.shot is None:
            return 0.0
        for meteor in self.meteors:
            if meteor[:2] == self.shot:
                self.meteors.remove(meteor)
                self.shot = None
                return 0.0
        for coin in self.coins:
            if coin[:2] == self.shot:
                self.coins.remove(coin)
                self.shot = None
                return 0.0
        return 0.0

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < COIN_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.coins.append(cell + [COIN_PERIOD])
        if self.random.rand() < METEOR_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.meteors.append(cell + [METEOR_PERIOD])

    def is_empty(self, cell):
        objects = self.coins + self.meteors
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for meteor in self.meteors:
            obs[meteor[0], meteor[1], 1] = True
        for coin in self.coins:
            obs[coin[0], coin[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
