"""Exact evaluation of a weight program on a MinAtar task: episode returns and lengths.

The engines give identical results, episode by episode:

- `reference`: one episode after another, one observation at a time, exactly the seed grader's loop.
  It is the executable specification; read it first.
- `fast`: many episodes advance in lockstep; the network runs as one batched matrix product over all live
  episodes, and an episode that ends hands its slot to the next one. Each episode keeps its own
  environment and action generator, so it sees the same random draws as in the reference loop. A
  batched product can differ from a one-row product in the last bits; when the uniform draw lies so close
  to a cumulative-probability boundary that this could change the action (see
  `Network.batched` in `wspbench/networks.py`), that one action is recomputed the reference way.

- `compiled`: every game stepped, observed and decided in compiled code by its twin (numba, imported only
  when this engine plays; see `wspbench/evaluation/compiled/`). Its decisions use a rigorous bound the same
  way, falling back to the reference's one-row computation. A module no twin follows exactly plays `fast`.
- `auto` (the default): `compiled`, or `fast` for work too small to be worth loading numba: a game with a twin,
  in a process that has not loaded numba yet, plays its first episode in Python, and the rest too when they would
  take less than loading numba does (COMPILED_LOAD_SECONDS); the engines agree episode by episode, so the results
  do not depend on which played what.

Every engine plays its first batch of episodes in this process and spreads the rest over a process pool, or a Ray
cluster (the executors of `wspbench/evaluation/executors.py`), when that is worth a pool's start; results are
merged in episode order.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass
from functools import cache
from itertools import islice, pairwise

import numpy as np
from threadpoolctl import threadpool_limits

from wspbench.evaluation import ENGINES, Progress
from wspbench.evaluation.executors import (  # default_workers: kept importable from here
    LocalExecutor,
    RayExecutor,
    current_executor,
    default_workers,  # noqa: F401
)
from wspbench.games.minatar import MAX_STEPS, MinAtarGame
from wspbench.networks import Weights, sample_action, softmax_cdf

BATCH_SIZE = 64
EXACT_ROWS = 6  # batches this small are computed row by row, the reference way
COMPILED_WORTH_STEPS = 10_000  # fewer steps in all play faster in Python than numba loads
COMPILED_LOAD_SECONDS = 0.45  # loading numba and the compiled engine's cached code, warm (benchmarks/startup.py)
POOL_WORTH_SECONDS = 0.5  # an engine spreads its episodes over workers only beyond this much work
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EpisodeResults:
    """Per-episode returns and lengths, in the order of `episode_ids`."""

    episode_ids: tuple[int, ...]
    returns: tuple[float, ...]
    lengths: tuple[int, ...]

    @property
    def raw_score(self) -> float:
        return float(np.mean(self.returns))

    @property
    def mean_length(self) -> float:
        return float(np.mean(self.lengths))


def play_reference(
    task: MinAtarGame,
    weights: Weights,
    episode_ids: Sequence[int],
    progress: Progress | None = None,
    observe: Callable | None = None,
) -> list[tuple[float, int]]:
    """The specification: each episode on its own, one observation and one action at a time. `observe`, if
    given, is called with (screen, logits, action, return so far) before each decision, and once with the final
    screen and no logits or action (replays draw these)."""
    results = []
    for episode in episode_ids:
        environment, action_random = task.start_episode(episode)
        score = 0.0
        for step in range(MAX_STEPS):  # noqa: B007 - `step + 1` below is the episode's length
            x = task.observation(environment.state())
            logits = task.network.forward_one(weights, x)
            action = sample_action(logits, action_random)
            if observe is not None:
                observe(x.reshape(10, 10, -1), logits, action, score)
            reward, terminal = environment.act(action)
            score += float(reward)
            if terminal:
                break
        if observe is not None:
            observe(task.observation(environment.state()).reshape(10, 10, -1), None, None, score)
        results.append((score, step + 1))
        if progress:
            progress(1)
    return results


class _Slot:
    __slots__ = ("action_random", "environment", "episode", "score", "steps")

    def __init__(self, task: MinAtarGame, episode: int):
        self.episode = episode
        self.environment, self.action_random = task.start_episode(episode)
        self.score = 0.0
        self.steps = 0

    def restart(self, task: MinAtarGame, episode: int) -> _Slot:
        self.episode = episode
        self.environment, self.action_random = task.restart_episode(self.environment, self.action_random, episode)
        self.score = 0.0
        self.steps = 0
        return self


def play_lockstep(
    task: MinAtarGame,
    weights: Weights,
    episode_ids: Sequence[int],
    progress: Progress | None = None,
    batch_size: int = BATCH_SIZE,
) -> list[tuple[float, int]]:
    """The same episodes as `play_reference`, up to `batch_size` of them advancing together."""
    network = task.network
    forward = network.batched(weights)
    finished: dict[int, tuple[float, int]] = {}
    waiting = iter(episode_ids)
    slots = [_Slot(task, episode) for episode in islice(waiting, batch_size)]
    while slots:
        xs = task.observations([slot.environment.state() for slot in slots])
        uniforms = np.array([slot.action_random.random_sample() for slot in slots])
        actions = sample_batch(network, weights, forward, xs, uniforms)
        live = []
        for slot, action in zip(slots, actions.tolist(), strict=True):
            reward, terminal = slot.environment.act(action)
            slot.score += float(reward)
            slot.steps += 1
            if terminal or slot.steps == MAX_STEPS:
                finished[slot.episode] = (slot.score, slot.steps)
                if progress:
                    progress(1)
                slot = next((slot.restart(task, episode) for episode in waiting), None)
                if slot is None:
                    continue
            live.append(slot)
        slots = live
    return [finished[episode] for episode in episode_ids]


def sample_batch(network, weights: Weights, forward, xs: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Actions for a batch, bit-identical to `sample_action` on each row with the same uniform draw."""
    if len(xs) <= EXACT_ROWS:  # a few rows: the one-row computation itself is cheaper than the batch
        return np.array([_exact_action(network, weights, x, u) for x, u in zip(xs, uniforms, strict=True)])
    logits, logit_error = forward(xs)
    shifted = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
    probabilities = np.exp(shifted)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    cdf = probabilities.cumsum(axis=1)
    cdf /= cdf[:, -1:]
    actions = (cdf <= uniforms[:, None]).sum(axis=1)
    # A cumulative probability is a logistic function (slope <= 1/4) of a log-ratio of sums that moves
    # by at most 2d when each logit moves by at most d: it moves by at most d/2. Take twice that, and
    # allow for the float64 rounding of both softmax computations.
    margin = logit_error + 1e-12
    near = (np.abs(cdf[:, :-1] - uniforms[:, None]) <= margin[:, None]).any(axis=1)
    for row in np.flatnonzero(near):
        actions[row] = _exact_action(network, weights, xs[row], uniforms[row])
    return actions


