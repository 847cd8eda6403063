"""The 600-32-32-6 tanh policy on sparse observations, with a rigorous bound on its distance to the reference.

The logits of a batch of observations are computed in two steps: `first_layer` writes one row's first-layer
sums (b1 plus the sum of the W1 rows of its active inputs), then `upper_layers` takes every row through tanh
and layers 2 and 3 at once, as two matrix products (one per layer for the whole batch, which are several
times faster than a row's own 32x32 product: LLVM does not vectorize loops as short as 32). Three bounds on a
row's distance to the reference's one-row numpy computation (`Network.forward_one`, whose float32 rounding
order is BLAS's) then follow from cheap to tight, each read off the sums the two steps left in the layer
arrays: `count_bounds` holds for every observation with the same number of active inputs (computed once per
network), `rough_bound` for one row without any product with |W|, and `bound` for one row as below.
`cumulative` and `decide` then say which action a uniform draw picks, or that it lies so close to a
cumulative-probability boundary that the reference could pick another; the engine tries the bounds in that
order until one decides.
All are compiled with error_model="numpy": without Python's zero-division checks the loops vectorize.

The bound, per unit and layer, in units of u = 2**-24 (float32 rounding):
- A dot product of k non-zero terms plus a bias, summed in any order, with or without FMA, is within
  gamma(k + 1) * (sum |a_i w_i| + |b|) of the exact value, gamma(n) = n u / (1 - n u). Ours and the
  reference's are both within that of the same exact value (the inputs are the same exact 0/1 values in
  layer 1), so they differ by at most 2 gamma(k + 2) * (sum |a_i w_i| + |b|), plus 2 u |z| for safety in
  the last rounding, exactly the `fast` engine's term (`wspbench.networks.BatchedForward`). Layer 1 has
  k = the number of active inputs; layers 2 and 3 take k = 32, all of them.
- A difference e carried in from the layer below reaches the sums through |W| (sum e_i |w_i|), and the
  cross term gamma * e |w| is covered by SAFETY. These non-negative bound sums are accumulated in float32
  (for speed); their relative rounding error, at most gamma(34) < 3e-6, is covered by SAFETY too.
- tanh: |tanh z - tanh z'| <= e * max slope over the interval of doubt. The slope of tanh at distance >= s
  from 0 is 1 - tanh(s)^2, and tanh(|z| - e) >= |h| - e - TANH_ERROR (tanh is 1-Lipschitz; h is our
  rounded tanh), so the slope is at most 1 - max(|h| - e - TANH_ERROR, 0)^2 and no second tanh is needed.
  Both tanh implementations add their own error: + TANH_ERROR = 32 u (ours is within 1 u, numpy's float32
  tanh within a few ulps; `BatchedForward` allows 16 u).
- A cumulative probability moves by at most d / 2 when every logit moves by at most d; the engine treats
  a draw within d (SAFETY times the largest logit bound) plus 1e-12 (the float64 softmax rounding of both
  sides) of a boundary as undecided, exactly as the `fast` engine does.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

HIDDEN = 32
ACTIONS = 6
UNIT = 2.0**-24
SAFETY = 1.01
CDF_SLACK = 1e-12
TANH_ERROR = 32 * UNIT  # ours (<= 1 u) plus numpy's float32 tanh (a few ulps), with room to spare


@njit(cache=True)
def _gamma(terms):
    return terms * UNIT / (1 - terms * UNIT)


@njit(cache=True, error_model="numpy", fastmath={"contract"})  # no zero-division branch: the loop vectorizes
def _tanh_into(z, h):
    """h = tanh(z) in float32, within 1 u of the exact value, with no library call so that the loop vectorizes.

    tanh|z| = (1 - q) / (1 + q) with q = exp(-2|z|), all in float64. |z| is clamped to 9.5 (beyond it tanh is
    within 1.2e-8 of 1, less than u / 4), so x = -2|z| / 32 lies in [-0.594, 0]; exp(x) by its Taylor series to
    degree 10 is within 1.5e-10 (relative) of exact, and squaring it five times (q = exp(x)^32) multiplies
    that by 32: 4.8e-9. A relative error d in q moves tanh by at most 2 q d / (1 + q)^2 <= d / 2, so before the
    final rounding to float32 (u / 2 at most) the result is within 2.4e-9 = 0.04 u of tanh(min(|z|, 9.5)).
    `benchmarks/tanh_error.py` checks every float32 input."""
    for j in range(z.shape[0]):
        x = min(abs(np.float64(z[j])), 9.5) * (-2.0 / 32.0)
        p = 1.0 / 3628800.0
        p = p * x + 1.0 / 362880.0
        p = p * x + 1.0 / 40320.0
        p = p * x + 1.0 / 5040.0
        p = p * x + 1.0 / 720.0
        p = p * x + 1.0 / 120.0
        p = p * x + 1.0 / 24.0
        p = p * x + 1.0 / 6.0
        p = p * x + 0.5
        p = p * x + 1.0
        p = p * x + 1.0
        for _ in range(5):
            p = p * p
        t = (1.0 - p) / (1.0 + p)
        h[j] = np.float32(t if z[j] >= 0 else -t)


@njit(cache=True, error_model="numpy")
def _propagate(h, error):
    """The bound after tanh (see the module docstring): `error` bounds the sums' distance before it, h = tanh."""
    for j in range(h.shape[0]):
        reach = max(abs(np.float64(h[j])) - error[j] - TANH_ERROR, 0.0)
        error[j] = error[j] * max(1.0 - reach * reach, 0.0) + TANH_ERROR


