"""Episodes stepped side by side for a learner (`wspbench/baselines/ppo.py`): `Task.environments` gives one.

A batch of environments has `count` slots, each playing one episode. `observe()` is the network's inputs of every
slot, shape (count, inputs), float32; `act(actions)` takes one action per slot and returns the rewards and the
done flags (an episode ended, by the game or its step limit). A slot whose episode ended starts the next of the
given episodes at once (they come round again when they run out), so the next `observe()` shows its first
state. `started` counts the episodes begun. The arrays returned may be overwritten by the next call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


class Lockstep:
    """Any task's environments, one `environment(episode)` per slot, stepped in turn (`Task.environment`)."""

    def __init__(self, environment: Callable[[int], object], episodes: Sequence[int], count: int):
        self.episodes = list(episodes)
        self.slots = [environment(self.episodes[i % len(self.episodes)]) for i in range(count)]
        self.started = count
        self.rewards = np.zeros(count)
        self.dones = np.zeros(count, dtype=bool)

    def observe(self) -> np.ndarray:
        return np.stack([slot.observe() for slot in self.slots]).astype(np.float32)

    def act(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        for i, (slot, action) in enumerate(zip(self.slots, actions.tolist(), strict=True)):
            self.rewards[i], self.dones[i] = slot.act(int(action))
            if self.dones[i]:
                self.slots[i] = slot.restart(self.episodes[self.started % len(self.episodes)])
                self.started += 1
        return self.rewards, self.dones
