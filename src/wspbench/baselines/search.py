"""The weight-space search baseline: OpenAI-ES (Salimans et al., 2017) from the zero network, on training episodes.

The search works in units of each layer's initialisation scale 1/sqrt(fan_in) (the bound `random_weights` in
`baselines.py` uses), so that one sigma moves every layer alike. Each generation draws `population / 2`
Gaussian directions, plays the mean network moved by +sigma and by -sigma along each (antithetic pairs) on the
same `episodes` training episodes, drawn afresh from the task's training pool, and moves the mean along the
directions weighted by the centred ranks of their returns (tied returns share a rank), with Adam. The budget is
generations x population x episodes episodes, all of them training episodes: a search never plays a scoring
episode, so its result is graded on those like any answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from wspbench.evaluation import Grading
from wspbench.networks import Network, Weights
from wspbench.tasks.spec import Task


@dataclass(frozen=True)
class Budget:
    generations: int = 50
    population: int = 16  # candidates per generation, in antithetic pairs
    episodes: int = 5  # training episodes each candidate plays per generation (SUPERBEAM: at most its levels)
    sigma: float = 0.5  # the standard deviation of a candidate's step, in units of the layer's scale
    learning_rate: float = 0.05  # Adam's, on the mean, in the same units
    seed: int = 0

    def __post_init__(self):
        if self.generations < 1 or self.population < 2 or self.population % 2 or self.episodes < 1:
            raise ValueError("a search needs generations >= 1, an even population >= 2 and episodes >= 1")

    def describe(self) -> dict:
        method = "OpenAI-ES, antithetic pairs, centred ranks, Adam"
        return {**asdict(self), "start": "zero network", "units": "1/sqrt(fan_in) per layer", "method": method}


def evolve(
    task: Task,
    budget: Budget = Budget(),
    workers: int | None = 1,
    progress: Callable[[int, float], None] | None = None,
) -> tuple[Weights, dict]:
    """The searched weights and what the search did: the episodes it played and each generation's mean raw
    return over its candidates. `progress(generation, mean_raw)` is called after every generation. A candidate
    plays a handful of episodes, too few to share out, so by default each plays them in this process."""
    network = task.network
    scale, weights_of = units(network)
    pool = task.training_episodes(budget.generations * budget.episodes)
    generator = np.random.default_rng(budget.seed)
    mean = np.zeros(scale.size)
    moment, velocity = np.zeros_like(mean), np.zeros_like(mean)
    played, curve = 0, []

    for generation in range(1, budget.generations + 1):
        count = min(budget.episodes, len(pool))
        episodes = [pool[i] for i in sorted(generator.choice(len(pool), size=count, replace=False))]
        directions = generator.standard_normal((budget.population // 2, mean.size))
        candidates = [mean + sign * budget.sigma * d for d in directions for sign in (1.0, -1.0)]
        returns = np.array([task.score(weights_of(c), episodes, Grading(workers=workers)).raw for c in candidates])
        played += len(candidates) * count
        ranks = centred_ranks(returns)
        gradient = (ranks[0::2] - ranks[1::2]) @ directions / (len(returns) * budget.sigma)
        moment = 0.9 * moment + 0.1 * gradient
        velocity = 0.999 * velocity + 0.001 * gradient**2
        step = (moment / (1 - 0.9**generation)) / (np.sqrt(velocity / (1 - 0.999**generation)) + 1e-8)
        mean = mean + budget.learning_rate * step
        curve.append(float(returns.mean()))
        if progress is not None:
            progress(generation, curve[-1])
    return weights_of(mean), {"budget": budget.describe(), "episodes_played": played, "curve": curve}


def units(network: Network) -> tuple[np.ndarray, Callable[[np.ndarray], Weights]]:
    """A search's coordinates: every weight of `network` in one vector, in units of its layer's initialisation
    scale 1/sqrt(fan_in), and the function that turns such a vector into the network's weights."""
    shapes = network.shapes
    sizes = [int(np.prod(shape)) for shape in shapes.values()]
    fan_in = [network.sizes[int(name[1:]) - 1] for name in shapes]  # W2 and b2 both feed on layer 1's outputs
    scale = np.concatenate([np.full(size, 1.0 / np.sqrt(n)) for size, n in zip(sizes, fan_in, strict=True)])

    def weights_of(vector: np.ndarray) -> Weights:
        parts = np.split(vector * scale, np.cumsum(sizes)[:-1])
        pairs = zip(shapes.items(), parts, strict=True)
        return {name: part.reshape(shape).astype(network.dtype) for (name, shape), part in pairs}

    return scale, weights_of


def centred_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks scaled to [-0.5, 0.5]; equal values share their mean rank, so a generation whose candidates all
    score alike moves nothing."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    mean_rank = np.cumsum(counts) - counts + (counts - 1) / 2
    return mean_rank[inverse] / (len(values) - 1) - 0.5
