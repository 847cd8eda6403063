"""Every generated game (`minatar_synth/generator.py`) as one compiled twin, parameterised by the seed's design.

`generator.design(seed)` fixes every mechanic a generated module combines; `parameters` writes those choices
into the first fields of a slot's row, `reset` leaves them there, and `step` branches on them where the
generator writes one variant or another. So a new seed needs no new code, and a mechanic added to the
generator is added here too, in the same order of random calls (docs/engines.md). The twin serves a module
only when its source is exactly what the generator writes for its seed and cap (`setup`).

Per step, in the module's order: the player moves; a shot is launched; touch (rewards, bonuses, pellets,
dangers: a danger touched while powered is eaten for +2); the shot flies (a miss costs 1 where shots score) and
may hit; the rewards move, then the bonuses, the dangers (chase: one `rand()` per move) and the pellets; the shot
may hit again; touch again; the rewards spawn, then the bonuses, the dangers and the pellets (`rand() < chance`;
drift: `rand()` for the side, then `randint(10)`; else `randint(10)`, then zigzag: `rand()` for the side); the
power goes down; the step counts; the episode ends. The hard family's mechanics (`generator.hard_design`): a
bonus kind is shown on the reward channel, told apart by its motion; pellets always fall, and only games that
fire nothing have them, shown on the projectile channel.

An object is `ROW, COL, SIDE, COUNTDOWN`; a kind's objects are a count-prefixed array in list order (removal
keeps the order). A kind has at most one new object a step and each leaves the grid within 10 moves of at
most 3 steps, so at most 31 are alive: CAPACITY is 32.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import DOWN, FIRE, FIRST_FIELD, LEFT, RIGHT, TERMINAL, UP, put
from wspbench.evaluation.compiled.mt19937 import bounded, random_sample

LAYOUTS = ("bottom", "left", "free")
MOTIONS = ("fall", "zigzag", "chase", "drift")
ENDINGS = ("crash", "lives", "penalty")
GAUGES = ("none", "time", "lives", "power")
BOTTOM_LAYOUT, LEFT_LAYOUT, FREE_LAYOUT = range(3)
FALL, ZIGZAG, CHASE, DRIFT = range(4)
CRASH, LIVES_ENDING, PENALTY = range(3)
NO_GAUGE, TIME_GAUGE, LIVES_GAUGE, POWER_GAUGE = range(4)

# the design: written by `parameters`, never changed by play
(LAYOUT, WRAP, FIRES, SHOTS_SCORE, ENDING, START_LIVES, MAX_STEPS, TRAIL, GAUGE,
 HAS_REWARD, REWARD_MOTION, REWARD_PERIOD, REWARD_CHANCE,
 DANGER_MOTION, DANGER_PERIOD, DANGER_CHANCE,
 POWER_STEPS, PELLET_PERIOD, PELLET_CHANCE,
 BONUS_VALUE, BONUS_MOTION, BONUS_PERIOD, BONUS_CHANCE) = range(FIRST_FIELD, FIRST_FIELD + 23)  # fmt: skip
DESIGN_FIELDS = 23  # POWER_STEPS 0: no pellets (they always fall); BONUS_VALUE 0: no bonus kind
# the play
PLAYER_ROW, PLAYER_COL, SHOT_ON, SHOT_ROW, SHOT_COL, CRASHED, LIVES, STEPS, POWER = range(
    FIRST_FIELD + DESIGN_FIELDS, FIRST_FIELD + DESIGN_FIELDS + 9
)
CAPACITY = 32
OBJECT = 4
ROW, COL, SIDE, COUNTDOWN = range(OBJECT)
REWARDS = POWER + 1  # count, then CAPACITY objects
BONUSES = REWARDS + 1 + CAPACITY * OBJECT
DANGERS = BONUSES + 1 + CAPACITY * OBJECT
PELLETS = DANGERS + 1 + CAPACITY * OBJECT
TRAILS = PELLETS + 1 + CAPACITY * OBJECT  # count, then (row, col) pairs: at most every object moves
PLAYER_OUT, DANGER_OUT, REWARD_OUT, SHOT_OUT, TRAIL_OUT, GAUGE_OUT = range(6)
GRID = 10


def parameters(design) -> np.ndarray:
    """The design fields of a slot's row (from FIRST_FIELD) for a `generator.Design`. A chance is stored in
    hundredths: k / 100.0 is the same double as the module's literal (division is correctly rounded)."""
    reward, danger, pellet, bonus = design.reward, design.danger, design.pellet, design.bonus
    fields = [
        LAYOUTS.index(design.layout), design.wrap, design.fire, design.scoring != "collect",
        ENDINGS.index(design.ending), design.lives, design.max_steps, design.trail, GAUGES.index(design.gauge),
        reward is not None,
        MOTIONS.index(reward.motion) if reward else 0, reward.period if reward else 1,
        round(reward.chance * 100) if reward else 0,
        MOTIONS.index(danger.motion), danger.period, round(danger.chance * 100),
        design.power, pellet.period if pellet else 1, round(pellet.chance * 100) if pellet else 0,
        design.bonus_value, MOTIONS.index(bonus.motion) if bonus else 0, bonus.period if bonus else 1,
        round(bonus.chance * 100) if bonus else 0,
    ]  # fmt: skip
    if pellet is not None and pellet.motion != "fall":
        raise ValueError("pellets fall: the twin moves them so")
    for kind in (reward, danger, pellet, bonus):
        if kind is not None and round(kind.chance * 100) / 100.0 != kind.chance:
            raise ValueError(f"a chance of {kind.chance} is not a whole number of hundredths")
    return np.asarray(fields, dtype=np.int64)


