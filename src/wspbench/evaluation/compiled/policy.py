"""The 600-32-32-6 tanh policy on a sparse observation, with a rigorous bound on its distance to the reference.

`decide` computes the logits from the list of active inputs (the first layer is b1 plus the sum of the W1
rows of the active inputs), draws nothing itself, and says whether the given uniform draw lies so close to
a cumulative-probability boundary that the reference's one-row numpy computation (`Network.forward_one`,
whose float32 rounding order is BLAS's) could choose another action.

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
  Both tanh implementations add their own error: + TANH_ERROR = 32 u (ours is within 8 u, numpy's float32
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
TANH_ERROR = 32 * UNIT  # ours (<= 8 u) plus numpy's float32 tanh (a few ulps), with room to spare


@njit(cache=True)
def _gamma(terms):
    return terms * UNIT / (1 - terms * UNIT)


@njit(cache=True)
def _tanh(z):
    """tanh(z) in float32 as (1 - q) / (1 + q), q = exp(-2|z|): with expf within a few ulps and four more
    roundings it is within 8 u of the exact value (1.5 u measured on 9 million points), and it vectorizes."""
    q = math.exp(np.float32(-2.0) * abs(z))
    t = (np.float32(1.0) - q) / (np.float32(1.0) + q)
    return t if z >= 0 else -t


@njit(cache=True)
def _activate(z, error, h):
    """tanh of the sums into h; the propagated error bound replaces `error`."""
    for j in range(z.shape[0]):
        value = _tanh(z[j])
        h[j] = value
        reach = max(abs(np.float64(value)) - error[j] - TANH_ERROR, 0.0)
        error[j] = error[j] * max(1.0 - reach * reach, 0.0) + TANH_ERROR


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dense(h, carried, wt, abs_wt, b, abs_b, z, error, spread):
    """z = h @ w + b in float32 (any summation order: the bound allows it) and its bound against the
    reference (see the module docstring); `wt` is w transposed, one output's weights per row."""
    weight = 2 * _gamma(h.shape[0] + 2)
    for i in range(h.shape[0]):
        spread[i] = np.float32(weight * abs(np.float64(h[i])) + carried[i])
    for j in range(b.shape[0]):
        row, abs_row = wt[j], abs_wt[j]
        total = np.float32(0.0)
        for i in range(h.shape[0]):
            total += h[i] * row[i]
        bound = np.float32(0.0)
        for i in range(h.shape[0]):
            bound += spread[i] * abs_row[i]
        z[j] = total + b[j]
        error[j] = np.float64(bound) + weight * abs_b[j] + 2 * UNIT * abs(np.float64(z[j]))


@njit(cache=True)
def logits_with_bound(active, count, weights, scratch, logits):
    """Logits of the observation whose active inputs are `active[:count]`; returns SAFETY * max bound."""
    w1, abs_w1, b1, abs_b1, w2t, abs_w2t, b2, abs_b2, w3t, abs_w3t, b3, abs_b3 = weights
    z1, s1, h1, e1, z2, h2, e2, e3, spread = scratch
    for j in range(HIDDEN):
        z1[j] = b1[j]
        s1[j] = abs_b1[j]
    for t in range(count):
        row, abs_row = w1[active[t]], abs_w1[active[t]]
        for j in range(HIDDEN):
            z1[j] += row[j]
            s1[j] += abs_row[j]
    weight = 2 * _gamma(count + 2)
    for j in range(HIDDEN):
        e1[j] = weight * np.float64(s1[j]) + 2 * UNIT * abs(np.float64(z1[j]))
    _activate(z1, e1, h1)
    _dense(h1, e1, w2t, abs_w2t, b2, abs_b2, z2, e2, spread)
    _activate(z2, e2, h2)
    _dense(h2, e2, w3t, abs_w3t, b3, abs_b3, logits, e3, spread)
    largest = 0.0
    for j in range(ACTIONS):
        largest = max(largest, e3[j])
    return SAFETY * largest


@njit(cache=True, fastmath={"reassoc", "contract"})
def logits_only(active, count, weights, scratch, logits):
    """The same logits as `logits_with_bound` (up to its bound), without the bound: for `global_bound`."""
    w1, _, b1, _, w2t, _, b2, _, w3t, _, b3, _ = weights
    z1, _, h1, _, z2, h2, _, _, _ = scratch
    for j in range(HIDDEN):
        z1[j] = b1[j]
    for t in range(count):
        row = w1[active[t]]
        for j in range(HIDDEN):
            z1[j] += row[j]
    for j in range(HIDDEN):
        h1[j] = _tanh(z1[j])
    for j in range(HIDDEN):
        total = np.float32(0.0)
        for i in range(HIDDEN):
            total += h1[i] * w2t[j, i]
        z2[j] = total + b2[j]
    for j in range(HIDDEN):
        h2[j] = _tanh(z2[j])
    for j in range(ACTIONS):
        total = np.float32(0.0)
        for i in range(HIDDEN):
            total += h2[i] * w3t[j, i]
        logits[j] = total + b3[j]


def global_bound(weights) -> float:
    """The largest value `logits_with_bound` can return for any observation: its formula with every input
    at its worst (600 active inputs, |h| = 1, tanh slopes 1, |z| at most sum |w| + |b|), in float64, times
    SAFETY once more for the rounding of these sums. A draw farther than this from every boundary is
    decided by `logits_only` without computing the row's own bound."""

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


@njit(cache=True)
def choose(logits, margin, uniform, cdf):
    """`choice(6, p=softmax(logits))` with the draw `uniform`; the action, or -1 when the draw is too close
    to a boundary for these logits to decide."""
    top = np.float64(logits[0])
    for k in range(1, ACTIONS):
        top = max(top, np.float64(logits[k]))
    total = 0.0
    for k in range(ACTIONS):
        cdf[k] = math.exp(np.float64(logits[k]) - top)
        total += cdf[k]
    running = 0.0
    for k in range(ACTIONS):
        running += cdf[k] / total
        cdf[k] = running
    last = cdf[ACTIONS - 1]
    action = 0
    for k in range(ACTIONS):
        cdf[k] /= last
        if cdf[k] <= uniform:
            action += 1
        if k < ACTIONS - 1 and abs(cdf[k] - uniform) <= margin + CDF_SLACK:
            return -1
    return action


def prepare(weights) -> tuple:
    """The weight arrays `logits_with_bound` takes: each tensor (W2 and W3 transposed) and its absolute value,
    contiguous float32."""
    arrays = []
    for name in ("W1", "b1", "W2", "b2", "W3", "b3"):
        tensor = np.asarray(weights[name], dtype=np.float32)
        tensor = np.ascontiguousarray(tensor.T if name in ("W2", "W3") else tensor)
        arrays += [tensor, np.abs(tensor)]
    return tuple(arrays)