def _exact_action(network, weights: Weights, x: np.ndarray, uniform: float) -> int:
    """The reference's action for observation `x`: one-row logits, `choice`'s cdf, the same draw."""
    cdf = softmax_cdf(network.forward_one(weights, x.copy()))
    return int(np.searchsorted(cdf, uniform, side="right"))


def play_compiled(
    task: MinAtarGame,
    weights: Weights,
    episode_ids: Sequence[int],
    progress: Progress | None = None,
    batch_size: int = BATCH_SIZE,
) -> list[tuple[float, int]]:
    """The same episodes as `play_reference`, in compiled code where a twin follows the game exactly (`fast`
    otherwise: a game no twin follows, such as a user's own module, says so once at -v)."""
    twin = compiled_twin(task)
    if twin is None:
        return play_lockstep(task, weights, episode_ids, progress, batch_size)
    from wspbench.evaluation.compiled.engine import Overflow, play

    finite = all(np.isfinite(weights[name]).all() for name in task.network.shapes)
    if not finite:  # the other engines' behaviour (numpy's own errors) is the specification here
        return play_lockstep(task, weights, episode_ids, progress, batch_size)
    name, setup = twin
    try:
        return play(name, task.network, weights, episode_ids, MAX_STEPS, batch_size, progress, setup)
    except Overflow:  # never seen; the episodes are then played the `fast` way, from the start
        log.warning("%s: the compiled engine overflowed; playing the episodes with `fast`", task.task_id)
        return play_lockstep(task, weights, episode_ids, None, batch_size)


def compiled_twin(task: MinAtarGame) -> tuple[str, np.ndarray | None] | None:
    """The compiled twin that plays `task` exactly, with its rows' setup (`compiled.engine.twin_of`), or None."""
    return _twin(task.spec, task.source_text()) if task.compiled else None


@cache
def _twin(spec, source: str):
    from wspbench.evaluation.compiled.engine import twin_of

    twin = twin_of(spec, source)
    if twin is None:
        log.info("%s: no compiled twin follows this module exactly; it plays in Python", spec.task_id)
    return twin


PLAYERS = {"compiled": play_compiled, "fast": play_lockstep, "reference": play_reference}


def resolve_engine(task: MinAtarGame, engine: str, episodes: int | None = None) -> str:
    """The engine that plays `task`: `auto` is `compiled` for a game a twin claims, unless `episodes` are so few
    (at most COMPILED_WORTH_STEPS steps in all) that loading numba would take longer than playing them in
    Python; and `fast` for the others. (A claimed game that no twin follows exactly plays `fast` anyway.)"""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})")
    if engine == "auto":
        if not task.compiled:
            return "fast"
        small = episodes is not None and episodes * task.max_steps <= COMPILED_WORTH_STEPS
        return "fast" if small and "numba" not in sys.modules else "compiled"
    return engine


def prepare(task: MinAtarGame, engine: str = "auto", episodes: int | None = None) -> None:
    """Load, or compile the first time on a machine (about COMPILE_SECONDS), the compiled engine when it is the one
    that would play `episodes` episodes of `task`; nothing otherwise. Loaded once, it is ready for every game."""
    if resolve_engine(task, engine, episodes) == "compiled":
        from wspbench.evaluation.compiled.engine import TWINS, play

        play(TWINS[0], task.network, task.network.zeros(), [0], 1, 1)


