"""Snake Trail: steer a growing snake, seen from its head on a wrap-around board, to food before it starves.

Rules
- The board is 10x10 and wraps around: leaving one edge enters the opposite edge. `ROCKS` rocks lie
  at random cells (never in the snake's starting row).
- The snake crawls: every second step its head moves one cell in its current direction. Actions
  1 (left), 2 (up), 3 (right) and 4 (down) set the direction for the next move (the latest one given
  counts); a direction straight back onto the neck is ignored, and actions 0 and 5 change nothing.
  It starts with length 3, heading right.
- One food lies on a random free cell. Moving the head onto it gives +1 reward, the snake grows by
  one cell (its tail stays put for that step) and a new food appears.
- Hunger: every step without food raises hunger by one; at `HUNGER_LIMIT` the snake starves.
- The episode ends when the head runs into the body or a rock, the snake starves, the board is full,
  or after `max_steps` steps. Moving into the cell the tail is leaving is allowed.

The view follows the head: state() draws the board shifted (with wrap-around) so that the head is
always at row 5, column 5. A board cell at (row, col) appears at ((row - head_row + 5) % 10,
(col - head_col + 5) % 10), so the cell above the head is at (4, 5), the one to its left at (5, 4).

Channels of state()
- 0 player: the head, always at (5, 5).
- 1 danger: the rocks.
- 2 reward: the food.
- 4 trail: the body (every cell the head has passed that the snake still covers).
- 5 gauge: time left before starving, row 0 lit from column 0, one cell per 1/10 of `HUNGER_LIMIT`
  (rounded up); the gauge is not part of the board and does not move with the view.
Channel 3 (projectile) is unused.
"""

import numpy as np

GRID = 10
CENTER = 5  # the head is drawn at (CENTER, CENTER)
START_LENGTH = 3
ROCKS = 4
MOVE_EVERY = 2  # the snake moves on every second step
HUNGER_LIMIT = 40  # steps without food before the snake starves
# action -> (row change, column change)
MOVES = {1: (0, -1), 2: (-1, 0), 3: (0, 1), 4: (1, 0)}


class SnakeTrailEnvironment:
    score_cap = 36.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        row, col = GRID // 2, GRID // 2
        self.body = [(row, col - i) for i in range(START_LENGTH)]  # head first
        self.direction = (0, 1)  # direction of the next move
        self.heading = (0, 1)  # direction of the last move
        # Rocks stay off the start row so the first steps are safe.
        self.rocks = set()
        while len(self.rocks) < ROCKS:
            cell = self._random_cell()
            if cell[0] != row:
                self.rocks.add(cell)
        self.hunger = 0
        self.steps = 0
        self.last_action = 0
        self.terminal = False
        self._place_food()

    def _random_cell(self):
        return (int(self.random.rand() * GRID), int(self.random.rand() * GRID))

    def _place_food(self):
        while True:
            cell = self._random_cell()
            if cell not in self.rocks and cell not in self.body:
                self.food = cell
                return

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        if self.terminal:
            return 0.0, True

        turn = MOVES.get(action)
        if turn is not None and turn != (-self.heading[0], -self.heading[1]):
            self.direction = turn
        self.steps += 1
        self.hunger += 1
        if self.steps % MOVE_EVERY:
            self.terminal = self.hunger >= HUNGER_LIMIT or self.steps >= self.max_steps
            return 0.0, self.terminal
        self.heading = self.direction
        head = (
            (self.body[0][0] + self.direction[0]) % GRID,
            (self.body[0][1] + self.direction[1]) % GRID,
        )
        eats = head == self.food
        # The tail cell is free this step unless the snake grows.
        if head in self.rocks or head in (self.body if eats else self.body[:-1]):
            self.terminal = True
            return 0.0, True
        self.body.insert(0, head)
        reward = 0.0
        full = False
        if eats:
            reward = 1.0
            self.hunger = 0
            full = len(self.body) + ROCKS >= GRID * GRID
            if not full:
                self._place_food()
        else:
            self.body.pop()
        self.terminal = full or self.hunger >= HUNGER_LIMIT or self.steps >= self.max_steps
        return reward, self.terminal

    def state(self):
        obs = np.zeros((GRID, GRID, 6), dtype=bool)
        shift_row = CENTER - self.body[0][0]
        shift_col = CENTER - self.body[0][1]
        obs[CENTER, CENTER, 0] = True
        for row, col in self.body[1:]:
            obs[(row + shift_row) % GRID, (col + shift_col) % GRID, 4] = True
        for row, col in self.rocks:
            obs[(row + shift_row) % GRID, (col + shift_col) % GRID, 1] = True
        obs[(self.food[0] + shift_row) % GRID, (self.food[1] + shift_col) % GRID, 2] = True
        left = HUNGER_LIMIT - self.hunger
        obs[0, : -(-left * GRID // HUNGER_LIMIT), 5] = True
        return obs
