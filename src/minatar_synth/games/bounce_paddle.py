"""Bounce paddle: keep a bouncing ball in play with a two-cell paddle; read its trail to see where it lands.

Rules
- A ball flies diagonally: each step it moves one row up or down and one column left or right,
  bouncing off the side walls and the top wall (row 0).
- The paddle covers two cells of the bottom row (row 9): its left cell and the cell to its right.
  It moves one column left or right per step, before the ball moves.
- When the ball comes down into row 9 on a paddle cell, it bounces back up (from row 8 it goes to
  row 7, in the column where it touched the paddle) and scores +1. A ball caught on the paddle's
  left cell leaves up-left, one caught on the right cell leaves up-right.
- If the ball comes down into row 9 beside the paddle, it is lost and the episode ends.
- From time to time a target block appears somewhere in rows 1-4, always on a cell the ball can
  reach (moving diagonally, the ball only visits cells whose row + column has one parity). The
  ball flies through it and scores +2 when it enters the block's cell; the block then disappears
  and a new one comes a few steps later. Choose the paddle cell that catches the ball to aim at it.

Channels
- 0 player: the paddle (two cells of row 9).
- 2 reward: the target block.
- 3 projectile: the ball.
- 4 trail: the cell the ball occupied on the previous step (so its direction of flight).

Actions: 1 left, 3 right; all others do nothing.
Reward: +1 per catch on the paddle, +2 per target block hit.
The episode ends when the ball is lost, or after max_steps steps.
"""
import numpy as np

PADDLE_ROW = 9
PADDLE_WIDTH = 2
BLOCK_ROWS = (1, 4)  # a block appears in rows 1..4
BLOCK_BONUS = 2.0
BLOCK_DELAY = (5, 16)  # steps before a new block: randint(low, high)


class BouncePaddleEnvironment:
    score_cap = 130.0
    max_steps = 1000

    def __init__(self, sticky_action_prob=0.1):
        self.sticky_action_prob = sticky_action_prob
        self.random = np.random.RandomState(0)
        self.reset()

    def seed(self, seed):
        self.random = np.random.RandomState(seed)

    def reset(self):
        self.paddle = 4  # left cell of the paddle
        self.ball = [1, self.random.randint(10)]  # row, col
        self.velocity = [1, 1 if self.random.rand() < 0.5 else -1]  # rows, columns per step
        self.trail = None
        self.block = None  # (row, col) of the target block
        self.block_timer = 3
        self.steps = 0
        self.last_action = 0

    def act(self, action):
        if self.random.rand() < self.sticky_action_prob:
            action = self.last_action
        self.last_action = action
        reward = 0.0
        terminal = False

        # Paddle.
        if action == 1 and self.paddle > 0:
            self.paddle -= 1
        elif action == 3 and self.paddle < 10 - PADDLE_WIDTH:
            self.paddle += 1

        # Ball: sideways with wall bounces, then up or down.
        row, col = self.ball
        self.trail = (row, col)
        d_row, d_col = self.velocity
        col += d_col
        if col < 0:
            col, d_col = -col, -d_col
        elif col > 9:
            col, d_col = 18 - col, -d_col
        row += d_row
        if row < 0:
            row, d_row = 1, 1
        elif row == PADDLE_ROW:
            if self.paddle <= col < self.paddle + PADDLE_WIDTH:
                row, d_row = PADDLE_ROW - 2, -1
                reward += 1.0
                # The paddle's left cell sends the ball up-left, its right cell up-right.
                d_col = -1 if col == self.paddle else 1
            else:
                terminal = True
        self.ball = [row, col]
        self.velocity = [d_row, d_col]

        # Target block.
        if self.block is not None and self.block == (row, col):
            reward += BLOCK_BONUS
            self.block = None
            self.block_timer = self.random.randint(*BLOCK_DELAY)
        elif self.block is None:
            self.block_timer -= 1
            if self.block_timer <= 0:
                b_row = self.random.randint(BLOCK_ROWS[0], BLOCK_ROWS[1] + 1)
                b_col = self.random.randint(10)
                if (b_row + b_col) % 2 != (row + col) % 2:
                    b_col ^= 1  # move it next door, onto a cell the ball can reach
                self.block = (b_row, b_col)

        self.steps += 1
        return reward, terminal or self.steps >= self.max_steps

    def state(self):
        s = np.zeros((10, 10, 6), dtype=bool)
        s[PADDLE_ROW, self.paddle : self.paddle + PADDLE_WIDTH, 0] = True
        s[self.ball[0], self.ball[1], 3] = True
        if self.trail is not None:
            s[self.trail[0], self.trail[1], 4] = True
        if self.block is not None:
            s[self.block[0], self.block[1], 2] = True
        return s