def evaluate(
    task: MinAtarGame,
    weights: Weights,
    episode_ids: Sequence[int] | int,
    engine: str = "auto",
    workers: int | None = None,
    progress: Progress | None = None,
    executor: LocalExecutor | RayExecutor | None = None,
) -> EpisodeResults:
    """Play `episode_ids` (or episodes 0..n-1 for an int) and return every episode's return and length.
    `workers` defaults to the executor's (this machine's cores, or the Ray cluster's CPUs); `executor` to
    the one in use (`use_executor`), else the local process pool."""
    ids = list(range(episode_ids)) if isinstance(episode_ids, int) else [int(e) for e in episode_ids]
    if not ids:
        raise ValueError("no episodes to play")
    chosen, results, rest = resolve_engine(task, engine, len(ids)), [], ids
    if engine == "auto" and chosen == "compiled" and "numba" not in sys.modules:
        results, rest, chosen = _python_first(task, weights, ids, progress)
    executor = executor or current_executor()
    workers = max(1, min(workers or executor.workers(), max(1, len(rest))))
    player = _single_threaded_blas(PLAYERS[chosen])
    log.info(
        "%s: %d episodes with the %s engine, up to %d %s worker(s)",
        task.task_id,
        len(ids),
        chosen + (f", after {len(results)} in Python" if results and rest else ""),
        workers,
        executor.name,
    )
    if rest and workers == 1:
        results += player(task, weights, rest, progress)
    elif rest:
        results += _spread(player, task, weights, rest, workers, progress, executor)
    return EpisodeResults(tuple(ids), tuple(r for r, _ in results), tuple(n for _, n in results))


def _python_first(task: MinAtarGame, weights: Weights, ids: list[int], progress) -> tuple[list, list[int], str]:
    """`auto` before numba is loaded: episodes played in Python one at a time while the rest, at their mean time so
    far, would take less than loading the compiled engine (COMPILED_LOAD_SECONDS); the results, the episodes left
    and the engine that plays them ("compiled", or "fast" when none is left)."""
    player, results, started = _single_threaded_blas(play_lockstep), [], time.perf_counter()
    for done, episode in enumerate(ids):
        if done and (time.perf_counter() - started) / done * (len(ids) - done) > COMPILED_LOAD_SECONDS:
            return results, ids[done:], "compiled"
        results += player(task, weights, [episode], progress)
    return results, [], "fast"


def _spread(player, task, weights, ids, workers, progress, executor) -> list[tuple[float, int]]:
    """Play the first batch of episodes here (which also loads an engine's code before any worker forks), and use
    the pool for the rest only when that is worth a pool's start (short episodes often take less time than
    starting the workers)."""
    started = time.perf_counter()
    results = player(task, weights, ids[:BATCH_SIZE], progress)
    rest = ids[BATCH_SIZE:]
    if not rest:
        return results
    projected = (time.perf_counter() - started) / BATCH_SIZE * len(rest)
    if projected < POOL_WORTH_SECONDS:
        log.debug("%.2f s left to play, under %.1f s: no process pool", projected, POOL_WORTH_SECONDS)
        return results + player(task, weights, rest, progress)
    log.debug("%.2f s left to play: a pool of %d workers", projected, workers)
    return results + play_in_pool(player, task, weights, rest, workers, progress, executor)


class _single_threaded_blas:
    """Run a player with one BLAS thread: the products are small, and BLAS threads that spin-wait on a
    busy machine made them 10x slower. (A class, not a closure, so that it pickles into worker processes.)"""

    def __init__(self, play):
        self.play = play

    def __call__(self, *args):
        with threadpool_limits(limits=1, user_api="blas"):
            return self.play(*args)


def play_in_pool(play, task, weights, ids, workers, progress, executor) -> list:
    """`play(task, weights, chunk)` on chunks of the episodes in the executor's pool, the results merged in order
    (any family's, `wspbench/tasks/superbeam.py` too). A few chunks per worker balance the load; a chunk
    of at least two batches lets its slots be reused (a new environment costs more than a short episode)."""
    chunk_count = min(workers * 4, max(workers, len(ids) // (2 * BATCH_SIZE)))
    bounds = np.linspace(0, len(ids), chunk_count + 1).astype(int)
    chunks = [ids[start:stop] for start, stop in pairwise(bounds) if stop > start]
    log.debug("%s pool: %d workers, %d chunks", executor.name, workers, len(chunks))
    results: dict[int, list[tuple[float, int]]] = {}
    with executor.pool(workers) as pool:
        futures = {pool.submit(play, task, weights, chunk): index for index, chunk in enumerate(chunks)}
        for future in as_completed(futures):
            index = futures[future]
            results[index] = future.result()
            if progress:
                progress(len(chunks[index]))
    return [result for index in range(len(chunks)) for result in results[index]]
