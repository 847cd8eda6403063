"""Seaquest as `minatar` 1.0.15 plays it with difficulty ramping off, on a state row (see `common.py`).

minatar keeps five Python lists and edits them while iterating backwards over them; each list here is a
count followed by up to `CAPACITY` entries in the same order, and `list.remove(item)` is reproduced as
"delete the first entry equal to it". Entries: friendly bullets and enemy bullets `X, Y, DIRECTION`, fish and
divers `X, Y, DIRECTION, TIMER`, subs `X, Y, DIRECTION, TIMER, SHOT_TIMER` (DIRECTION 1: left to right).
A list that would outgrow `CAPACITY` sets `OVERFLOW` (the engine then plays the episodes the other way).
Random calls: on an enemy spawn `rand()`, `rand()`, `randint(1, 9)`; on a diver spawn `rand()`, `randint(1, 9)`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRE, FIRST_FIELD, LEFT, RIGHT, TERMINAL, UP, WIDTH, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

FOLLOWS = "minatar.environments.seaquest"  # the game module this twin follows (`engine.twin_of`)

(
    OXYGEN,
    DIVER_COUNT,
    SUB_X,
    SUB_Y,
    SUB_FACING_RIGHT,
    SPAWN_SPEED,
    SPAWN_TIMER,
    DIVER_SPAWN_TIMER,
    MOVE_SPEED,
    RAMP_INDEX,
    SHOT_TIMER,
    SURFACE,
    OVERFLOW,
) = range(FIRST_FIELD, FIRST_FIELD + 13)
CAPACITY = 32
X, Y, DIRECTION, TIMER, SHOT = range(5)
FRIENDLY_BULLETS = FIRST_FIELD + 13
ENEMY_BULLETS = FRIENDLY_BULLETS + 1 + CAPACITY * 3
FISH = ENEMY_BULLETS + 1 + CAPACITY * 3
SUBS = FISH + 1 + CAPACITY * 4
DIVERS = SUBS + 1 + CAPACITY * 5
LISTS = ((FRIENDLY_BULLETS, 3), (ENEMY_BULLETS, 3), (FISH, 4), (SUBS, 5), (DIVERS, 4))
MAX_OXYGEN = 200
DIVER_SPAWN_SPEED = 30
SHOT_COOL_DOWN = 5
ENEMY_SHOT_INTERVAL = 10
DIVER_MOVE_INTERVAL = 5
# output channels: sub -> player 0 (its back also -> trail 4), fish and subs -> danger 1 and reward 2,
# enemy bullet -> danger 1, diver -> reward 2, friendly bullet -> projectile 3, trails -> 4, gauges -> 5
PLAYER_OUT, DANGER_OUT, REWARD_OUT, PROJECTILE_OUT, TRAIL_OUT, GAUGE_OUT = range(6)
assert DIVERS + 1 + CAPACITY * 4 <= WIDTH


@njit(cache=True, inline="always")
def _at(base, fields, index, field):
    return base + 1 + index * fields + field


@njit(cache=True)
def _append(s, base, fields, values):
    count = s[base]
    if count == CAPACITY:
        s[OVERFLOW] = 1
        return
    for field in range(fields):
        s[_at(base, fields, count, field)] = values[field]
    s[base] = count + 1


@njit(cache=True)
def _remove(s, base, fields, index):
    """`items.remove(items[index])`: delete the first entry equal to entry `index`."""
    first = index
    for other in range(index):
        same = True
        for field in range(fields):
            same = same and s[_at(base, fields, other, field)] == s[_at(base, fields, index, field)]
        if same:
            first = other
            break
    count = s[base]
    for later in range(first, count - 1):
        for field in range(fields):
            s[_at(base, fields, later, field)] = s[_at(base, fields, later + 1, field)]
    for field in range(fields):
        s[_at(base, fields, count - 1, field)] = 0
    s[base] = count - 1


@njit(cache=True)
def _find(s, base, fields, x, y):
    """Index of the first entry at (x, y), or -1."""
    for index in range(s[base]):
        if s[_at(base, fields, index, X)] == x and s[_at(base, fields, index, Y)] == y:
            return index
    return -1


@njit(cache=True)
def reset(s, keys, positions, g):
    s[OXYGEN] = MAX_OXYGEN
    s[DIVER_COUNT] = 0
    s[SUB_X] = 5
    s[SUB_Y] = 0
    s[SUB_FACING_RIGHT] = 0
    for base, fields in LISTS:
        for index in range(1 + CAPACITY * fields):
            s[base + index] = 0
    s[SPAWN_SPEED] = 20
    s[SPAWN_TIMER] = 20
    s[DIVER_SPAWN_TIMER] = DIVER_SPAWN_SPEED
    s[MOVE_SPEED] = 5
    s[RAMP_INDEX] = 0
    s[SHOT_TIMER] = 0
    s[SURFACE] = 1
    s[OVERFLOW] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def _spawn_enemy(s, keys, positions, g):
    left_to_right = 1 if random_sample(keys, positions, g) < 0.5 else 0
    is_sub = random_sample(keys, positions, g) < 1 / 3
    x = 0 if left_to_right else 9
    y = bounded(keys, positions, g, 1, 7)
    for base, fields in ((SUBS, 5), (FISH, 4)):  # no spawn against the direction of a row's enemies
        for index in range(s[base]):
            if s[_at(base, fields, index, Y)] == y and s[_at(base, fields, index, DIRECTION)] != left_to_right:
                return
    if is_sub:
        _append(s, SUBS, 5, (x, y, left_to_right, s[MOVE_SPEED], ENEMY_SHOT_INTERVAL))
    else:
        _append(s, FISH, 4, (x, y, left_to_right, s[MOVE_SPEED]))


@njit(cache=True)
def _spawn_diver(s, keys, positions, g):
    left_to_right = 1 if random_sample(keys, positions, g) < 0.5 else 0
    x = 0 if left_to_right else 9
    y = bounded(keys, positions, g, 1, 7)
    _append(s, DIVERS, 4, (x, y, left_to_right, DIVER_MOVE_INTERVAL))


@njit(cache=True)
def _surface(s):
    if s[DIVER_COUNT] == 6:
        s[DIVER_COUNT] = 0
        reward = s[OXYGEN] * 10 // MAX_OXYGEN
    else:
        reward = 0
    s[SURFACE] = 1
    s[OXYGEN] = MAX_OXYGEN
    s[DIVER_COUNT] -= 1
    return reward


@njit(cache=True)
def _on_sub(s, x, y):
    return x == s[SUB_X] and y == s[SUB_Y]


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0
    if s[SPAWN_TIMER] == 0:
        _spawn_enemy(s, keys, positions, g)
        s[SPAWN_TIMER] = s[SPAWN_SPEED]
    if s[DIVER_SPAWN_TIMER] == 0:
        _spawn_diver(s, keys, positions, g)
        s[DIVER_SPAWN_TIMER] = DIVER_SPAWN_SPEED
    if action == FIRE and s[SHOT_TIMER] == 0:
        _append(s, FRIENDLY_BULLETS, 3, (s[SUB_X], s[SUB_Y], s[SUB_FACING_RIGHT], 0, 0))
        s[SHOT_TIMER] = SHOT_COOL_DOWN
    elif action == LEFT:
        s[SUB_X] = max(0, s[SUB_X] - 1)
        s[SUB_FACING_RIGHT] = 0
    elif action == RIGHT:
        s[SUB_X] = min(9, s[SUB_X] + 1)
        s[SUB_FACING_RIGHT] = 1
    elif action == UP:
        s[SUB_Y] = max(0, s[SUB_Y] - 1)
    elif action == DOWN:
        s[SUB_Y] = min(8, s[SUB_Y] + 1)

    for index in range(s[FRIENDLY_BULLETS] - 1, -1, -1):  # friendly bullets, last first
        at = _at(FRIENDLY_BULLETS, 3, index, 0)
        s[at + X] += 1 if s[at + DIRECTION] else -1
        x, y = s[at + X], s[at + Y]
        if x < 0 or x > 9:
            _remove(s, FRIENDLY_BULLETS, 3, index)
        else:
            hit = _find(s, FISH, 4, x, y)
            if hit >= 0:
                _remove(s, FISH, 4, hit)
                _remove(s, FRIENDLY_BULLETS, 3, index)
                reward += 1
            else:
                hit = _find(s, SUBS, 5, x, y)
                if hit >= 0:
                    _remove(s, SUBS, 5, hit)
                    _remove(s, FRIENDLY_BULLETS, 3, index)
                    reward += 1

    for index in range(s[DIVERS] - 1, -1, -1):  # divers, last first
        at = _at(DIVERS, 4, index, 0)
        if _on_sub(s, s[at + X], s[at + Y]) and s[DIVER_COUNT] < 6:
            _remove(s, DIVERS, 4, index)
            s[DIVER_COUNT] += 1
        elif s[at + TIMER] == 0:
            s[at + TIMER] = DIVER_MOVE_INTERVAL
            s[at + X] += 1 if s[at + DIRECTION] else -1
            if s[at + X] < 0 or s[at + X] > 9:
                _remove(s, DIVERS, 4, index)
            elif _on_sub(s, s[at + X], s[at + Y]) and s[DIVER_COUNT] < 6:
                _remove(s, DIVERS, 4, index)
                s[DIVER_COUNT] += 1
        else:
            s[at + TIMER] -= 1

    for index in range(s[SUBS] - 1, -1, -1):  # enemy subs, last first
        at = _at(SUBS, 5, index, 0)
        if _on_sub(s, s[at + X], s[at + Y]):
            s[TERMINAL] = 1
        removed = False
        if s[at + TIMER] == 0:
            s[at + TIMER] = s[MOVE_SPEED]
            s[at + X] += 1 if s[at + DIRECTION] else -1
            if s[at + X] < 0 or s[at + X] > 9:
                removed = True
            elif _on_sub(s, s[at + X], s[at + Y]):
                s[TERMINAL] = 1
            else:
                hit = _find(s, FRIENDLY_BULLETS, 3, s[at + X], s[at + Y])
                if hit >= 0:
                    removed = True
                    _remove(s, FRIENDLY_BULLETS, 3, hit)
                    reward += 1
        else:
            s[at + TIMER] -= 1
        # a sub taken off the list still shoots this step, from where it went
        x, y, direction, shot = s[at + X], s[at + Y], s[at + DIRECTION], s[at + SHOT]
        if removed:
            _remove(s, SUBS, 5, index)
        if shot == 0:
            if not removed:
                s[at + SHOT] = ENEMY_SHOT_INTERVAL
            _append(s, ENEMY_BULLETS, 3, (x, y, direction, 0, 0))
        elif not removed:
            s[at + SHOT] -= 1

    for index in range(s[ENEMY_BULLETS] - 1, -1, -1):  # enemy bullets, last first
        at = _at(ENEMY_BULLETS, 3, index, 0)
        if _on_sub(s, s[at + X], s[at + Y]):
            s[TERMINAL] = 1
        s[at + X] += 1 if s[at + DIRECTION] else -1
        if s[at + X] < 0 or s[at + X] > 9:
            _remove(s, ENEMY_BULLETS, 3, index)
        elif _on_sub(s, s[at + X], s[at + Y]):
            s[TERMINAL] = 1

    for index in range(s[FISH] - 1, -1, -1):  # fish, last first
        at = _at(FISH, 4, index, 0)
        if _on_sub(s, s[at + X], s[at + Y]):
            s[TERMINAL] = 1
        if s[at + TIMER] == 0:
            s[at + TIMER] = s[MOVE_SPEED]
            s[at + X] += 1 if s[at + DIRECTION] else -1
            if s[at + X] < 0 or s[at + X] > 9:
                _remove(s, FISH, 4, index)
            elif _on_sub(s, s[at + X], s[at + Y]):
                s[TERMINAL] = 1
            else:
                hit = _find(s, FRIENDLY_BULLETS, 3, s[at + X], s[at + Y])
                if hit >= 0:
                    _remove(s, FISH, 4, index)
                    _remove(s, FRIENDLY_BULLETS, 3, hit)
                    reward += 1
        else:
            s[at + TIMER] -= 1

    s[SPAWN_TIMER] -= s[SPAWN_TIMER] > 0
    s[DIVER_SPAWN_TIMER] -= s[DIVER_SPAWN_TIMER] > 0
    s[SHOT_TIMER] -= s[SHOT_TIMER] > 0
    if s[OXYGEN] <= 0:
        s[TERMINAL] = 1
    if s[SUB_Y] > 0:
        s[OXYGEN] -= 1
        s[SURFACE] = 0
    elif not s[SURFACE]:
        if s[DIVER_COUNT] == 0:
            s[TERMINAL] = 1
        else:
            reward += _surface(s)
    return reward


@njit(cache=True)
def _put_movers(s, active, count, base, fields, channel, second_channel, trail):
    for index in range(s[base]):
        at = _at(base, fields, index, 0)
        x, y = s[at + X], s[at + Y]
        count = put(active, count, y, x, channel)
        if second_channel >= 0:
            count = put(active, count, y, x, second_channel)
        if trail:
            back = x - 1 if s[at + DIRECTION] else x + 1
            if 0 <= back <= 9:
                count = put(active, count, y, back, TRAIL_OUT)
    return count


@njit(cache=True)
def observe(s, active):
    sub_x, sub_y = s[SUB_X], s[SUB_Y]
    count = put(active, 0, sub_y, sub_x, PLAYER_OUT)
    back = sub_x - 1 if s[SUB_FACING_RIGHT] else sub_x + 1
    back = back % 10  # numpy's negative index (the game never puts the back outside the grid)
    count = put(active, count, sub_y, back, PLAYER_OUT)
    count = put(active, count, sub_y, back, TRAIL_OUT)
    for column in range(max(0, s[OXYGEN]) * 10 // MAX_OXYGEN):
        count = put(active, count, 9, column, GAUGE_OUT)
    for column in range(max(0, 9 - s[DIVER_COUNT]), 9):
        count = put(active, count, 9, column, GAUGE_OUT)
    count = _put_movers(s, active, count, FRIENDLY_BULLETS, 3, PROJECTILE_OUT, -1, False)
    count = _put_movers(s, active, count, ENEMY_BULLETS, 3, DANGER_OUT, -1, False)
    count = _put_movers(s, active, count, FISH, 4, DANGER_OUT, REWARD_OUT, True)
    count = _put_movers(s, active, count, SUBS, 5, DANGER_OUT, REWARD_OUT, True)
    count = _put_movers(s, active, count, DIVERS, 4, REWARD_OUT, -1, True)
    return count


def from_minatar(game) -> np.ndarray:
    """The row holding a `minatar` seaquest `Env`'s fields (for the differential tests)."""
    s = np.zeros(WIDTH, np.int64)
    s[TERMINAL] = game.terminal
    s[OXYGEN], s[DIVER_COUNT], s[SUB_X], s[SUB_Y] = game.oxygen, game.diver_count, game.sub_x, game.sub_y
    s[SUB_FACING_RIGHT], s[SPAWN_SPEED], s[SPAWN_TIMER] = game.sub_or, game.e_spawn_speed, game.e_spawn_timer
    s[DIVER_SPAWN_TIMER], s[MOVE_SPEED], s[RAMP_INDEX] = game.d_spawn_timer, game.move_speed, game.ramp_index
    s[SHOT_TIMER], s[SURFACE] = game.shot_timer, game.surface
    for (base, fields), items in zip(
        LISTS, (game.f_bullets, game.e_bullets, game.e_fish, game.e_subs, game.divers), strict=True
    ):
        s[base] = len(items)
        for index, item in enumerate(items):
            assert len(item) == fields
            s[base + 1 + index * fields : base + 1 + (index + 1) * fields] = item
    return s
