"""Tasks: a game, a network, an answer format, an episode protocol and a score."""

from wspbench.tasks.minatar import EPISODE_SEED, ACTION_SEED, MAX_STEPS, MinAtarTask, all_minatar_tasks

__all__ = ["ACTION_SEED", "EPISODE_SEED", "MAX_STEPS", "MinAtarTask", "all_minatar_tasks"]