@njit(cache=True, error_model="numpy", fastmath={"reassoc", "contract"})
def _add_rows(w, b, active, count, z):
    """z = b plus the rows `active[:count]` of w (layer 1), four rows at a time: each pass loads and stores z
    once, so the loop waits on memory a quarter as often. The inner loops run to `z.shape[0]`, not to the
    constant 32: LLVM then vectorizes them behind a run-time overlap check (a constant count is unrolled into
    scalar code, about 4x slower)."""
    units = z.shape[0]
    for j in range(units):
        z[j] = b[j]
    t = 0
    while t + 4 <= count:
        r0, r1, r2, r3 = w[active[t]], w[active[t + 1]], w[active[t + 2]], w[active[t + 3]]
        for j in range(units):
            z[j] += (r0[j] + r1[j]) + (r2[j] + r3[j])
        t += 4
    while t < count:
        row = w[active[t]]
        for j in range(units):
            z[j] += row[j]
        t += 1


@njit(cache=True, error_model="numpy", fastmath={"reassoc", "contract"})
def _add_bias(z, b):
    """z[row] += b for every row (row by row: one flat loop needs a modulo per element, which cost more than
    the matrix product)."""
    for r in range(z.shape[0]):
        row = z[r]
        for j in range(b.shape[0]):
            row[j] += b[j]


@njit(cache=True, error_model="numpy", fastmath={"reassoc", "contract"})
def _dense_error(h, carried, abs_wt, abs_b, z, error, spread):
    """The bound on a layer's sums z (`upper_layers`) against the reference's (see the module docstring)."""
    weight = 2 * _gamma(h.shape[0] + 2)
    for i in range(h.shape[0]):
        spread[i] = np.float32(weight * abs(np.float64(h[i])) + carried[i])
    for j in range(z.shape[0]):
        abs_row = abs_wt[j]
        bound = np.float32(0.0)
        for i in range(h.shape[0]):
            bound += spread[i] * abs_row[i]
        error[j] = np.float64(bound) + weight * abs_b[j] + 2 * UNIT * abs(np.float64(z[j]))


@njit(cache=True, error_model="numpy")
def _rough_error(h, carried, column_sum, abs_b, z, error):
    """`_dense_error` with sum_i (2 gamma |h_i| + e_i) |w_ij| bounded by max_i (...) * sum_i |w_ij|."""
    weight = 2 * _gamma(h.shape[0] + 2)
    reach = 0.0
    for i in range(h.shape[0]):
        reach = max(reach, weight * abs(np.float64(h[i])) + carried[i])
    for j in range(z.shape[0]):
        error[j] = reach * column_sum[j] + weight * abs_b[j] + 2 * UNIT * abs(np.float64(z[j]))


@njit(cache=True, error_model="numpy")
def _largest(error):
    largest = 0.0
    for j in range(error.shape[0]):
        largest = max(largest, error[j])
    return SAFETY * largest


@njit(cache=True)
def layer_arrays(rows):
    """The layers of `rows` observations: the sums z1, activations h1, sums z2, activations h2 and logits, one
    row per observation, in float32 (the types the products and the reference use)."""
    return (
        np.zeros((rows, HIDDEN), np.float32),
        np.zeros((rows, HIDDEN), np.float32),
        np.zeros((rows, HIDDEN), np.float32),
        np.zeros((rows, HIDDEN), np.float32),
        np.zeros((rows, ACTIONS), np.float32),
    )


