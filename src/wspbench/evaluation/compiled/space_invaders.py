"""Space Invaders as `minatar` 1.0.15 plays it with difficulty ramping off, on a state row (see `common.py`).

Three 10x10 maps (row-major cells): friendly bullets, enemy bullets and aliens. The game makes no random
calls (only the sticky-action wrapper does).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import FIRE, FIRST_FIELD, LEFT, RIGHT, TERMINAL, WIDTH, put

FOLLOWS = "minatar.environments.space_invaders"  # the game module this twin follows (`engine.twin_of`)

(POSITION, ALIEN_DIR, MOVE_INTERVAL, ALIEN_MOVE_TIMER, ALIEN_SHOT_TIMER, RAMP_INDEX, SHOT_TIMER) = range(
    FIRST_FIELD, FIRST_FIELD + 7
)
FRIENDLY = FIRST_FIELD + 7
ENEMY = FRIENDLY + 100
ALIENS = ENEMY + 100
SHOT_COOL_DOWN = 5
ENEMY_SHOT_INTERVAL = 10
# output channels: cannon -> 0, alien -> danger 1, reward 2 and trail 4 (its direction channel),
# enemy bullet -> danger 1, friendly bullet -> projectile 3
CANNON_OUT, DANGER_OUT, REWARD_OUT, PROJECTILE_OUT, TRAIL_OUT = 0, 1, 2, 3, 4


@njit(cache=True)
def reset(s, keys, positions, g):
    s[POSITION] = 5
    for cell in range(100):
        s[FRIENDLY + cell] = 0
        s[ENEMY + cell] = 0
        s[ALIENS + cell] = 1 if cell < 40 and 2 <= cell % 10 < 8 else 0
    s[ALIEN_DIR] = -1
    s[MOVE_INTERVAL] = 12
    s[ALIEN_MOVE_TIMER] = 12
    s[ALIEN_SHOT_TIMER] = ENEMY_SHOT_INTERVAL
    s[RAMP_INDEX] = 0
    s[SHOT_TIMER] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def _count(s, base, first, stop, stride):
    total = 0
    for cell in range(first, stop, stride):
        total += s[base + cell] != 0
    return total


@njit(cache=True)
def _roll_down(s, base):
    """np.roll(map, 1, axis=0): every row moves down one, the bottom row wraps to the top."""
    for column in range(10):
        bottom = s[base + 90 + column]
        for row in range(9, 0, -1):
            s[base + row * 10 + column] = s[base + (row - 1) * 10 + column]
        s[base + column] = bottom


@njit(cache=True)
def _roll_sideways(s, base, shift):
    """np.roll(map, shift, axis=1) for shift -1 or 1."""
    for row in range(10):
        first = base + row * 10
        if shift > 0:
            last = s[first + 9]
            for column in range(9, 0, -1):
                s[first + column] = s[first + column - 1]
            s[first] = last
        else:
            leftmost = s[first]
            for column in range(9):
                s[first + column] = s[first + column + 1]
            s[first + 9] = leftmost


@njit(cache=True)
def step(s, action, keys, positions, g):
    if action == FIRE and s[SHOT_TIMER] == 0:
        s[FRIENDLY + 90 + s[POSITION]] = 1
        s[SHOT_TIMER] = SHOT_COOL_DOWN
    elif action == LEFT:
        s[POSITION] = max(0, s[POSITION] - 1)
    elif action == RIGHT:
        s[POSITION] = min(9, s[POSITION] + 1)
    position = s[POSITION]
    for cell in range(90):  # friendly bullets move up; the top row leaves, the bottom row empties
        s[FRIENDLY + cell] = s[FRIENDLY + cell + 10]
    for cell in range(90, 100):
        s[FRIENDLY + cell] = 0
    for cell in range(99, 9, -1):  # enemy bullets move down; the bottom row leaves, the top row empties
        s[ENEMY + cell] = s[ENEMY + cell - 10]
    for cell in range(10):
        s[ENEMY + cell] = 0
    if s[ENEMY + 90 + position]:
        s[TERMINAL] = 1
    if s[ALIENS + 90 + position]:
        s[TERMINAL] = 1
    if s[ALIEN_MOVE_TIMER] == 0:
        s[ALIEN_MOVE_TIMER] = min(_count(s, ALIENS, 0, 100, 1), s[MOVE_INTERVAL])
        direction = s[ALIEN_DIR]
        if (_count(s, ALIENS, 0, 100, 10) > 0 and direction < 0) or (
            _count(s, ALIENS, 9, 100, 10) > 0 and direction > 0
        ):
            s[ALIEN_DIR] = -direction
            if _count(s, ALIENS, 90, 100, 1) > 0:
                s[TERMINAL] = 1
            _roll_down(s, ALIENS)
        else:
            _roll_sideways(s, ALIENS, direction)
        if s[ALIENS + 90 + position]:
            s[TERMINAL] = 1
    if s[ALIEN_SHOT_TIMER] == 0:
        s[ALIEN_SHOT_TIMER] = ENEMY_SHOT_INTERVAL
        for distance in range(10):  # columns by distance from the cannon, the left one first on ties
            found = False
            for column in (position - distance, position + distance):
                if 0 <= column <= 9 and not found and (distance > 0 or column == position):
                    for row in range(9, -1, -1):
                        if s[ALIENS + row * 10 + column] == 1:
                            s[ENEMY + row * 10 + column] = 1
                            found = True
                            break
            if found:
                break
    reward = 0
    for cell in range(100):
        if s[ALIENS + cell] != 0 and s[ALIENS + cell] == s[FRIENDLY + cell]:
            reward += 1
            s[ALIENS + cell] = 0
            s[FRIENDLY + cell] = 0
    s[SHOT_TIMER] -= s[SHOT_TIMER] > 0
    s[ALIEN_MOVE_TIMER] -= 1
    s[ALIEN_SHOT_TIMER] -= 1
    if _count(s, ALIENS, 0, 100, 1) == 0:
        for cell in range(40):
            if 2 <= cell % 10 < 8:
                s[ALIENS + cell] = 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, 9, s[POSITION], CANNON_OUT)
    for cell in range(100):
        row, column = cell // 10, cell % 10
        if s[ALIENS + cell]:
            count = put(active, count, row, column, DANGER_OUT)
            count = put(active, count, row, column, REWARD_OUT)
            count = put(active, count, row, column, TRAIL_OUT)
        if s[ENEMY + cell]:
            count = put(active, count, row, column, DANGER_OUT)
        if s[FRIENDLY + cell]:
            count = put(active, count, row, column, PROJECTILE_OUT)
    return count


def from_minatar(game) -> np.ndarray:
    """The row holding a `minatar` space_invaders `Env`'s fields (for the differential tests)."""
    s = np.zeros(WIDTH, np.int64)
    s[TERMINAL] = game.terminal
    s[POSITION], s[ALIEN_DIR], s[MOVE_INTERVAL] = game.pos, game.alien_dir, game.enemy_move_interval
    s[ALIEN_MOVE_TIMER], s[ALIEN_SHOT_TIMER] = game.alien_move_timer, game.alien_shot_timer
    s[RAMP_INDEX], s[SHOT_TIMER] = game.ramp_index, game.shot_timer
    for base, grid in ((FRIENDLY, game.f_bullet_map), (ENEMY, game.e_bullet_map), (ALIENS, game.alien_map)):
        s[base : base + 100] = np.asarray(grid).reshape(100)
    return s
