"""The weight-space search baseline (src/wspbench/baselines/search.py): it learns, plays only training episodes,
keeps to its budget and is reproducible."""

import numpy as np
import pytest

from tests.toy_family import SignTask
from wspbench.baselines.search import Budget, evolve
from wspbench.evaluation import DEFAULT
from wspbench.tasks import get_task


class Watched(SignTask):
    """The toy task, noting every episode the search plays."""

    played: list[int]

    def play(self, weights, episodes, grading=DEFAULT):
        self.played.extend(episodes)
        return super().play(weights, episodes, grading)


def test_the_search_learns_the_toy_task_on_training_episodes_only_within_its_budget():
    task = Watched()
    task.played = []
    budget = Budget(generations=40, population=8, episodes=8, sigma=0.3, learning_rate=0.05)
    weights, about = evolve(task, budget)
    assert about["episodes_played"] == len(task.played) == 40 * 8 * 8
    assert not set(task.played) & set(range(task.max_episodes))  # no scoring episode
    scoring = task.scoring_episodes(100)
    assert task.score(task.network.zeros(), scoring).normalized < 0.6
    assert task.score(weights, scoring).normalized >= 0.9
    assert len(about["curve"]) == 40 and about["budget"]["generations"] == 40


@pytest.mark.parametrize("task_id", ["original/breakout", "superbeam"])
def test_a_tiny_search_on_a_real_task_is_reproducible_and_a_network_of_its_shape(task_id):
    task = get_task(task_id)
    budget = Budget(generations=2, population=4, episodes=2)
    first, about = evolve(task, budget)
    again, _ = evolve(task, budget)
    assert about["episodes_played"] == 16
    for name, shape in task.network.shapes.items():
        assert first[name].shape == shape and first[name].dtype == task.network.dtype
        assert np.array_equal(first[name], again[name])
    assert task.score(first, task.scoring_episodes(2)).error is None


def test_a_budget_is_checked():
    with pytest.raises(ValueError, match="even population"):
        Budget(population=5)


def test_cma_search_starts_from_the_best_constant_action_and_plays_only_training_levels():
    """CMA-ES (src/wspbench/baselines/cma_search.py) on SUPERBEAM with a tiny budget: its result is never worse
    than where it started, by the task's own order, and it never plays a held-out level."""
    pytest.importorskip("cma")
    from wspbench.baselines import cma_search

    task = get_task("superbeam")
    played = []
    real = task.score

    def watched(weights, episodes=None, *more):
        played.extend(episodes)
        return real(weights, episodes, *more)

    task_watched = type(task).__new__(type(task))
    task_watched.__dict__.update(task.__dict__)
    task_watched.score = watched
    budget = cma_search.Budget(evaluations=8, population=4)
    weights, about = cma_search.search(task_watched, budget)
    assert about["start_action"] == 4 and about["start_key"] == [4, 0.575]  # holding 4 wins 4 of the 10 levels
    assert tuple(about["best_key"]) >= tuple(about["start_key"]) and about["evaluations"] == 8
    assert set(played) == set(task.training_episodes(10)) and not set(played) & set(task.scoring_episodes())
    assert {name: w.shape for name, w in weights.items()} == task.network.shapes
    again, _ = cma_search.search(task, budget)
    assert all((weights[name] == again[name]).all() for name in weights)  # its seed makes it reproducible
    with pytest.raises(ValueError, match="at most"):
        cma_search.search(get_task("original/breakout"), budget)
