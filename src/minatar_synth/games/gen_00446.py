"""Gen 00446: move a cart around the grid to collect coins while dodging zigzagging bombs.

Rules
- The cart is one cell that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row
  0). Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row, stopping at row 1 and
  row 9 and at the side edges. Other actions leave it in place.
- Action 5 (fire) launches a dart from the cart's cell when no dart is in flight. The dart moves one cell up
  every step, removes the first object it meets and vanishes with it, or leaves the grid.
- Coins appear at the left or right edge in a random row (chance 0.30 each step, if that cell is empty) and
  cross the grid one column every second step; they are gone when they leave it.
- Bombs appear in row 0 at a random column (chance 0.30 each step, if that cell is empty). They move one row
  down and one column sideways every second step (each picks its sideways direction when it appears), bouncing
  off the side walls; they are gone when they leave the grid.
- When the cart and an object share a cell (checked after the cart moves and again after the objects move),
  the object is removed: a coin gives +1; a bomb costs 1 point (-1 reward).
- The episode ends after `max_steps` (300) steps.
- Each step: the cart moves, the dart moves, the objects move, new ones appear.

Channels of state()
- 0 player: the cart.
- 1 danger: the bombs.
- 2 reward: the coins.
- 3 projectile: the dart.
- 4 trail: the cells objects occupied before they moved on this step.
Channel 5 (gauge) is unused.

Actions
- 0 no-op, 1 left, 2 up, 3 right, 4 down, 5 fire.

Reward
- +1 for each coin collected; -1 for each bomb touched.
"""

import numpy as np

GRID = 10
BOTTOM = GRID - 1
TOP = 1  # the highest row the player may enter: objects appear in row 0
COIN_CHANCE = 0.3  # chance each step that a new coin appears
COIN_PERIOD = 2  # steps per move of a coin
BOMB_CHANCE = 0.3  # chance each step that a new bomb appears
BOMB_PERIOD = 2  # steps per move of a bomb
LEFT, UP, RIGHT, DOWN, FIRE = 1, 2, 3, 4, 5


class Gen00446Environment:
    score_cap = 71.0
    max_steps = 300

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.player = [GRID // 2, GRID // 2]  # [row, col]
        self.coins = []  # each is [row, col, side, countdown]
        self.bombs = []  # each is [row, col, side, countdown]
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
            self.shot[0] -= 1
            if self.shot[0] < 0:
                self.shot = None
        reward += self.hit_by_shot()

        # Move the objects, then resolve what they reached.
        self.trail = []
        self.coins = [coin for coin in self.coins if self.move_coin(coin)]
        self.bombs = [bomb for bomb in self.bombs if self.move_bomb(bomb)]
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

    def move_coin(self, coin):
        """Every COIN_PERIOD steps move the coin; False once it has left the grid."""
        coin[-1] -= 1
        if coin[-1] > 0:
            return True
        coin[-1] = COIN_PERIOD
        self.trail.append((coin[0], coin[1]))
        coin[1] += coin[2]
        return 0 <= coin[1] < GRID

    def move_bomb(self, bomb):
        """Every BOMB_PERIOD steps move the bomb; False once it has left the grid."""
        bomb[-1] -= 1
        if bomb[-1] > 0:
            return True
        bomb[-1] = BOMB_PERIOD
        self.trail.append((bomb[0], bomb[1]))
        if not 0 <= bomb[1] + bomb[2] < GRID:
            bomb[2] = -bomb[2]  # bounce off the wall
        bomb[1] += bomb[2]
        bomb[0] += 1
        return bomb[0] <= BOTTOM

    def touch(self):
        """Remove the objects on the cart's cell and resolve them; the reward they give."""
        reward = 0.0
        kept = [coin for coin in self.coins if coin[:2] != self.player]
        reward += len(self.coins) - len(kept)
        self.coins = kept
        kept = [bomb for bomb in self.bombs if bomb[:2] != self.player]
        hits = len(self.bombs) - len(kept)
        self.bombs = kept
        reward -= hits
        return reward

    def hit_by_shot(self):
        """Remove the first object on the dart's cell, and the dart; the reward it gives."""
        if self.shot is None:
            return 0.0
        for bomb in self.bombs:
            if bomb[:2] == self.shot:
                self.bombs.remove(bomb)
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
            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right
            cell = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]
            if self.is_empty(cell):
                self.coins.append(cell + [side, COIN_PERIOD])
        if self.random.rand() < BOMB_CHANCE:
            cell = [0, self.random.randint(GRID)]
            side = 1 if self.random.rand() < 0.5 else -1
            if self.is_empty(cell):
                self.bombs.append(cell + [side, BOMB_PERIOD])

    def is_empty(self, cell):
        objects = self.coins + self.bombs
        return cell != self.player and all(obj[:2] != cell for obj in objects)

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        obs[self.player[0], self.player[1], 0] = True
        for bomb in self.bombs:
            obs[bomb[0], bomb[1], 1] = True
        for coin in self.coins:
            obs[coin[0], coin[1], 2] = True
        if self.shot is not None:
            obs[self.shot[0], self.shot[1], 3] = True
        for row, col in self.trail:
            obs[row, col, 4] = True
        return obs
