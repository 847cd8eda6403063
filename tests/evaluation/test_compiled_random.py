"""The compiled MT19937 stream equals numpy's legacy RandomState, draw for draw (over a million draws)."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.mt19937 import WORDS, bounded, randint, random_sample, seed

SEEDS = [0, 1, 2, 1729, 7919, 123456789, 2**31 - 1, 2**32 - 1] + list(range(1729, 1729 + 40))


@njit(cache=True)
def _draws(value, counts):
    """The draws the games make, in one stream: doubles, randint(n) for n = 1..12, randint(1, 6) x 8, rand(8)."""
    keys = np.zeros((1, WORDS), np.uint32)
    positions = np.zeros(1, np.int64)
    seed(keys, positions, 0, value)
    doubles = np.empty(counts, np.float64)
    integers = np.empty((counts, 12), np.int64)
    speeds = np.empty((counts, 8), np.int64)
    for k in range(counts):
        doubles[k] = random_sample(keys, positions, 0)
        for n in range(1, 13):
            integers[k, n - 1] = randint(keys, positions, 0, 0, n)
        for car in range(8):
            speeds[k, car] = bounded(keys, positions, 0, 1, 4)
    return doubles, integers, speeds, keys[0].copy(), positions[0]


def _numpy_draws(value, counts):
    generator = np.random.RandomState(value)
    doubles, integers, speeds = np.empty(counts), np.empty((counts, 12), np.int64), np.empty((counts, 8), np.int64)
    for k in range(counts):
        doubles[k] = generator.random_sample()
        for n in range(1, 13):
            integers[k, n - 1] = generator.randint(n)
        speeds[k] = generator.randint(1, 6, 8)
    _, key, position, _, _ = generator.get_state()
    return doubles, integers, speeds, key, position


def test_seeding_equals_randomstate():
    keys, positions = np.zeros((1, WORDS), np.uint32), np.zeros(1, np.int64)
    for value in SEEDS:
        seed(keys, positions, 0, value)
        _, key, position, _, _ = np.random.RandomState(value).get_state()
        assert (keys[0] == key).all() and positions[0] == position


def test_a_million_draws_equal_numpy():
    """48 seeds x 1000 rounds x 21 calls (about 1.3 million 32-bit words): doubles, randint(n), randint(1, 6, 8)."""
    for value in SEEDS:
        ours = _draws(value, 1000)
        theirs = _numpy_draws(value, 1000)
        for mine, numpys in zip(ours, theirs, strict=True):
            assert np.array_equal(mine, numpys), value


def test_rand_arrays_and_low_high_forms():
    keys, positions = np.zeros((1, WORDS), np.uint32), np.zeros(1, np.int64)
    for value in SEEDS[:10]:
        generator = np.random.RandomState(value)
        seed(keys, positions, 0, value)
        expected = generator.rand(8).tolist() + [int(generator.randint(low=1, high=9)) for _ in range(200)]
        got = [random_sample(keys, positions, 0) for _ in range(8)] + [
            randint(keys, positions, 0, 1, 9) for _ in range(200)
        ]
        assert got == expected
