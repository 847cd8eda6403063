"""The compiled policy's logits stay within their bound of the reference's, and its decisions equal the reference's."""

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.policy import (
    TANH_ERROR,
    UNIT,
    _tanh_into,
    bound,
    count_bounds,
    cumulative,
    decide,
    first_layer,
    global_bound,
    layer_arrays,
    prepare,
    rough_bound,
    scratch_arrays,
    upper_layers,
)
from wspbench.networks import MINATAR_NETWORK, softmax_cdf


@njit(cache=True)
def _logits(active, count, arrays):
    """The logits of one observation, the third row of a batch of five as the engine computes them (the other
    rows hold other sums), with the row's rough bound and its own bound."""
    layers, scratch = layer_arrays(5), scratch_arrays()
    layers[0][:] = 3.0
    first_layer(active, count, arrays, layers, 2)
    upper_layers(arrays, layers)
    margins = rough_bound(active, count, arrays, layers, 2, scratch), bound(active, count, arrays, layers, 2, scratch)
    return layers[4][2].copy(), margins[0], margins[1]


def _weights(seed, scale):
    generator = np.random.default_rng(seed)
    return {
        name: (generator.standard_normal(shape) * scale).astype(np.float32)
        for name, shape in MINATAR_NETWORK.shapes.items()
    }


def _observations(seed, rows):
    generator = np.random.default_rng(seed)
    return [np.flatnonzero(generator.random(600) < density) for density in generator.uniform(0, 0.2, rows)]


def test_bound_holds_against_forward_one():
    for seed, scale in enumerate((0.05, 0.6, 2.0, 30.0, 1e4)):
        weights = _weights(seed, scale)
        arrays = prepare(weights)
        for active in _observations(seed, 150):
            x = np.zeros(600, np.float32)
            x[active] = 1.0
            out, rough_margin, margin = _logits(active.astype(np.int64), len(active), arrays)
            exact = MINATAR_NETWORK.forward_one(weights, x)
            assert np.abs(out.astype(np.float64) - exact).max() <= margin, (seed, len(active))
            assert margin <= rough_margin * (1 + 1e-5), (seed, len(active))  # (float32 against float64 sums)


def test_compiled_tanh_is_within_one_unit_everywhere():
    """`benchmarks/tanh_error.py` checks every float32; this checks a million of them, spread over all
    exponents, and numpy's float32 tanh beside it (TANH_ERROR allows for both)."""
    bits = np.arange(0, 0x7F800000, 2131, dtype=np.uint32)
    for sign in (0, 0x80000000):
        z = (bits | np.uint32(sign)).view(np.float32)
        ours = np.zeros_like(z)
        _tanh_into(z, ours)
        exact = np.tanh(z.astype(np.float64))
        ours_error = np.abs(ours - exact).max()
        numpy_error = np.abs(np.tanh(z).astype(np.float64) - exact).max()
        assert ours_error <= UNIT
        assert ours_error + numpy_error <= TANH_ERROR


def test_decisions_next_to_every_boundary_equal_the_reference():
    """A draw on, or just beside, a cumulative boundary is either decided as the reference decides it or left
    undecided (-1), never decided differently."""
    weights = _weights(9, 1.0)
    arrays = prepare(weights)
    cdf = np.zeros(6)
    undecided = 0
    for active in _observations(9, 100):
        x = np.zeros(600, np.float32)
        x[active] = 1.0
        exact_cdf = softmax_cdf(MINATAR_NETWORK.forward_one(weights, x))
        out, _, margin = _logits(active.astype(np.int64), len(active), arrays)
        cumulative(out, cdf)
        for boundary in exact_cdf[:-1]:
            for offset in (-1e-6, -1e-9, -1e-15, 0.0, 1e-15, 1e-9, 1e-6, 1e-3):
                uniform = min(max(boundary + offset, 0.0), 1 - 2**-53)
                action = decide(cdf, margin, uniform)
                undecided += action < 0
                assert action < 0 or action == int(np.searchsorted(exact_cdf, uniform, side="right"))
    assert undecided > 0


def test_whole_program_bound_covers_every_rows_bound_and_logits():
    for seed, scale in enumerate((0.001, 0.02, 0.6, 5.0)):
        weights = _weights(seed, scale)
        arrays, whole = prepare(weights), global_bound(weights)
        for active in _observations(seed + 50, 100) + [np.arange(600)]:
            x = np.zeros(600, np.float32)
            x[active] = 1.0
            exact = MINATAR_NETWORK.forward_one(weights, x)
            out, _, margin = _logits(active.astype(np.int64), len(active), arrays)
            assert margin <= whole
            assert np.abs(out.astype(np.float64) - exact).max() <= whole


def test_the_bound_for_a_count_of_active_inputs_covers_every_row_with_that_count():
    """`count_bounds[k]` dominates the rough and the full bound of any observation with k active inputs (the
    ones with the largest weights included), so the bound-free logits are within it of the reference."""
    for seed, scale in enumerate((0.001, 0.02, 0.6, 5.0)):
        weights = _weights(seed, scale)
        arrays, bounds = prepare(weights), count_bounds(weights)
        heaviest = np.argsort(-np.abs(weights["W1"]).max(axis=1))
        observations = _observations(seed + 70, 100) + [np.sort(heaviest[:k]) for k in (1, 5, 33, 120, 600)]
        for active in observations:
            active = active.astype(np.int64)
            x = np.zeros(600, np.float32)
            x[active] = 1.0
            exact = MINATAR_NETWORK.forward_one(weights, x)
            out, rough_margin, margin = _logits(active, len(active), arrays)
            assert max(margin, rough_margin) <= bounds[len(active)]
            assert np.abs(out.astype(np.float64) - exact).max() <= bounds[len(active)]
        assert np.all(np.diff(bounds) >= 0)
