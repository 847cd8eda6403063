"""Scripted bounce_paddle player: covers the landing column, catching on the cell that aims the ball at the block."""

from functools import cache

from minatar_synth.games.bounce_paddle import PADDLE_ROW, PADDLE_WIDTH

LOOKAHEAD = 3  # bounces searched when aiming at the block


def _move(row, col, d_row, d_col):
    col += d_col
    if col < 0:
        col, d_col = -col, -d_col
    elif col > 9:
        col, d_col = 18 - col, -d_col
    row += d_row
    if row < 0:
        row, d_row = 1, 1
    return row, col, d_row, d_col


def landing(row, col, d_row, d_col):
    """(steps, column) when the ball next comes down into the paddle row."""
    steps = 0
    while True:
        steps += 1
        row, col, d_row, d_col = _move(row, col, d_row, d_col)
        if row == PADDLE_ROW:
            return steps, col


@cache
def _flight(col, d_col, block):
    """A ball bounced up at column col with sideways velocity d_col: (steps until it enters the
    block or None, steps until it lands again, landing column)."""
    row, d_row = PADDLE_ROW - 2, -1
    steps, hit = 1, None
    while row != PADDLE_ROW:
        if hit is None and (row, col) == block:
            hit = steps
        row, col, d_row, d_col = _move(row, col, d_row, d_col)
        steps += 1
    return hit, steps, col


@cache
def _time_to_block(col, d_col, block, depth):
    """Fewest steps to the block after bouncing at col with d_col, choosing the next depth-1 bounces well."""
    hit, steps, next_col = _flight(col, d_col, block)
    if hit is not None:
        return hit
    if depth <= 1:
        return 999
    return steps + min(_time_to_block(next_col, d, block, depth - 1) for d in (-1, 1))


def policy(env):
    steps, col = landing(*env.ball, *env.velocity)
    paddle = env.paddle
    options = []
    for cell, d_col in ((0, -1), (1, 1)):  # the left cell sends the ball left, the right cell right
        target = col - cell
        if 0 <= target <= 10 - PADDLE_WIDTH and abs(target - paddle) <= steps:
            score = _time_to_block(col, d_col, env.block, LOOKAHEAD) if env.block else 0
            options.append((score, abs(target - paddle), target))
    target = min(options)[2] if options else min(max(col, 0), 10 - PADDLE_WIDTH)
    return 0 if paddle == target else (1 if target < paddle else 3)
