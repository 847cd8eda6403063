"""The generic program (issue 49's floor): one network per layout that goes toward reward, away from danger and
fires when a danger is in line, read off its logits on hand-made screens."""

import numpy as np
import pytest

from wspbench.baselines import generic
from wspbench.networks import MINATAR_NETWORK


def logits(weights, cells):
    x = np.zeros(600, np.float32)
    for row, column, channel in cells:
        x[generic.index(row, column, generic.CHANNEL_NAMES.index(channel))] = 1.0
    return MINATAR_NETWORK.forward_one(weights, x)


@pytest.mark.parametrize("layout", ["bottom", "left", "free"])
@pytest.mark.parametrize("fires", [False, True])
def test_every_layout_gets_a_network_of_the_task_shape(layout, fires):
    weights = generic.program(layout, fires)
    assert {name: w.shape for name, w in weights.items()} == MINATAR_NETWORK.shapes
    assert all(w.dtype == np.float32 and np.isfinite(w).all() for w in weights.values())


def test_on_the_bottom_row_it_goes_toward_a_reward_and_away_from_a_danger_above_it():
    weights = generic.program("bottom", fires=False)
    toward = logits(weights, [(9, 4, "player"), (5, 7, "reward")])
    assert toward[generic.RIGHT] > toward[generic.NOOP] > toward[generic.LEFT]
    away = logits(weights, [(9, 4, "player"), (8, 5, "danger")])
    assert away[generic.LEFT] > away[generic.NOOP] > away[generic.RIGHT]


def test_it_fires_only_when_a_danger_is_in_the_shots_line():
    weights = generic.program("left", fires=True)
    assert logits(weights, [(3, 0, "player"), (3, 6, "danger")])[generic.FIRE] > 0
    assert logits(weights, [(3, 0, "player"), (4, 6, "danger")])[generic.FIRE] < 0