@njit(cache=True)
def scratch_arrays():
    """What the bounds of one row work in: layer 1's sum of |w| (float32), each layer's bound (float64) and
    `_dense_error`'s spread (float32)."""
    s1 = np.zeros(HIDDEN, np.float32)
    e1 = np.zeros(HIDDEN, np.float64)
    e2 = np.zeros(HIDDEN, np.float64)
    e3 = np.zeros(ACTIONS, np.float64)
    spread = np.zeros(HIDDEN, np.float32)
    return s1, e1, e2, e3, spread


@njit(cache=True, error_model="numpy")
def first_layer(active, count, weights, layers, row):
    """Row `row`'s first-layer sums: b1 plus the W1 rows of its active inputs `active[:count]`."""
    _add_rows(weights[0], weights[2], active, count, layers[0][row])


@njit(cache=True, error_model="numpy")
def upper_layers(weights, layers):
    """Every row's activations and logits from its first-layer sums: tanh, then layer 2 and layer 3 each as
    one matrix product over all rows (BLAS's sgemm: float32 sums in some order, which the bound allows; the
    engine holds BLAS to one thread) plus the bias."""
    _, _, _, _, w2, _, b2, _, w3, _, b3, _, _, _, _ = weights
    z1, h1, z2, h2, out = layers
    _tanh_into(z1.reshape(-1), h1.reshape(-1))
    np.dot(h1, w2, z2)
    _add_bias(z2, b2)
    _tanh_into(z2.reshape(-1), h2.reshape(-1))
    np.dot(h2, w3, out)
    _add_bias(out, b3)


@njit(cache=True, error_model="numpy")
def rough_bound(active, count, weights, layers, row, scratch):
    """A bound on the distance of row `row`'s logits (`upper_layers`' last result) to the reference's, looser
    than `bound`'s but with no product with |W|: each sum over inputs of (carried error) * |w| is bounded by
    the largest carried error times the sum of |w| over the whole column (`prepare`), and layer 1's sum of |w|
    over the active rows by the sum of each active row's largest |w|. Every term dominates its `bound`
    counterpart, so this bound holds whenever that one does. Returns SAFETY * max bound."""
    _, _, _, abs_b1, _, _, _, abs_b2, _, _, _, abs_b3, row_max, column_sum2, column_sum3 = weights
    z1, h1, z2, h2, out = layers[0][row], layers[1][row], layers[2][row], layers[3][row], layers[4][row]
    _, e1, e2, e3, _ = scratch
    rows = 0.0
    for t in range(count):
        rows += row_max[active[t]]
    weight = 2 * _gamma(count + 2)
    for j in range(z1.shape[0]):
        e1[j] = weight * (rows + abs_b1[j]) + 2 * UNIT * abs(np.float64(z1[j]))
    _propagate(h1, e1)
    _rough_error(h1, e1, column_sum2, abs_b2, z2, e2)
    _propagate(h2, e2)
    _rough_error(h2, e2, column_sum3, abs_b3, out, e3)
    return _largest(e3)


@njit(cache=True, error_model="numpy")
def bound(active, count, weights, layers, row, scratch):
    """The bound of the module docstring on the distance of row `row`'s logits to the reference's.
    Returns SAFETY * max bound."""
    _, abs_w1, _, abs_b1, _, abs_w2t, _, abs_b2, _, abs_w3t, _, abs_b3, _, _, _ = weights
    z1, h1, z2, h2, out = layers[0][row], layers[1][row], layers[2][row], layers[3][row], layers[4][row]
    s1, e1, e2, e3, spread = scratch
    _add_rows(abs_w1, abs_b1, active, count, s1)
    weight = 2 * _gamma(count + 2)
    for j in range(z1.shape[0]):
        e1[j] = weight * np.float64(s1[j]) + 2 * UNIT * abs(np.float64(z1[j]))
    _propagate(h1, e1)
    _dense_error(h1, e1, abs_w2t, abs_b2, z2, e2, spread)
    _propagate(h2, e2)
    _dense_error(h2, e2, abs_w3t, abs_b3, out, e3, spread)
    return _largest(e3)


def global_bound(weights) -> float:
    """The largest value `bound` can return for any observation: its formula with every input
    at its worst (600 active inputs, |h| = 1, tanh slopes 1, |z| at most sum |w| + |b|), in float64, times
    SAFETY once more for the rounding of these sums."""

    def dense(carried, h_terms, w, b, k):
        weight = 2 * (k * UNIT / (1 - k * UNIT))
        abs_w, abs_b = np.abs(w.astype(np.float64)), np.abs(b.astype(np.float64))
        z_top = h_terms @ abs_w + abs_b
        return (weight * h_terms + carried) @ abs_w + weight * abs_b + 2 * UNIT * z_top * (1 + 1e-6)

    ones = np.ones(HIDDEN)
    e1 = dense(np.zeros(600), np.ones(600), weights["W1"], weights["b1"], 602) + TANH_ERROR
    e2 = dense(e1, ones, weights["W2"], weights["b2"], HIDDEN + 2) + TANH_ERROR
    e3 = dense(e2, ones, weights["W3"], weights["b3"], HIDDEN + 2)
    return float(SAFETY * SAFETY * e3.max())


