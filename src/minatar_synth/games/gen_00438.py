"""Gen 00438: move a knight along the bottom row to collect coins while dodging falling bats.

Rules
- The knight is one cell on the bottom row (row 9). Actions 1 (left) and 3 (right) move it one column,
  stopping at the edges. Other actions leave it in place.
- Coins appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down every third step; they are gone when they leave the grid.
- Bats appear in row 0 at a random column (chance 0.20 each step, if that cell is empty). They move one row
  down every step; they are gone when they leave the grid.
- When the knight and an object share a cell (checked after the knight moves and again after the objects
  move), the object is removed: a coin gives +1; a bat costs one of the knight's 4 lives.
- The episode ends when the last life is lost or after `max_steps` (250) steps.
- Each step: the knight moves, the objects move, new ones appear.

Channels of state()
- 0 player: the knight.
- 1 danger: the bats.
- 2 reward: the coins.
- 5 gauge: the lives left, one lit cell each in row 9 from column 0.
Channels 3 (projectile), 4 (trail) are unused.

Actions
- 0 no-op, 1 left, 3 right; 2, 4 and 5 do nothing.

Reward
- +1 for each coin collected.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
START_LIVES = 4
COIN_CHANCE = 0.3  # chance each step that a new coin appears
COIN_PERIOD = 3  # steps per move of a coin
BAT_CHANCE = 0.2  # chance each step that a new bat appears
BAT_PERIOD = 1  # steps per move of a bat
LEFT, RIGHT = 1, 3


class Gen00438Environment:
    score_cap = 88.0
    max_steps = 250

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [BOTTOM, GRID // 2]  # [row, col]
        self.coins = []  # each is [row, col, countdown]
        self.bats = []  # each is [row, col, countdown]
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
        self.coins = [coin for coin in self.coins if self.move_coin(coin)]
        self.bats = [bat for bat in self.bats if self.move_bat(bat)]
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

    def move_bat(self, bat):
        """Every BAT_PERIOD steps move the bat; False once it has left the grid."""
        bat[-1] -= 1
        if bat[-1] > 0:
            return True
        bat[-1] = BAT_PERIOD
        bat[0] += 1
        return bat[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the knight's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [coin for coin in self.coins if coin[:2] != self.player]
        reward += len(self.coins) - len(kept)
        self.coins = kept
        kept = [bat for bat in self.bats if bat[:2] != self.player]
        hits = len(self.bats) - len(kept)
        self.bats = kept
        self.lives -= hits
        return reward

    def spawn(self):
        """Maybe add new objects, each on an empty cell."""
        if self.random.rand() < COIN_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.coins.append(cell + [COIN_PERIOD])
        if self.random.rand() < BAT_CHANCE:
            cell = [0, self.random.randint(GRID)]
            if self.is_empty(cell):
                self.bats.append(cell + [BAT_PERIOD])

    def is_empty(self, cell):
        objects = self.coins + self.bats
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bat in self.bats:
            obs[bat[0], bat[1], 1] = True
        for coin in self.coins:
            obs[coin[0], coin[1], 2] = True
        obs[BOTTOM, : max(self.lives, 0), 5] = True
        return obs
