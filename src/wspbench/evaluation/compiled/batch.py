"""Many episodes of one game stepped together for a learner, in compiled code (any game a twin follows).

Each slot plays one episode with the compiled engine's games and generators (`engine.py`), seeded exactly as
the reference seeds that episode, sticky actions included. `step` acts in every slot, fills in the rewards and
the done flags (the game ended, or the episode reached its step limit), starts the next queued episode in each
slot whose episode ended, and writes every slot's observation (the 600 network inputs, 0 or 1) for the next
decision. The learner draws its own actions: the episode's action generator is seeded but never used.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from wspbench.evaluation.compiled import seaquest
from wspbench.evaluation.compiled.common import CANDIDATES, FIRST_FIELD, TERMINAL, WIDTH
from wspbench.evaluation.compiled.engine import SEAQUEST, TWINS, act, observe, play, start_episode
from wspbench.evaluation.compiled.mt19937 import WORDS

NEXT, STAMP, OVERFLOWED = range(3)  # control fields: the next queued episode, the observation stamp, a flag


@njit(cache=True)
def _observe_into(game, states, slot, inputs, active, seen, control):
    control[STAMP] += 1
    n = observe(game, states[slot], active, seen, control[STAMP])
    inputs[slot, :] = 0.0
    for t in range(n):
        inputs[slot, active[t]] = 1.0


@njit(cache=True)
def _start(game, states, keys, positions, slot, queue, control, steps):
    start_episode(game, states, keys, positions, slot, queue[control[NEXT] % queue.shape[0]])
    control[NEXT] += 1
    steps[slot] = 0


@njit(cache=True)
def reset_all(game, states, keys, positions, queue, control, steps, inputs, seen):
    active = np.zeros(CANDIDATES, np.int64)
    for slot in range(states.shape[0]):
        _start(game, states, keys, positions, slot, queue, control, steps)
        _observe_into(game, states, slot, inputs, active, seen, control)


@njit(cache=True)
def step_all(game, states, keys, positions, queue, control, steps, max_steps, actions, rewards, dones, inputs, seen):
    active = np.zeros(CANDIDATES, np.int64)
    for slot in range(states.shape[0]):
        rewards[slot] = act(game, states[slot], actions[slot], keys, positions, 2 * slot)
        steps[slot] += 1
        if game == SEAQUEST and states[slot, seaquest.OVERFLOW]:
            control[OVERFLOWED] = 1
            return
        dones[slot] = states[slot, TERMINAL] != 0 or steps[slot] >= max_steps
        if dones[slot]:
            _start(game, states, keys, positions, slot, queue, control, steps)
        _observe_into(game, states, slot, inputs, active, seen, control)


class CompiledEpisodes:
    """`count` slots playing `episodes` in turn (round again when they run out) of the game whose compiled
    twin is `twin`; see the module docstring."""

    def __init__(self, twin: str, episodes, count: int, max_steps: int, setup: np.ndarray | None = None):
        self.code = TWINS.index(twin)
        self.queue = np.asarray(episodes, dtype=np.int64)
        self.max_steps = max_steps
        self.states = np.zeros((count, WIDTH), np.int64)
        if setup is not None:  # the twin's fields of every row (`engine.twin_of`)
            self.states[:, FIRST_FIELD : FIRST_FIELD + len(setup)] = setup
        self.keys = np.zeros((2 * count, WORDS), np.uint32)
        self.positions = np.zeros(2 * count, np.int64)
        self.control = np.zeros(3, np.int64)
        self.steps = np.zeros(count, np.int64)
        self.seen = np.zeros(600, np.int64)
        self.inputs = np.zeros((count, 600), np.float32)
        self.rewards = np.zeros(count, np.float64)
        self.dones = np.zeros(count, np.bool_)
        reset_all(self.code, self.states, self.keys, self.positions, self.queue, self.control, self.steps,
                  self.inputs, self.seen)  # fmt: skip

    @property
    def started(self) -> int:
        """How many episodes have been started (some may still be running)."""
        return int(self.control[NEXT])

    def observe(self) -> np.ndarray:
        return self.inputs

    def act(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        step_all(self.code, self.states, self.keys, self.positions, self.queue, self.control, self.steps,
                 self.max_steps, np.asarray(actions, dtype=np.int64), self.rewards, self.dones, self.inputs,
                 self.seen)  # fmt: skip
        if self.control[OVERFLOWED]:
            raise RuntimeError("a seaquest list outgrew the compiled engine's capacity")
        return self.rewards, self.dones


def warm_up() -> None:
    """Load (or compile, the first time on a machine) every compiled function that `engine.play` and these batches
    use (`wsp warmup`): one `run` and one batch serve every twin."""
    from wspbench.networks import MINATAR_NETWORK

    play(TWINS[0], MINATAR_NETWORK, MINATAR_NETWORK.zeros(), [0], 1, 1)
    CompiledEpisodes(TWINS[0], [0], 1, 1).act(np.zeros(1, np.int64))
