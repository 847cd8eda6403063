"""numpy's legacy `RandomState` stream, draw for draw, as compiled functions.

A generator is one row `g` of `keys` (uint32, 624 words) and `positions[g]` (the next word to temper; 624
means "twist first"). Seeding follows `RandomState(seed)` for an int seed, doubles are the legacy 53-bit
`random_sample` (two 32-bit words), and bounded integers are numpy's legacy masked rejection sampling, which
draws one 32-bit word per try for ranges below 2**32 and draws nothing when the range holds one value.
"""

from __future__ import annotations

import numpy as np
from numba import njit

WORDS = 624
SHIFT = 397
MATRIX_A = 0x9908B0DF
UPPER = 0x80000000
LOWER = 0x7FFFFFFF
LOW32 = 0xFFFFFFFF


@njit(cache=True)
def seed(keys, positions, g, value):
    """Put generator `g` in the state of `RandomState(value)` (0 <= value < 2**32)."""
    seed_pair(keys, positions, g, value, g, value)


@njit(cache=True)
def seed_pair(keys, positions, g, value, h, other):
    """`seed(g, value)` and `seed(h, other)` at once: each word of a seed follows from the one before, so one
    chain waits on its multiplications; two interleaved chains take little longer than one (an episode
    seeds its game's and its actions' generators, and short episodes spend much of their time here)."""
    word = np.uint64(value) & np.uint64(LOW32)
    word2 = np.uint64(other) & np.uint64(LOW32)
    keys[g, 0] = np.uint32(word)
    keys[h, 0] = np.uint32(word2)
    for index in range(1, WORDS):
        word = (np.uint64(1812433253) * (word ^ (word >> np.uint64(30))) + np.uint64(index)) & np.uint64(LOW32)
        word2 = (np.uint64(1812433253) * (word2 ^ (word2 >> np.uint64(30))) + np.uint64(index)) & np.uint64(LOW32)
        keys[g, index] = np.uint32(word)
        keys[h, index] = np.uint32(word2)
    positions[g] = WORDS
    positions[h] = WORDS


@njit(cache=True)
def _mix(keys, g, index, following, shifted):
    mixed = (np.uint64(keys[g, index]) & np.uint64(UPPER)) | (np.uint64(keys[g, following]) & np.uint64(LOWER))
    value = np.uint64(keys[g, shifted]) ^ (mixed >> np.uint64(1))
    return value ^ (np.uint64(MATRIX_A) * (mixed & np.uint64(1)))


@njit(cache=True)
def twist(keys, g):
    """The next 624 words, in three runs without wrap-around indices (so that the loops vectorize)."""
    for index in range(WORDS - SHIFT):
        keys[g, index] = np.uint32(_mix(keys, g, index, index + 1, index + SHIFT))
    for index in range(WORDS - SHIFT, WORDS - 1):
        keys[g, index] = np.uint32(_mix(keys, g, index, index + 1, index + SHIFT - WORDS))
    keys[g, WORDS - 1] = np.uint32(_mix(keys, g, WORDS - 1, 0, SHIFT - 1))


@njit(cache=True, inline="always")
def _temper(word):
    """MT19937's output function of one state word (as uint64)."""
    y = np.uint64(word)
    y ^= y >> np.uint64(11)
    y ^= (y << np.uint64(7)) & np.uint64(0x9D2C5680)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    y ^= y >> np.uint64(18)
    return y & np.uint64(LOW32)


@njit(cache=True)
def next_word(keys, positions, g):
    """The next tempered 32-bit output (as uint64)."""
    if positions[g] >= WORDS:
        twist(keys, g)
        positions[g] = 0
    position = positions[g]
    positions[g] = position + 1
    return _temper(keys[g, position])


@njit(cache=True)
def random_sample(keys, positions, g):
    """`RandomState.random_sample()` (and `rand()`): a double in [0, 1) with 53 random bits, from two words
    (read together when no twist comes between them: one position update instead of two)."""
    position = positions[g]
    if position + 2 <= WORDS:
        positions[g] = position + 2
        high = _temper(keys[g, position]) >> np.uint64(5)
        low = _temper(keys[g, position + 1]) >> np.uint64(6)
    else:
        high = next_word(keys, positions, g) >> np.uint64(5)
        low = next_word(keys, positions, g) >> np.uint64(6)
    return (float(high) * 67108864.0 + float(low)) / 9007199254740992.0


@njit(cache=True)
def bounded(keys, positions, g, low, span):
    """One legacy `randint` value in [low, low + span] (inclusive, 0 <= span < 2**32): masked rejection."""
    if span == 0:
        return low
    mask = np.uint64(span)
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    while True:
        value = next_word(keys, positions, g) & mask
        if value <= np.uint64(span):
            return low + np.int64(value)


@njit(cache=True)
def randint(keys, positions, g, low, high):
    """`RandomState.randint(low, high)`, one value in [low, high)."""
    return bounded(keys, positions, g, low, high - 1 - low)
