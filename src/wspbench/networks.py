"""Networks as data: tensor shapes, orientation, activation and action rule, with a batched forward pass.

A `Network` says everything the engine needs to turn observations into actions, so a new task family
(the 600-32-32-6 tanh MinAtar network, the 8-16-6 ReLU SUPERBEAM network) needs no new engine code.

`forward_one` is the executable specification (one observation, written exactly like the reference
graders). `batched(weights)` runs many observations as one matrix product per layer and also returns a
rigorous bound on how far each batched logit can be from the `forward_one` logit, so that the engine can
recompute the rare action whose sampling decision that difference could change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

Weights = dict[str, np.ndarray]

SAFETY = 1.01
ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda z: np.maximum(0.0, z),
}
MAX_SLOPES = {  # the activation's largest slope at distance >= s from 0 (s >= 0)
    "tanh": lambda s: 1 - np.tanh(s) ** 2,
    "relu": lambda s: 1.0,
}


@dataclass(frozen=True)
class Network:
    """A fully connected network `sizes[0] -> ... -> sizes[-1]`, tensors W1, b1, W2, b2, ...

    orientation "x@W": layer k computes `a @ Wk + bk` with Wk of shape (inputs, outputs);
    orientation "W@x": `Wk @ a + bk` with Wk of shape (outputs, inputs).
    The activation is applied after every layer but the last; the last gives the action logits.
    action_rule "softmax_sample" samples from softmax(logits) with the episode's generator;
    "argmax" takes the first largest logit.
    """

    sizes: tuple[int, ...]
    activation: str
    orientation: str
    action_rule: str
    dtype: type = np.float32

    @property
    def layers(self) -> int:
        return len(self.sizes) - 1

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        shapes: dict[str, tuple[int, ...]] = {}
        for k in range(self.layers):
            n_in, n_out = self.sizes[k], self.sizes[k + 1]
            shapes[f"W{k + 1}"] = (n_in, n_out) if self.orientation == "x@W" else (n_out, n_in)
            shapes[f"b{k + 1}"] = (n_out,)
        return shapes

    @property
    def parameter_count(self) -> int:
        return sum(int(np.prod(shape)) for shape in self.shapes.values())

    def zeros(self) -> Weights:
        return {name: np.zeros(shape, dtype=self.dtype) for name, shape in self.shapes.items()}

    def describe(self) -> str:
        arrows = " -> ".join(str(size) for size in self.sizes)
        return f"{arrows} {self.activation}, {self.orientation}, {self.action_rule}"

    def forward_one(self, weights: Weights, x: np.ndarray) -> np.ndarray:
        """Logits for one observation, computed exactly as the reference graders do."""
        activate = ACTIVATIONS[self.activation]
        a = x
        for k in range(1, self.layers + 1):
            w, b = weights[f"W{k}"], weights[f"b{k}"]
            z = (a @ w if self.orientation == "x@W" else w @ a) + b
            a = activate(z) if k < self.layers else z
        return a

    def batched(self, weights: Weights) -> BatchedForward:
        """A forward pass over batches of observations, with the weight-derived arrays prepared once."""
        return BatchedForward(self, weights)


class BatchedForward:
    """Logits for a batch `xs` (B, inputs), and per row a bound on |batched - forward_one| logits.

    Both computations round each layer's dot products. For a dot product with k non-zero terms the
    classic bound is gamma(k + 1) * sum |a_i w_i| whatever the summation order, with or without FMA
    (products and sums with an exact zero are exact, and the +1 is the bias), so the two results differ
    by at most twice that. The difference carried in from the layer below passes through |W|, and
    through the activation scaled by its largest slope over the interval of doubt, plus a few ulps of
    the activation's own rounding. The bound is computed in the network's precision; the non-negative
    sums then come out at most gamma(n) too small, which the SAFETY factor covers many times over.
    """

    def __init__(self, network: Network, weights: Weights):
        self.activate = ACTIVATIONS[network.activation]
        self.slope = MAX_SLOPES[network.activation]
        self.unit = float(np.finfo(network.dtype).eps) / 2
        self.layers = []
        for k in range(1, network.layers + 1):
            w, b = weights[f"W{k}"], weights[f"b{k}"]
            wt = np.ascontiguousarray(w if network.orientation == "x@W" else w.T)
            self.layers.append((wt, b, np.abs(wt), np.abs(b)))

    def __call__(self, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, error = xs, None  # the inputs are exact
        last = len(self.layers)
        for k, (wt, b, abs_wt, abs_b) in enumerate(self.layers, start=1):
            z = a @ wt + b
            terms = np.count_nonzero(a, axis=1)[:, None] + 2
            gamma = terms * self.unit / (1 - terms * self.unit)
            error = (
                2 * gamma * (np.abs(a) @ abs_wt + abs_b)
                + 2 * self.unit * np.abs(z)
                + (0.0 if error is None else error @ abs_wt)
            )
            if k < last:
                a = self.activate(z)
                error = error * self.slope(np.maximum(np.abs(z) - error, 0)) + 16 * self.unit
            else:
                a = z
        return a, SAFETY * error.max(axis=1).astype(np.float64)


MINATAR_NETWORK = Network(
    sizes=(600, 32, 32, 6), activation="tanh", orientation="x@W", action_rule="softmax_sample", dtype=np.float32
)
SUPERBEAM_NETWORK = Network(
    sizes=(8, 16, 6), activation="relu", orientation="W@x", action_rule="argmax", dtype=np.float64
)


def softmax_cdf(logits: np.ndarray) -> np.ndarray:
    """Cumulative action probabilities, exactly as `RandomState.choice(p=softmax)` builds them."""
    shifted = logits.astype(np.float64) - np.max(logits)
    probabilities = np.exp(shifted)
    probabilities /= probabilities.sum()
    cdf = probabilities.cumsum()
    cdf /= cdf[-1]
    return cdf


def sample_action(logits: np.ndarray, random: np.random.RandomState) -> int:
    """The reference rule: `random.choice(n, p=softmax(logits))` (consumes one uniform draw)."""
    shifted = logits.astype(np.float64) - np.max(logits)
    probabilities = np.exp(shifted)
    probabilities /= probabilities.sum()
    return int(random.choice(len(probabilities), p=probabilities))


def save_network(folder, stem: str, weights: Weights, about: dict) -> None:
    """`<stem>.npz` (the weights) and `<stem>.json` (the training record) in `folder`, as `load_network` reads them."""
    np.savez_compressed(folder / f"{stem}.npz", **weights)
    (folder / f"{stem}.json").write_text(json.dumps(about, indent=1) + "\n")


def load_network(folder, stem: str, network: Network) -> tuple[Weights, dict] | None:
    """`<stem>.npz` (the weights, as `network`'s tensors) and `<stem>.json` (its training record) in `folder`
    (a path or a package resource), or None when either is missing."""
    stored, about = folder / f"{stem}.npz", folder / f"{stem}.json"
    if not (stored.is_file() and about.is_file()):
        return None
    with stored.open("rb") as handle, np.load(handle, allow_pickle=False) as arrays:
        weights = {name: arrays[name].astype(network.dtype) for name in network.shapes}
    return weights, json.loads(about.read_text())
