"""What simple players score on each task, measured by `benchmarks/baselines.py` and kept in `baselines.json`
beside this module, so that a model's score can be read against them (`wsp baselines`, reports).

Each task's entry holds normalised scores on its scoring episodes, graded by the normal grader:
  zero       the all-zero network
  constant   the best single action: the output bias of one action set to CONSTANT_BIAS, for each action
  random     RANDOM_NETWORKS networks drawn as `random_weights` draws them: their mean and their best
  search     the weights an evolution strategy found on training episodes (`search.py`), with its budget
  cma        (small networks: SUPERBEAM) the weights CMA-ES found on training episodes (`cma_search.py`)
  public     (generated games) the best public program, played unchanged (`generated.py`: its calibration chose it)
  generic    (generated games) one hand-written program for the whole family, from its layout and fire (`generic.py`)
  trained    a network of the task's shape trained by PPO on training episodes (`ppo.py`), shipped in `trained/`,
             written in the task's answer format and graded as a reply, with its budget
  reference  the shipped hand-written program
  scripted   (synthetic MinAtar games) the scripted player, which reads the game's hidden state
Each entry records the digest of the task it was measured on (`Task.digest`): an entry whose task has changed
since is stale, left out of reports and flagged by `wsp baselines`, so that a change to one task (a new cap, a new
task) leaves the others' measurements valid. Baselines are measurements of the suite, not part of it: they do
not enter the suite digest.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import numpy as np

from wspbench.networks import Network, Weights
from wspbench.tasks.registry import UnknownTask, digest_of, get_task
from wspbench.tasks.spec import family_of

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
    path = resources.files("wspbench.baselines") / BASELINES_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT:
        raise ValueError(f"{BASELINES_FILE} is not a {FORMAT} file")
    return data


def of_task(task_id: str) -> dict | None:
    """One task's baselines, or None when they were not measured on the task as it is now."""
    entry = load().get("tasks", {}).get(task_id)
    return entry if entry is not None and is_current(task_id, entry) else None


def is_current(task_id: str, entry: dict) -> bool:
    """Whether `entry` was measured on the task `task_id` names now (the same task digest)."""
    return entry.get("digest") is not None and entry["digest"] == _digest(task_id)


@cache
def _digest(task_id: str) -> str | None:
    try:
        return digest_of(task_id)
    except UnknownTask:
        return None


def reading_floors(entries: dict, current_only: bool = True) -> dict[str, tuple[int, dict[str, float]]]:
    """Per reading family (sorted): its task count and each floor's mean score, from the "reading" section's
    entries (benchmarks/reading_floors.py); with `current_only`, over the tasks measured as they are now."""
    families: dict[str, dict[str, list[float]]] = {}
    for task_id, entry in entries.items():
        if not current_only or is_current(task_id, entry):
            for name, floor in entry["floors"].items():
                families.setdefault(family_of(task_id), {}).setdefault(name, []).append(floor["score"])
    return {
        family: (max(map(len, floors.values())), {name: sum(s) / len(s) for name, s in floors.items()})
        for family, floors in sorted(families.items())
    }


KINDS = ("zero", "constant", "random", "search", "cma", "public", "generic", "trained", "reference", "scripted")


def family_means(entries: dict, current_only: bool = True) -> dict[str, tuple[int, dict[str, tuple[float, int]]]]:
    """Per writing family (sorted): its task count and, for each baseline of KINDS measured on some of its tasks,
    the mean score and the number of tasks it was measured on; with `current_only`, over the tasks measured as
    they are now."""
    families: dict[str, list[dict]] = {}
    for task_id, entry in entries.items():
        if not current_only or is_current(task_id, entry):
            families.setdefault(family_of(task_id), []).append(entry)
    means = {}
    for family, found in sorted(families.items()):
        scores = {kind: [e[kind]["score"] for e in found if kind in e] for kind in KINDS}
        means[family] = (len(found), {k: (sum(v) / len(v), len(v)) for k, v in scores.items() if v})
    return means


def above_cap(task_id: str, entry: dict) -> dict[str, float]:
    """The baselines of KINDS whose raw score is above the cap of the task `task_id` names now, each with its
    unclipped score (raw / cap, as `Score.unclipped`): a normalised 1.0 hides by how much they beat it. Random
    networks keep normalised scores only (below 1 on every task: below the cap)."""
    cap = get_task(task_id).facts.score_cap
    unclipped = {kind: entry[kind]["raw"] / cap for kind in KINDS if "raw" in entry.get(kind, {})}
    return {kind: value for kind, value in unclipped.items() if value > 1.0}


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