def setup(game: str, source: str, score_cap: float) -> np.ndarray | None:
    """The design fields for module `game` when its source is exactly what the generator writes for its seed and
    cap, or with the placeholder cap a calibration writes; else None (the Python module plays it: a user's own
    edit is never second-guessed)."""
    from minatar_synth import generator

    named = generator.parse_name(game)
    if named is None:
        return None
    family, seed = named
    if source not in (generator.generate(seed, score_cap, family), generator.generate(seed, None, family)):
        return None
    return parameters(generator.design(seed, family))


@njit(cache=True)
def reset(s, keys, positions, g):
    if s[LAYOUT] == BOTTOM_LAYOUT:
        s[PLAYER_ROW], s[PLAYER_COL] = GRID - 1, GRID // 2
    elif s[LAYOUT] == LEFT_LAYOUT:
        s[PLAYER_ROW], s[PLAYER_COL] = GRID // 2, 0
    else:
        s[PLAYER_ROW], s[PLAYER_COL] = GRID // 2, GRID // 2
    s[SHOT_ON] = 0
    s[CRASHED] = 0
    s[LIVES] = s[START_LIVES]
    s[STEPS] = 0
    s[POWER] = 0
    s[REWARDS] = 0
    s[BONUSES] = 0
    s[DANGERS] = 0
    s[PELLETS] = 0
    s[TRAILS] = 0
    s[TERMINAL] = 0


@njit(cache=True)
def _along(s, value, step, vertical):
    """One player move along an axis: wrapped, or stopped at the edges (the free layout's rows stop at 1)."""
    free_row = s[LAYOUT] == FREE_LAYOUT and vertical
    if s[WRAP] and not free_row:
        return (value + step + GRID) % GRID
    low = 1 if free_row else 0
    return max(low, min(GRID - 1, value + step))


@njit(cache=True)
def _move_player(s, action):
    layout = s[LAYOUT]
    if layout != LEFT_LAYOUT:
        if action == LEFT:
            s[PLAYER_COL] = _along(s, s[PLAYER_COL], -1, False)
        elif action == RIGHT:
            s[PLAYER_COL] = _along(s, s[PLAYER_COL], 1, False)
    if layout != BOTTOM_LAYOUT:
        if action == UP:
            s[PLAYER_ROW] = _along(s, s[PLAYER_ROW], -1, True)
        elif action == DOWN:
            s[PLAYER_ROW] = _along(s, s[PLAYER_ROW], 1, True)


@njit(cache=True)
def _remove(s, base, index):
    """Remove object `index` of the kind at `base`, keeping the others in order."""
    count = s[base]
    for i in range(index, count - 1):
        for f in range(OBJECT):
            s[base + 1 + i * OBJECT + f] = s[base + 1 + (i + 1) * OBJECT + f]
    s[base] = count - 1


@njit(cache=True)
def _take_at_player(s, base):
    """Remove every object of the kind at `base` on the player's cell; how many."""
    kept = 0
    count = s[base]
    for i in range(count):
        at = base + 1 + i * OBJECT
        if s[at + ROW] == s[PLAYER_ROW] and s[at + COL] == s[PLAYER_COL]:
            continue
        if kept != i:
            for f in range(OBJECT):
                s[base + 1 + kept * OBJECT + f] = s[at + f]
        kept += 1
    s[base] = kept
    return count - kept