def count_bounds(weights) -> np.ndarray:
    """For each count k of active inputs (0 to 600), the largest value `rough_bound` (hence `bound`) can return
    for any observation with k active inputs: its formula with the k largest of each sum over active rows (row
    maxima, and each column's |w|), |h| = 1 and tanh slopes 1, in float64, times SAFETY once more for the
    rounding of these sums. A draw farther than `bounds[k]` from every boundary is decided without computing
    the row's own bound: a network's few active inputs give a far narrower bound than `global_bound`'s 600
    (dense trained networks: about 1e-4)."""
    w1 = np.abs(np.asarray(weights["W1"], dtype=np.float32).astype(np.float64))
    b1 = np.abs(np.asarray(weights["b1"], dtype=np.float32).astype(np.float64))
    k = np.arange(w1.shape[0] + 1, dtype=np.float64)[:, None]
    rows = np.concatenate([[0.0], np.cumsum(np.sort(w1.max(axis=1))[::-1])])[:, None]  # the k largest row maxima
    columns = np.vstack([np.zeros(w1.shape[1]), np.cumsum(-np.sort(-w1, axis=0), axis=0)])  # each column's top k
    weight = 2 * ((k + 2) * UNIT / (1 - (k + 2) * UNIT))
    e1 = weight * (rows + b1) + 2 * UNIT * (columns + b1) * (1 + weight) + TANH_ERROR
    carried = e1.max(axis=1, keepdims=True)
    for name, bias in (("W2", "b2"), ("W3", "b3")):
        abs_w = np.abs(np.asarray(weights[name], dtype=np.float32).astype(np.float64))
        abs_b = np.abs(np.asarray(weights[bias], dtype=np.float32).astype(np.float64))
        column_sum = abs_w.sum(axis=0)
        inner = 2 * _gamma.py_func(HIDDEN + 2)
        error = (inner + carried) * column_sum + inner * abs_b + 2 * UNIT * (column_sum + abs_b) * (1 + 1e-6)
        carried = error.max(axis=1, keepdims=True) + (TANH_ERROR if name == "W2" else 0.0)
    return SAFETY * SAFETY * carried[:, 0]


@njit(cache=True, error_model="numpy")
def cumulative(out, cdf):
    """`cdf[k]` = the sum of exp(logit - top) over actions 0..k: `choice`'s cumulative probabilities times their
    total, `cdf[ACTIONS - 1]` (no division: `decide` scales the draw instead)."""
    top = np.float64(out[0])
    for k in range(1, ACTIONS):
        top = max(top, np.float64(out[k]))
    total = 0.0
    for k in range(ACTIONS):
        total += math.exp(np.float64(out[k]) - top)
        cdf[k] = total


@njit(cache=True, error_model="numpy")
def decide(cdf, margin, uniform):
    """`choice(6, p=softmax(logits))` with the draw `uniform`, from `cumulative`'s sums of logits within
    `margin` of the reference's; the action, or -1 when the draw is too close to a boundary to decide."""
    total = cdf[ACTIONS - 1]
    draw = uniform * total
    doubt = (margin + CDF_SLACK) * total
    action = 0
    for k in range(ACTIONS - 1):
        if cdf[k] <= draw:
            action += 1
        if abs(cdf[k] - draw) <= doubt:
            return -1
    return action


def prepare(weights) -> tuple:
    """The weight arrays the compiled functions take: each tensor and its absolute value, contiguous float32
    (|W2| and |W3| transposed, one output's weights per row, for `_dense_error`'s dot products), then for
    `rough_bound` each W1 row's largest |w| and the column sums of |W2| and |W3| in float64 (their rounding,
    like that of the float32 bound sums, is covered by SAFETY)."""
    arrays = []
    for name in ("W1", "b1", "W2", "b2", "W3", "b3"):
        tensor = np.ascontiguousarray(weights[name], dtype=np.float32)
        magnitude = np.abs(tensor.T if name in ("W2", "W3") else tensor)
        arrays += [tensor, np.ascontiguousarray(magnitude)]
    abs_w1, abs_w2t, abs_w3t = (arrays[k].astype(np.float64) for k in (1, 5, 9))
    arrays += [abs_w1.max(axis=1), abs_w2t.sum(axis=1), abs_w3t.sum(axis=1)]
    return tuple(arrays)
