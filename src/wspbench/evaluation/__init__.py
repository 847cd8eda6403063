"""The evaluation engine: exact batched rollouts of a weight program on a task."""

from wspbench.evaluation.engine import ENGINES, EpisodeResults, default_workers, evaluate

__all__ = ["ENGINES", "EpisodeResults", "default_workers", "evaluate"]