@njit(cache=True)
def _touch(s):
    reward = 0.0
    if s[HAS_REWARD]:
        reward += _take_at_player(s, REWARDS)
    if s[BONUS_VALUE]:
        reward += s[BONUS_VALUE] * _take_at_player(s, BONUSES)
    if s[POWER_STEPS] and _take_at_player(s, PELLETS) > 0:
        s[POWER] = s[POWER_STEPS]
    hits = _take_at_player(s, DANGERS)
    if s[POWER] > 0:
        reward += 2.0 * hits  # eaten while powered
    elif s[ENDING] == CRASH:
        if hits > 0:
            s[CRASHED] = 1
    elif s[ENDING] == LIVES_ENDING:
        s[LIVES] -= hits
    else:
        reward -= hits
    return reward


@njit(cache=True)
def _shot_hits_first(s, base):
    """Remove the first object of the kind at `base` on the shot's cell, and the shot; whether there was one."""
    for i in range(s[base]):
        at = base + 1 + i * OBJECT
        if s[at + ROW] == s[SHOT_ROW] and s[at + COL] == s[SHOT_COL]:
            _remove(s, base, i)
            s[SHOT_ON] = 0
            return True
    return False


@njit(cache=True)
def _hit_by_shot(s):
    if not s[SHOT_ON]:
        return 0.0
    if _shot_hits_first(s, DANGERS):
        return 1.0 if s[SHOTS_SCORE] else 0.0
    if s[HAS_REWARD] and _shot_hits_first(s, REWARDS):
        return 0.0
    if s[BONUS_VALUE]:
        _shot_hits_first(s, BONUSES)
    return 0.0


@njit(cache=True)
def _move_kind(s, base, motion, period, keys, positions, g):
    """Move each object of a kind in list order; drop those that left the grid (keeping the order)."""
    across = 0 if s[LAYOUT] == LEFT_LAYOUT else 1  # the sideways axis: rows when objects flow along them
    kept = 0
    for i in range(s[base]):
        at = base + 1 + i * OBJECT
        inside = True
        s[at + COUNTDOWN] -= 1
        if s[at + COUNTDOWN] <= 0:
            s[at + COUNTDOWN] = period
            if s[TRAIL]:
                t = s[TRAILS]
                s[TRAILS + 1 + 2 * t] = s[at + ROW]
                s[TRAILS + 2 + 2 * t] = s[at + COL]
                s[TRAILS] = t + 1
            if motion == DRIFT:
                s[at + COL] += s[at + SIDE]
                inside = 0 <= s[at + COL] < GRID
            else:
                if motion == ZIGZAG:
                    if not 0 <= s[at + across] + s[at + SIDE] < GRID:
                        s[at + SIDE] = -s[at + SIDE]
                    s[at + across] += s[at + SIDE]
                elif motion == CHASE:
                    if random_sample(keys, positions, g) < 0.5:
                        player = s[PLAYER_ROW] if across == 0 else s[PLAYER_COL]
                        if player > s[at + across]:
                            s[at + across] += 1
                        elif player < s[at + across]:
                            s[at + across] -= 1
                if s[LAYOUT] == LEFT_LAYOUT:
                    s[at + COL] -= 1
                    inside = s[at + COL] >= 0
                else:
                    s[at + ROW] += 1
                    inside = s[at + ROW] <= GRID - 1
        if inside:
            if kept != i:
                for f in range(OBJECT):
                    s[base + 1 + kept * OBJECT + f] = s[at + f]
            kept += 1
    s[base] = kept


@njit(cache=True)
def _occupied(s, base, row, col):
    for i in range(s[base]):
        at = base + 1 + i * OBJECT
        if s[at + ROW] == row and s[at + COL] == col:
            return True
    return False


@njit(cache=True)
def _spawn_kind(s, base, motion, period, chance, keys, positions, g):
    if not random_sample(keys, positions, g) < chance / 100.0:
        return
    side = 0
    if motion == DRIFT:
        side = 1 if random_sample(keys, positions, g) < 0.5 else -1
        row = bounded(keys, positions, g, 0, GRID - 1)
        col = 0 if side == 1 else GRID - 1
    elif s[LAYOUT] == LEFT_LAYOUT:
        row, col = bounded(keys, positions, g, 0, GRID - 1), GRID - 1
    else:
        row, col = 0, bounded(keys, positions, g, 0, GRID - 1)
    if motion == ZIGZAG:
        side = 1 if random_sample(keys, positions, g) < 0.5 else -1
    if row == s[PLAYER_ROW] and col == s[PLAYER_COL]:
        return
    if (s[HAS_REWARD] and _occupied(s, REWARDS, row, col)) or _occupied(s, DANGERS, row, col):
        return
    if s[POWER_STEPS] and _occupied(s, PELLETS, row, col):
        return
    if s[BONUS_VALUE] and _occupied(s, BONUSES, row, col):
        return
    at = base + 1 + s[base] * OBJECT
    s[at + ROW], s[at + COL], s[at + SIDE], s[at + COUNTDOWN] = row, col, side, period
    s[base] += 1


