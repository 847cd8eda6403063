"""What simple players score on each task, measured by `benchmarks/baselines.py` and kept in `baselines.json`
beside this module, so that a model's score can be read against them (`wsp baselines`, reports).

Each task's entry holds normalised scores on its scoring episodes, graded by the normal grader:
  zero       the all-zero network
  constant   the best single action: the output bias of one action set to CONSTANT_BIAS, for each action
  random     RANDOM_NETWORKS networks drawn as `random_weights` draws them: their mean and their best
  reference  the shipped hand-written program
  scripted   (synthetic MinAtar games) the scripted player, which reads the game's hidden state
The file records the suite digest it was measured on; entries of another suite are not shown as current.
Baselines are measurements of the suite, not part of it: they do not enter the suite digest.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np

from wspbench.networks import Network, Weights

BASELINES_FILE = "baselines.json"
FORMAT = "wspbench.baselines/1"
CONSTANT_BIAS = 20.0  # softmax policies then pick that action with probability 1 - 5 e^-20
RANDOM_NETWORKS = 20
TRIVIAL = ("zero", "constant")  # the baselines a baseline-relative score starts from


def constant_weights(network: Network, action: int) -> Weights:
    """The all-zero network with the output bias of `action` set to CONSTANT_BIAS."""
    weights = network.zeros()
    weights[f"b{network.layers}"][action] = CONSTANT_BIAS
    return weights


def random_weights(network: Network, seed: int) -> Weights:
    """Every weight and bias of layer k uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)] (PyTorch's default for a
    linear layer), drawn in the order W1, b1, W2, ... from numpy's default_rng(seed), in the network's dtype."""
    generator = np.random.default_rng(seed)
    weights = {}
    for k in range(1, network.layers + 1):
        bound = 1.0 / np.sqrt(network.sizes[k - 1])
        for name in (f"W{k}", f"b{k}"):
            shape = network.shapes[name]
            weights[name] = generator.uniform(-bound, bound, size=shape).astype(network.dtype)
    return weights


@cache
def load() -> dict:
    """The measured baselines ({} before any were measured): format, suite, settings, tasks, compute."""
    path = resources.files("wspbench.tasks") / BASELINES_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{BASELINES_FILE} is not a {FORMAT} file")
    return data


def of_task(task_id: str) -> dict | None:
    """One task's baselines, or None when they were not measured."""
    return load().get("tasks", {}).get(task_id)


def trivial(entry: dict) -> float:
    """The best trivial baseline's normalised score: the zero network or the best constant action."""
    return max(entry["zero"]["score"], entry["constant"]["score"])


def relative(score: float, entry: dict) -> float | None:
    """(score - best trivial baseline) / (reference - best trivial baseline): 0 at the trivial baseline, 1 at
    the reference program (None when the reference does not beat the trivial baseline)."""
    floor, reference = trivial(entry), entry["reference"]["score"]
    if reference <= floor:
        return None
    return (score - floor) / (reference - floor)
