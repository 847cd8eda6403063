"""One hand-written program for every generated game: toward reward, away from danger, fire when a danger is in line.

Issue 49's generic floor. A generated module states its layout (the player moves along the bottom row, the left
column, or the whole grid) and whether action 5 fires; this program reads those two facts and nothing else of the
game, so what it scores is what a model gets from the family's shared idea without reading the game's own rules.

How the network computes it (600-32-32-6, tanh). Along each axis the player moves on, ten layer-1 units, one per
position p of the player on that axis: unit p's input is STRONG when the player is at p and 0 otherwise, minus
STRONG, plus a pull from every reward and a push from every near danger (by their offset from p along the axis). So
the nine units of the positions the player is not at sit at -1, and the one it is at says which way to go: tanh(pull
- push), positive toward the axis's higher end (in a game that fires, far dangers pull too: targets). One layer-2
unit per axis sums the ten (plus 9, so that it reads the one that counts), and the logits of the axis's two moves
get it with opposite signs. Fire works alike: ten units, one per player position, each counting the dangers in the
line a shot flies along from there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wspbench.games.minatar import CHANNEL_NAMES
from wspbench.networks import Weights

GRID = 10
PLAYER, DANGER, REWARD = (CHANNEL_NAMES.index(name) for name in ("player", "danger", "reward"))
NOOP, LEFT, UP, RIGHT, DOWN, FIRE = range(6)
STRONG = 30.0  # the player's input to the unit of its own position, and every unit's bias against it
SUM = 0.2  # a layer-2 unit's weight on each unit it sums (small: it stays nearly linear)


@dataclass(frozen=True)
class Settings:
    """The program's few numbers (`benchmarks/generic_program.py` chose them on the public family)."""

    decay: float = 0.9  # a reward's pull falls by this factor per cell of distance along the axis and across it
    danger_gain: float = 6.0  # a near danger's push
    danger_reach: int = 1  # ... from at most this many cells along the axis
    ramp: float = 4.0  # ... weighted by closeness across the axis, to this power: the dangers about to arrive
    hunt: float = 1.0  # in a game that fires, a far danger's pull (a target to line up with), like a reward's
    vote: float = 4.0  # the logit a move gets at full conviction
    fire_vote: float = 10.0  # the fire logit at full conviction
    fire_bias: float = 0.3  # fire only when the dangers in line outweigh this


@dataclass(frozen=True)
class Axis:
    """An axis the player moves along: the moves toward its lower and higher end, and where an object is along it
    and across it (how far from the player's line; None where the layout has no line: the free layout)."""

    lower: int
    higher: int
    along: int  # 0: the object's row, 1: its column
    line: int | None  # the player's line: the row (along = column) or column (along = row) it moves on


AXES = {
    "bottom": (Axis(LEFT, RIGHT, along=1, line=GRID - 1),),
    "left": (Axis(UP, DOWN, along=0, line=0),),
    "free": (Axis(LEFT, RIGHT, along=1, line=None), Axis(UP, DOWN, along=0, line=None)),
}
SHOTS = {"bottom": (-1, 0), "left": (0, 1), "free": (-1, 0)}  # the step a shot takes: up, or right


def index(row: int, column: int, channel: int) -> int:
    return (row * GRID + column) * len(CHANNEL_NAMES) + channel


def program(layout: str, fires: bool, settings: Settings = Settings()) -> Weights:
    """The weights for a generated game of this layout (`generator.LAYOUTS`) that fires or not."""
    w1, b1 = np.zeros((600, 32)), np.zeros(32)
    w2, b2 = np.zeros((32, 32)), np.zeros(32)
    w3, b3 = np.zeros((32, 6)), np.zeros(6)
    unit = 0
    for k, axis in enumerate(AXES[layout]):
        for p in range(GRID):
            for row in range(GRID):
                for column in range(GRID):
                    along, across_at = (row, column)[axis.along], (row, column)[1 - axis.along]
                    if along == p:
                        w1[index(row, column, PLAYER), unit] = STRONG
                    across = abs(across_at - axis.line) if axis.line is not None else 0
                    offset = along - p
                    pull = settings.decay ** (abs(offset) + across)
                    w1[index(row, column, REWARD), unit] += np.sign(offset) * pull
                    if fires and across > settings.danger_reach + 1:
                        w1[index(row, column, DANGER), unit] += settings.hunt * np.sign(offset) * pull
                    if abs(offset) <= settings.danger_reach:
                        closeness = ((GRID - across) / GRID) ** settings.ramp
                        away = np.sign(offset) if offset else (1.0 if p < GRID / 2 else -1.0)
                        w1[index(row, column, DANGER), unit] -= away * settings.danger_gain * closeness
            b1[unit] = -STRONG
            w2[unit, k] = SUM
            unit += 1
        b2[k] = SUM * (GRID - 1)
        w3[k, axis.higher], w3[k, axis.lower] = settings.vote / SUM, -settings.vote / SUM
    if fires:
        fire_unit = len(AXES[layout])
        step = SHOTS[layout]
        line_axis = AXES[layout][0]
        for p in range(GRID):
            for row in range(GRID):
                for column in range(GRID):
                    if (row, column)[line_axis.along] == p:
                        w1[index(row, column, PLAYER), unit] = STRONG
                        if _ahead(row, column, step, line_axis):
                            w1[index(row, column, DANGER), unit] = 1.0
            b1[unit] = -STRONG - settings.fire_bias
            w2[unit, fire_unit] = SUM
            unit += 1
        b2[fire_unit] = SUM * (GRID - 1)
        w3[fire_unit, FIRE] = settings.fire_vote / SUM
    return {
        name: array.astype(np.float32)
        for name, array in {"W1": w1, "b1": b1, "W2": w2, "b2": b2, "W3": w3, "b3": b3}.items()
    }


def _ahead(row: int, column: int, step: tuple[int, int], axis: Axis) -> bool:
    """Whether a cell lies on a shot's path from the player's line (not on the line itself)."""
    if axis.line is None:
        return True  # the free layout: any row of the column may be ahead of the player
    distance = (row, column)[1 - axis.along] - axis.line
    return distance != 0 and np.sign(distance) == np.sign(step[0] + step[1])


def for_game(game: str, settings: Settings = Settings()) -> Weights:
    """The program for a shipped generated game, from the two facts its module states (`generated.json`)."""
    from wspbench.tasks.minatar import generated_calibration

    mechanics = generated_calibration()[game]["mechanics"]
    return program(mechanics["layout"], mechanics["fire"], settings)
