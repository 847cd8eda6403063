"""The compiled lockstep driver: many episodes of one game, stepped and decided in compiled code by its twin.

A game's spec names its twin here (`GameSpec.compiled`, a module of this package); the compiled functions
take the twin's index in TWINS, since one compiled `run` serves every twin.

`run` advances the live slots in rounds. Each slot that decides observes (straight into the list of active
inputs), draws its action uniform and sums its first layer; the upper layers of all of them are then computed
at once (`policy.upper_layers`); then each slot decides with its bounded logits (`policy.py`) and acts through
the sticky-action wrapper. A slot whose episode ends takes the next queued episode (reseeded generators, reset
game). A slot whose decision is undecided waits while the others play on; its observation is copied out, and
once enough slots wait, `run` returns so that Python computes the reference's one-row actions. Each slot has
its own generators, so the order in which slots advance changes nothing. `run` also returns when all
episodes are done, when a progress report is due, or on an error.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from wspbench.evaluation.compiled import asterix, breakout, freeway, generated, seaquest, space_invaders
from wspbench.evaluation.compiled.common import CANDIDATES, FIRST_FIELD, LAST_ACTION, TERMINAL, WIDTH, unique
from wspbench.evaluation.compiled.mt19937 import WORDS, random_sample, seed_pair
from wspbench.evaluation.compiled.policy import (
    ACTIONS,
    bound,
    count_bounds,
    cumulative,
    decide,
    first_layer,
    layer_arrays,
    prepare,
    rough_bound,
    scratch_arrays,
    upper_layers,
)
from wspbench.evaluation.compiled.synth import play as synth
from wspbench.games.minatar import ACTION_SEED, EPISODE_SEED, STICKY_ACTION_PROB

MODULES = {
    module.__name__.rpartition(".")[2]: module
    for module in (asterix, breakout, freeway, seaquest, space_invaders, generated, *synth.TWINS)
}
TWINS = tuple(MODULES)
ASTERIX, BREAKOUT, FREEWAY, SEAQUEST, SPACE_INVADERS, GENERATED = range(6)  # the codes the compiled functions take
SYNTH = GENERATED + 1  # the first hand-written synthetic twin's code (its index in `synth.TWINS` is code - SYNTH)
# control fields
NEXT, UNDECIDED, FINISHED = range(3)
DONE, OVERFLOWED = 0, -1
REPORT_EVERY = 16
COMPILE_SECONDS = 50  # the first compilation of every twin, `wsp warmup` with an empty cache on 2 cores: 45 to 51 s
COMPILING = f"compiling the game engine, first run only, about {COMPILE_SECONDS} s (`wsp warmup` builds it ahead)"
log = logging.getLogger(__name__)


@njit(cache=True)
def _reset(game, s, keys, positions, g):
    if game == ASTERIX:
        asterix.reset(s, keys, positions, g)
    elif game == BREAKOUT:
        breakout.reset(s, keys, positions, g)
    elif game == FREEWAY:
        freeway.reset(s, keys, positions, g)
    elif game == SEAQUEST:
        seaquest.reset(s, keys, positions, g)
    elif game == SPACE_INVADERS:
        space_invaders.reset(s, keys, positions, g)
    elif game == GENERATED:
        generated.reset(s, keys, positions, g)
    else:
        synth.reset(game - SYNTH, s, keys, positions, g)


@njit(cache=True)
def _step(game, s, action, keys, positions, g):
    if game == ASTERIX:
        return asterix.step(s, action, keys, positions, g)
    if game == BREAKOUT:
        return breakout.step(s, action, keys, positions, g)
    if game == FREEWAY:
        return freeway.step(s, action, keys, positions, g)
    if game == SEAQUEST:
        return seaquest.step(s, action, keys, positions, g)
    if game == SPACE_INVADERS:
        return space_invaders.step(s, action, keys, positions, g)
    if game == GENERATED:
        return generated.step(s, action, keys, positions, g)
    return synth.step(game - SYNTH, s, action, keys, positions, g)


@njit(cache=True)
def observe(game, s, active, seen, stamp):
    """The active inputs of slot state `s` in `active[:count]`, each once; returns the count (see `common.py`)."""
    if game == ASTERIX:
        count = asterix.observe(s, active)
    elif game == BREAKOUT:
        count = breakout.observe(s, active)
    elif game == FREEWAY:
        count = freeway.observe(s, active)
    elif game == SEAQUEST:
        count = seaquest.observe(s, active)
    elif game == SPACE_INVADERS:
        count = space_invaders.observe(s, active)
    elif game == GENERATED:
        count = generated.observe(s, active)
    else:
        count = synth.observe(game - SYNTH, s, active)
    return unique(active, count, seen, stamp)


@njit(cache=True)
def start_episode(game, states, keys, positions, slot, episode):
    """Episode `episode` in `slot`: both generators seeded as the reference seeds them, the game reset."""
    seed_pair(keys, positions, 2 * slot, EPISODE_SEED + episode, 2 * slot + 1, ACTION_SEED + episode)
    states[slot, LAST_ACTION] = 0
    _reset(game, states[slot], keys, positions, 2 * slot)


@njit(cache=True)
def act(game, s, action, keys, positions, g):
    """The `minatar.Environment` wrapper: a sticky action with probability STICKY_ACTION_PROB, then the game's step."""
    if random_sample(keys, positions, g) < STICKY_ACTION_PROB:
        action = s[LAST_ACTION]
    s[LAST_ACTION] = action
    return _step(game, s, action, keys, positions, g)