@njit(cache=True)
def step(s, action, keys, positions, g):
    reward = 0.0
    _move_player(s, action)
    if s[FIRES] and action == FIRE and not s[SHOT_ON]:
        s[SHOT_ON], s[SHOT_ROW], s[SHOT_COL] = 1, s[PLAYER_ROW], s[PLAYER_COL]
    reward += _touch(s)
    if s[FIRES]:
        if s[SHOT_ON]:
            if s[LAYOUT] == LEFT_LAYOUT:
                s[SHOT_COL] += 1
                gone = s[SHOT_COL] > GRID - 1
            else:
                s[SHOT_ROW] -= 1
                gone = s[SHOT_ROW] < 0
            if gone:
                s[SHOT_ON] = 0
                if s[SHOTS_SCORE]:
                    reward -= 1.0
        reward += _hit_by_shot(s)
    s[TRAILS] = 0
    if s[HAS_REWARD]:
        _move_kind(s, REWARDS, s[REWARD_MOTION], s[REWARD_PERIOD], keys, positions, g)
    if s[BONUS_VALUE]:
        _move_kind(s, BONUSES, s[BONUS_MOTION], s[BONUS_PERIOD], keys, positions, g)
    _move_kind(s, DANGERS, s[DANGER_MOTION], s[DANGER_PERIOD], keys, positions, g)
    if s[POWER_STEPS]:
        _move_kind(s, PELLETS, FALL, s[PELLET_PERIOD], keys, positions, g)
    if s[FIRES]:
        reward += _hit_by_shot(s)
    reward += _touch(s)
    if s[HAS_REWARD]:
        _spawn_kind(s, REWARDS, s[REWARD_MOTION], s[REWARD_PERIOD], s[REWARD_CHANCE], keys, positions, g)
    if s[BONUS_VALUE]:
        _spawn_kind(s, BONUSES, s[BONUS_MOTION], s[BONUS_PERIOD], s[BONUS_CHANCE], keys, positions, g)
    _spawn_kind(s, DANGERS, s[DANGER_MOTION], s[DANGER_PERIOD], s[DANGER_CHANCE], keys, positions, g)
    if s[POWER_STEPS]:
        _spawn_kind(s, PELLETS, FALL, s[PELLET_PERIOD], s[PELLET_CHANCE], keys, positions, g)
        if s[POWER] > 0:
            s[POWER] -= 1
    s[STEPS] += 1
    ending = s[ENDING]
    lost = (ending == CRASH and s[CRASHED] != 0) or (ending == LIVES_ENDING and s[LIVES] <= 0)
    s[TERMINAL] = 1 if lost or s[STEPS] >= s[MAX_STEPS] else 0
    return reward


@njit(cache=True)
def observe(s, active):
    count = put(active, 0, s[PLAYER_ROW], s[PLAYER_COL], PLAYER_OUT)
    for i in range(s[DANGERS]):
        at = DANGERS + 1 + i * OBJECT
        count = put(active, count, s[at + ROW], s[at + COL], DANGER_OUT)
    if s[HAS_REWARD]:
        for i in range(s[REWARDS]):
            at = REWARDS + 1 + i * OBJECT
            count = put(active, count, s[at + ROW], s[at + COL], REWARD_OUT)
    if s[BONUS_VALUE]:
        for i in range(s[BONUSES]):  # on the reward channel too: told apart by their motion
            at = BONUSES + 1 + i * OBJECT
            count = put(active, count, s[at + ROW], s[at + COL], REWARD_OUT)
    if s[FIRES] and s[SHOT_ON]:
        count = put(active, count, s[SHOT_ROW], s[SHOT_COL], SHOT_OUT)
    if s[POWER_STEPS]:
        for i in range(s[PELLETS]):  # on the projectile channel: a game with pellets fires nothing
            at = PELLETS + 1 + i * OBJECT
            count = put(active, count, s[at + ROW], s[at + COL], SHOT_OUT)
    if s[TRAIL]:
        for t in range(s[TRAILS]):
            count = put(active, count, s[TRAILS + 1 + 2 * t], s[TRAILS + 2 + 2 * t], TRAIL_OUT)
    cells = 0
    if s[GAUGE] == LIVES_GAUGE:
        cells = max(s[LIVES], 0)
    elif s[GAUGE] == TIME_GAUGE:
        cells = -(-(s[MAX_STEPS] - s[STEPS]) * GRID // s[MAX_STEPS])
    elif s[GAUGE] == POWER_GAUGE:
        cells = -(-s[POWER] * GRID // s[POWER_STEPS])
    for col in range(min(cells, GRID)):
        count = put(active, count, GRID - 1, col, GAUGE_OUT)
    return count
