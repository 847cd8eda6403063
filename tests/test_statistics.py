"""Intervals over tasks and episodes (`wspbench/statistics.py`): what they contain, pairing, coverage."""

import math

import numpy as np
import pytest

from wspbench.statistics import (
    Z95,
    Sample,
    aggregate_interval,
    difference_interval,
    episodes_for,
    mean_interval,
)
from wspbench.tasks.spec import Score


def _sample(generator, mean, n=200, cap=1.0):
    return Sample(tuple(float(v) for v in generator.binomial(1, mean, n) * cap), cap, tuple(range(n)))


def test_episodes_for_a_half_width_follows_the_normal_approximation():
    values = [0.0, 1.0] * 50  # sd 0.5025
    needed = episodes_for(values, 1.0, 0.01)
    sd = float(np.std(values, ddof=1))
    assert needed == math.ceil((Z95 * sd / 0.01) ** 2)
    low, high = mean_interval(values)
    assert (high - low) / 2 * math.sqrt(100 / needed) == pytest.approx(0.01, rel=1e-3)
    assert episodes_for([3.0] * 40, 10.0) == 40  # no spread: what was played is enough
    assert episodes_for([0.0, 10.0] * 500, 10.0, 0.01) == episodes_for([0.0, 1.0] * 500, 1.0, 0.01)  # per cap
    assert episodes_for([1.0], 1.0) is None  # one episode shows no spread
    assert episodes_for(values, 1.0, 0.01, available=needed) == needed
    assert episodes_for(values, 1.0, 0.01, available=needed - 1) is None  # more than the task has


def test_score_reports_half_width_and_episodes_needed():
    score = Score("t", normalized=0.5, raw=0.5, score_cap=1.0, episodes=tuple(range(4)), values=(0.0, 1.0, 0.0, 1.0))
    low, high = score.interval()
    assert score.half_width() == pytest.approx((high - low) / 2)
    data = score.to_json()
    assert data["half_width"] == score.half_width() and data["episodes_for_0.01"] == score.episodes_for(0.01)
    rejected = Score("t", normalized=0.0, raw=0.0, score_cap=1.0, error="no block")
    assert rejected.sample() == Sample((), 1.0) and rejected.episodes_for() == 0


def test_aggregate_interval_contains_the_mean_is_repeatable_and_narrows_when_tasks_agree():
    generator = np.random.default_rng(1)
    spread = [_sample(generator, m) for m in (0.1, 0.4, 0.6, 0.9)]
    alike = [_sample(generator, 0.5) for _ in range(4)]
    for samples in (spread, alike):
        mean = np.mean([np.mean(s.values) for s in samples])
        low, high = aggregate_interval(samples)
        assert low <= mean <= high
        assert aggregate_interval(samples) == (low, high)
    width = [np.subtract(*aggregate_interval(s)[::-1]) for s in (spread, alike)]
    assert width[1] < width[0] / 3
    assert aggregate_interval([Sample((0.25,) * 10, 1.0)] * 3) == (0.25, 0.25)
    assert aggregate_interval([Sample((), 1.0)] * 2) == (0.0, 0.0)  # a rejected answer is a certain 0


def test_difference_interval_pairs_episodes_played_on_the_same_seeds():
    generator = np.random.default_rng(2)
    base = [Sample(tuple(generator.uniform(0, 0.8, 100)), 1.0, tuple(range(100))) for _ in range(5)]
    shifted = [Sample(tuple(v + 0.1 for v in s.values), 1.0, s.episodes) for s in base]
    low, high = difference_interval(list(zip(shifted, base, strict=True)))
    assert low == pytest.approx(0.1) and high == pytest.approx(0.1)  # paired: the episode noise cancels
    unpaired = [Sample(s.values, 1.0, tuple(range(100, 200))) for s in shifted]
    low, high = difference_interval(list(zip(unpaired, base, strict=True)))
    assert low < 0.1 - 0.01 and high > 0.1 + 0.01
    with pytest.raises(ValueError):
        difference_interval([])


def test_aggregate_interval_covers_the_population_mean_about_95_percent_of_the_time():
    """Tasks drawn from a population (win rates uniform in 0.2..0.8, mean 0.5), 40 episodes each."""
    generator = np.random.default_rng(3)
    covered = 0
    trials = 200
    for _ in range(trials):
        samples = [_sample(generator, p, n=40) for p in generator.uniform(0.2, 0.8, 12)]
        low, high = aggregate_interval(samples)
        covered += low <= 0.5 <= high
    assert 0.87 <= covered / trials <= 0.99


def test_a_cap_measured_on_the_episodes_is_resampled_with_them():
    """Repair tasks: each episode's cap (the trained network's gain) is drawn with its value, so a reply equal to
    the trained network scores 1 in every resample, even in those where the trained network is not ahead."""
    caps = (2.0, -1.0, 0.5, 0.25)
    assert aggregate_interval([Sample(caps, 0.4375, (0, 1, 2, 3), caps)]) == (1.0, 1.0)
    low, high = aggregate_interval([Sample((0.0,) * 4, 0.4375, (0, 1, 2, 3), caps)])
    assert low == 0.0 and 0.0 < high <= 1.0  # no gain: 0, except where the resampled cap is not positive


def test_a_family_weighted_interval_counts_each_family_once():
    """Nine tasks scoring 1 and one scoring 0: over tasks the mean is 0.9, family-weighted (9 in one family,
    1 in another) it is 0.5; with one group the draws are the plain aggregate's."""
    tasks = [Sample((1.0, 1.0), 1.0)] * 9 + [Sample((0.0, 0.0), 1.0)]
    assert aggregate_interval(tasks, groups=["a"] * 10) == aggregate_interval(tasks)
    assert aggregate_interval(tasks, groups=["a"] * 9 + ["b"]) == pytest.approx((0.5, 0.5))
    with pytest.raises(ValueError):
        aggregate_interval(tasks, groups=["a"])