@njit(cache=True, nogil=True)  # a run's other tasks, in this process's other threads, go on meanwhile
def run(
    game,
    control,
    states,
    keys,
    positions,
    slot_item,
    waiting,
    scores,
    steps,
    queue,
    returns,
    lengths,
    max_steps,
    weights,
    bounds,
    uniforms,
    actions,
    undecided,
    undecided_inputs,
    report,
):
    """Advance the lockstep batch (see the module docstring). A slot whose decision is undecided waits
    (`waiting` 1) while the others play on; once a quarter of the slots wait, or all live ones do, it returns
    their number (> 0) for Python to decide them (`waiting` 2: the action is in `actions`). Otherwise it
    returns DONE when every episode is finished or a progress report is due, or OVERFLOWED."""
    slots = states.shape[0]
    seen = np.zeros(600, np.int64)
    active = np.zeros(CANDIDATES, np.int64)
    observations = 0
    layers = layer_arrays(slots)
    scratch = scratch_arrays()
    counts = np.zeros(slots, np.int64)
    drawn = np.zeros(slots)
    cdf = np.zeros(ACTIONS, np.float64)
    reported = control[FINISHED]
    patience = max(1, slots // 4)
    while True:
        live = 0
        for slot in range(slots):  # observe every slot that decides this round, through the first layer
            if slot_item[slot] < 0:
                continue
            live += 1
            if waiting[slot] == 0:
                observations += 1
                counts[slot] = observe(game, states[slot], active, seen, observations)
                drawn[slot] = random_sample(keys, positions, 2 * slot + 1)
                first_layer(active, counts[slot], weights, layers, slot)
        upper_layers(weights, layers)
        for slot in range(slots):  # decide (the bounds from cheap to tight, `policy.py`) and act
            item = slot_item[slot]
            if item < 0 or waiting[slot] == 1:
                continue
            s = states[slot]
            if waiting[slot] == 0:
                n, uniform = counts[slot], drawn[slot]
                cumulative(layers[4][slot], cdf)
                action = decide(cdf, bounds[n], uniform)  # `count_bounds`
                if action < 0:  # the row's own bounds read its active inputs again
                    observations += 1
                    observe(game, s, active, seen, observations)
                    action = decide(cdf, rough_bound(active, n, weights, layers, slot, scratch), uniform)
                if action < 0:
                    action = decide(cdf, bound(active, n, weights, layers, slot, scratch), uniform)
                if action < 0:
                    row = control[UNDECIDED]
                    undecided[row] = slot
                    uniforms[row] = uniform
                    undecided_inputs[row, :] = 0
                    for t in range(n):
                        undecided_inputs[row, active[t]] = 1
                    control[UNDECIDED] = row + 1
                    waiting[slot] = 1
                    continue
            else:
                action = actions[slot]
                waiting[slot] = 0
            scores[slot] += act(game, s, action, keys, positions, 2 * slot)
            steps[slot] += 1
            if game == SEAQUEST and s[seaquest.OVERFLOW]:
                return OVERFLOWED
            if s[TERMINAL] or steps[slot] == max_steps:
                returns[item] = scores[slot]
                lengths[item] = steps[slot]
                control[FINISHED] += 1
                if control[NEXT] < queue.shape[0]:
                    item = control[NEXT]
                    control[NEXT] += 1
                    slot_item[slot] = item
                    scores[slot] = 0.0
                    steps[slot] = 0
                    start_episode(game, states, keys, positions, slot, queue[item])
                else:
                    slot_item[slot] = -1
        pending = control[UNDECIDED]
        if pending > 0 and (pending >= patience or pending == live):
            return pending
        if live == 0 or (report and control[FINISHED] - reported >= REPORT_EVERY):
            return DONE


class Overflow(RuntimeError):
    """A seaquest list outgrew its capacity (the caller plays these episodes another way)."""


def play(
    twin: str,
    network,
    weights,
    episode_ids: Sequence[int],
    max_steps: int,
    batch_size: int,
    progress: Callable[[int], None] | None = None,
    setup: np.ndarray | None = None,
) -> list[tuple[float, int]]:
    """Returns and lengths of `episode_ids` of the game whose compiled twin is `twin`, equal to the reference
    loop's; `setup` (see `twin_of`) is written into every slot's row from FIRST_FIELD before play."""
    compiling = needs_compiling()
    if compiling:
        log.warning(COMPILING)
    started = time.perf_counter()
    for name, shape in network.shapes.items():  # the compiled code trusts these (it does not check indices)
        if np.shape(weights[name]) != shape or not np.isfinite(weights[name]).all():
            raise ValueError(f"{name} must be a finite array of shape {shape}")
    code = TWINS.index(twin)
    queue = np.asarray(episode_ids, dtype=np.int64)
    if queue.size and (
        queue.min() + min(EPISODE_SEED, ACTION_SEED) < 0 or queue.max() + max(EPISODE_SEED, ACTION_SEED) >= 2**32
    ):
        raise ValueError("episode ids must give seeds between 0 and 2**32 - 1")
    slots = max(1, min(batch_size, len(queue)))
    states = np.zeros((slots, WIDTH), np.int64)
    keys = np.zeros((2 * slots, WORDS), np.uint32)
    positions = np.zeros(2 * slots, np.int64)
    slot_item = np.full(slots, -1, np.int64)
    if setup is not None:
        states[:, FIRST_FIELD : FIRST_FIELD + len(setup)] = setup
    for slot in range(slots):
        slot_item[slot] = slot
        start_episode(code, states, keys, positions, slot, queue[slot])
    control = np.zeros(3, np.int64)
    control[NEXT] = slots
    returns = np.zeros(len(queue), np.float64)
    lengths = np.zeros(len(queue), np.int64)
    arrays = prepare(weights)
    bounds = count_bounds(weights)  # per count of active inputs, the first bound `run` tries
    scores, steps = np.zeros(slots, np.float64), np.zeros(slots, np.int64)
    uniforms, actions, undecided = np.zeros(slots), np.zeros(slots, np.int64), np.zeros(slots, np.int64)
    undecided_inputs = np.zeros((slots, 600), np.uint8)
    reported = 0
    waiting = np.zeros(slots, np.int64)
    cdfs: dict[bytes, list[float]] = {}
    with _one_blas_thread():
        while True:
            outcome = run(
                code,
                control,
                states,
                keys,
                positions,
                slot_item,
                waiting,
                scores,
                steps,
                queue,
                returns,
                lengths,
                max_steps,
                arrays,
                bounds,
                uniforms,
                actions,
                undecided,
                undecided_inputs,
                progress is not None,
            )
            if compiling:
                seconds = time.perf_counter() - started
                log.warning("the game engine compiled in %.0f s; later runs load it from the cache", seconds)
                compiling = False
            if outcome == OVERFLOWED:
                raise Overflow(f"a {twin} list outgrew its capacity")
            pending = int(control[UNDECIDED])  # (a progress report can come with a few rows waiting)
            for row, slot, uniform in zip(range(pending), undecided.tolist(), uniforms.tolist(), strict=False):
                key = undecided_inputs[row].tobytes()
                if key not in cdfs:  # observations repeat across episodes (the same start, the same early moves)
                    cdfs[key] = _reference_cdf(network, weights, undecided_inputs[row].astype(np.float32)).tolist()
                actions[slot] = bisect_right(cdfs[key], uniform)  # `choice`: searchsorted(cdf, draw, side="right")
                waiting[slot] = 2
            control[UNDECIDED] = 0
            if progress and control[FINISHED] > reported:
                progress(int(control[FINISHED] - reported))
                reported = int(control[FINISHED])
            if outcome == DONE and (slot_item < 0).all():
                break
    return list(zip(returns.tolist(), lengths.tolist(), strict=True))


def _one_blas_thread():
    """Hold BLAS to one thread while `run` plays: its matrix products are small, and BLAS threads that
    spin-wait beside it on a pinned or busy core made a run slower, not faster."""
    return _blas_libraries().limit(limits=1, user_api="blas")


@functools.cache
def _blas_libraries():
    """threadpoolctl's view of the loaded BLAS libraries, taken once per process (about 5 ms) after loading
    scipy's, which numba calls: threadpoolctl sees only libraries already loaded."""
    import scipy.linalg.cython_blas  # noqa: F401
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def twin_of(spec, source: str) -> tuple[str, np.ndarray | None] | None:
    """The twin that plays the game of `spec` (whose module's text is `source`) and the setup of its rows, or None
    when no twin follows that exact module. The twin says what it follows: the generated twin, any module the
    generator writes (`generated.setup`); a hand-written synthetic game's twin, the module whose SHA-256 it keeps
    (`SOURCE_SHA256`); an original game's twin, its module in the pinned `minatar` package (`FOLLOWS`)."""
    twin = MODULES.get(spec.compiled)
    if twin is None:
        return None
    if twin is generated:
        setup = generated.setup(spec.name, source, spec.score_cap)
        return None if setup is None else (spec.compiled, setup)
    follows = getattr(twin, "FOLLOWS", None)
    if follows is not None and follows != spec.module:
        return None
    written = getattr(twin, "SOURCE_SHA256", None)
    if written is not None and written != hashlib.sha256(source.encode()).hexdigest():
        return None
    return spec.compiled, None


def needs_compiling() -> bool:
    """Whether numba's cache lacks usable code for a function `play` calls (the first run on a machine, or the
    sources changed), so that the next `play` compiles for about COMPILE_SECONDS. Reads numba's cache index
    (a private interface): when it cannot be read, the answer is True."""
    if start_episode.signatures and run.signatures:  # compiled (or loaded) in this process already
        return False
    try:
        return any(not f._cache._cache_file._load_index() for f in (start_episode, run))
    except Exception:  # noqa: BLE001 - another numba version, an unreadable index: say it may compile
        return True


def _reference_cdf(network, weights, x: np.ndarray) -> np.ndarray:
    """The reference's cumulative action probabilities for observation `x`: one-row logits, `choice`'s cdf."""
    from wspbench.networks import softmax_cdf

    return softmax_cdf(network.forward_one(weights, x))
