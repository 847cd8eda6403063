"""The search baseline for small networks: CMA-ES (Hansen, 2016; the `cma` package) over every weight at once.

SUPERBEAM's 8-16-6 network has 246 weights, few enough for a full covariance matrix, which learns which weights
move together; OpenAI-ES (`search.py`) from the zero network never beat holding one key there. The search works
in `search.units` (each layer's 1/sqrt(fan_in)) and starts from the best constant action on the training episodes
(the zero network with that action's output bias at CONSTANT_BIAS), so it starts where a trivial player ends.
Every candidate plays all of `task.training_episodes(episodes)`; a generation's candidates are ranked by the
task's own order (`Task.train_key`: for SUPERBEAM levels won, then mean progress) and CMA-ES is told those
ranks. The best candidate it ever played, by that order, is the result. It never plays a scoring episode.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from wspbench.baselines.measured import constant_weights
from wspbench.baselines.search import centred_ranks, units
from wspbench.evaluation import ONE_WORKER
from wspbench.networks import Weights
from wspbench.tasks.spec import Task

MAX_WEIGHTS = 2_000  # a full covariance matrix of more weights than this is too slow to be worth it


@dataclass(frozen=True)
class Budget:
    evaluations: int = 2_000  # candidates played, each on every training episode (whole generations)
    episodes: int = 10  # training episodes per candidate (SUPERBEAM has 10 training levels)
    population: int = 20  # candidates per generation (cma's default for 246 weights: 4 + 3 ln 246 = 20)
    sigma: float = 3.0  # the first step, in units of 1/sqrt(fan_in): 1.0 found nothing past the start in 600
    seed: int = 1  # cma's seed (0 would mean "from the clock")

    def describe(self) -> dict:
        method = "CMA-ES (the cma package), candidates told their rank in the task's own order"
        return {**asdict(self), "method": method, "start": "the best constant action on the training episodes"}


def search(
    task: Task, budget: Budget = Budget(), progress: Callable[[int, tuple], None] | None = None
) -> tuple[Weights, dict]:
    """The best weights found and what the search did: the episodes played, the start, and the best key after
    each generation. `progress(evaluations, best_key)` is called after every generation."""
    import cma

    network = task.network
    scale, weights_of = units(network)
    if scale.size > MAX_WEIGHTS:
        raise ValueError(f"CMA-ES suits networks of at most {MAX_WEIGHTS:,} weights, not {scale.size:,}")
    episodes = task.training_episodes(budget.episodes)

    def key_of(weights: Weights) -> tuple:
        return tuple(task.train_key(task.score(weights, episodes, ONE_WORKER)))

    starts = [key_of(constant_weights(network, action)) for action in range(network.sizes[-1])]
    action = int(max(range(len(starts)), key=starts.__getitem__))
    # That action's output bias at one unit (argmax play needs no more): a first step of sigma then changes actions.
    start = (np.concatenate([w.ravel() for w in constant_weights(network, action).values()]) != 0).astype(float)
    # Only the budget stops it: levels won is a coarse order, so whole generations often tie (flat fitness).
    patient = {"tolflatfitness": 10**9, "tolfun": 0, "tolfunhist": 0, "tolx": 0, "tolstagnation": 10**9}
    options = {"popsize": budget.population, "seed": budget.seed, "verbose": -9, **patient}
    strategy = cma.CMAEvolutionStrategy(start, budget.sigma, options)
    best_key, best, curve, played = starts[action], start, [], 0
    while played < budget.evaluations and not strategy.stop():
        candidates = strategy.ask()
        keys = [key_of(weights_of(np.asarray(c))) for c in candidates]
        played += len(candidates)
        levels = sorted(set(keys))
        ranks = centred_ranks(np.array([levels.index(key) for key in keys]))  # equal keys share their mean rank
        strategy.tell(candidates, (-ranks).tolist())  # cma minimises
        top = max(range(len(keys)), key=keys.__getitem__)
        if keys[top] > best_key:
            best_key, best = keys[top], np.asarray(candidates[top])
        curve.append([played, *best_key])
        if progress is not None:
            progress(played, best_key)
    stopped = strategy.stop()
    about = {
        "budget": budget.describe(),
        "start_action": action,
        "start_key": list(starts[action]),
        "best_key": list(best_key),
        "evaluations": played,
        "stopped": {str(k): v for k, v in stopped.items()} if stopped else "budget",
        "episodes_played": (played + len(starts)) * len(episodes),
        "curve": curve,
    }
    return weights_of(best), about
