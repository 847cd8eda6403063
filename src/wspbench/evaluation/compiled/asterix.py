"""Asterix as `minatar` 1.0.15 plays it with difficulty ramping off, on a state row (see `common.py`).

Eight entity slots (row = slot + 1), each `PRESENT, X, LEFT_TO_RIGHT, GOLD`; an empty slot is all zeros.
Random calls, when the spawn timer is up: `rand()` (direction), `rand()` (gold), then `randint(free slots)`
unless no slot is free.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRST_FIELD, LEFT, RIGHT, TERMINAL, UP, WIDTH, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

FOLLOWS = "minatar.environments.asterix"  # the game module this twin follows (`engine.twin_of`)

(PLAYER_X, PLAYER_Y, SHOT_TIMER, SPAWN_SPEED, SPAWN_TIMER, MOVE_SPEED, MOVE_TIMER, RAMP_TIMER, RAMP_INDEX) = range(
    FIRST_FIELD, FIRST_FIELD + 9
)
ENTITIES = FIRST_FIELD + 9
FIELDS = 4
PRESENT, X, LEFT_TO_RIGHT, GOLD = range(FIELDS)
SLOTS = 8
# output channels: player -> 0, enemy -> danger 1, gold -> reward 2, trail -> 4
PLAYER_OUT, ENEMY_OUT, GOLD_OUT, TRAIL_OUT = 0, 1, 2, 4


@njit(cache=True)
def reset(s, keys, positions, g):
    s[PLAYER_X] = 5
    s[PLAYER_Y] = 5
    for index in range(SLOTS * FIELDS):
        s[ENTITIES + index] = 0
    s[SHOT_TIMER] = 0
    s[SPAWN_SPEED] = 10
    s[SPAWN_TIMER] = 10
    s[MOVE_SPEED] = 5
    s[MOVE_TIMER] = 5
    s[RAMP_TIMER] = 100
    s[RAMP_INDEX] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def _spawn(s, keys, positions, g):
    left_to_right = random_sample(keys, positions, g) < 0.5
    gold = random_sample(keys, positions, g) < 1 / 3
    free = 0
    for slot in range(SLOTS):
        free += s[ENTITIES + slot * FIELDS + PRESENT] == 0
    if free == 0:
        return
    choice = bounded(keys, positions, g, 0, free - 1)
    for slot in range(SLOTS):
        base = ENTITIES + slot * FIELDS
        if s[base + PRESENT] == 0:
            if choice == 0:
                s[base + PRESENT] = 1
                s[base + X] = 0 if left_to_right else 9
                s[base + LEFT_TO_RIGHT] = left_to_right
                s[base + GOLD] = gold
                return
            choice -= 1


@njit(cache=True)
def _meet(s, base):
    """The entity in `base` is on the player: gold is collected (returns 1), an enemy ends the game."""
    if s[base + GOLD]:
        for field in range(FIELDS):
            s[base + field] = 0
        return 1
    s[TERMINAL] = 1
    return 0


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0
    if s[SPAWN_TIMER] == 0:
        _spawn(s, keys, positions, g)
        s[SPAWN_TIMER] = s[SPAWN_SPEED]
    if action == LEFT:
        s[PLAYER_X] = max(0, s[PLAYER_X] - 1)
    elif action == RIGHT:
        s[PLAYER_X] = min(9, s[PLAYER_X] + 1)
    elif action == UP:
        s[PLAYER_Y] = max(1, s[PLAYER_Y] - 1)
    elif action == DOWN:
        s[PLAYER_Y] = min(8, s[PLAYER_Y] + 1)
    for slot in range(SLOTS):
        base = ENTITIES + slot * FIELDS
        if s[base + PRESENT] and s[base + X] == s[PLAYER_X] and slot + 1 == s[PLAYER_Y]:
            reward += _meet(s, base)
    if s[MOVE_TIMER] == 0:
        s[MOVE_TIMER] = s[MOVE_SPEED]
        for slot in range(SLOTS):
            base = ENTITIES + slot * FIELDS
            if s[base + PRESENT]:
                x = s[base + X] + (1 if s[base + LEFT_TO_RIGHT] else -1)
                if x < 0 or x > 9:
                    for field in range(FIELDS):
                        s[base + field] = 0
                else:
                    s[base + X] = x
                    if x == s[PLAYER_X] and slot + 1 == s[PLAYER_Y]:
                        reward += _meet(s, base)
    s[SPAWN_TIMER] -= 1
    s[MOVE_TIMER] -= 1
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[PLAYER_Y], s[PLAYER_X], PLAYER_OUT)
    for slot in range(SLOTS):
        base = ENTITIES + slot * FIELDS
        if s[base + PRESENT]:
            x = s[base + X]
            count = put(active, count, slot + 1, x, GOLD_OUT if s[base + GOLD] else ENEMY_OUT)
            back = x - 1 if s[base + LEFT_TO_RIGHT] else x + 1
            if 0 <= back <= 9:
                count = put(active, count, slot + 1, back, TRAIL_OUT)
    return count


def from_minatar(game) -> np.ndarray:
    """The row holding a `minatar` asterix `Env`'s fields (for the differential tests)."""
    s = np.zeros(WIDTH, np.int64)
    s[TERMINAL] = game.terminal
    s[PLAYER_X], s[PLAYER_Y], s[SHOT_TIMER] = game.player_x, game.player_y, game.shot_timer
    s[SPAWN_SPEED], s[SPAWN_TIMER], s[MOVE_SPEED], s[MOVE_TIMER] = (
        game.spawn_speed,
        game.spawn_timer,
        game.move_speed,
        game.move_timer,
    )
    s[RAMP_TIMER], s[RAMP_INDEX] = game.ramp_timer, game.ramp_index
    for slot, entity in enumerate(game.entities):
        if entity is not None:
            assert entity[1] == slot + 1
            s[ENTITIES + slot * FIELDS : ENTITIES + (slot + 1) * FIELDS] = (1, entity[0], entity[2], entity[3])
    return s
