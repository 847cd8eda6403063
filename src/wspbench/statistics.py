"""Intervals for scores: one task's, an aggregate over tasks, and the paired difference of two runs.

A task's normalised score is min(max(mean episode value, 0), cap) / cap. Its 95% interval is a normal
approximation on the mean (Wilson's for a win rate), and `episodes_for` says how many episodes would bring the
half-width down to a target. An aggregate over tasks varies with the tasks chosen, the replies and the
episodes played, so `aggregate_interval` and `difference_interval` bootstrap all of them: each resample draws
the tasks with replacement and, within each task, its replies (`wsp run --samples K`) and their episodes
with replacement. With `groups` (each task's family) the statistic is the mean of the family means, and tasks
are drawn within their family, so no family outweighs another by its task count. Point estimates come from the
recorded scores; these functions give the intervals. Two
runs graded on the same episodes are paired episode by episode (the same draws for both). Resampling uses a
fixed seed, so a report prints the same interval every time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
RESAMPLES = 2000
SEED = 0


def normalize(raw: float, cap: float) -> float:
    """min(max(raw, 0), cap) / cap: every task's normalised score."""
    return min(max(raw, 0.0), cap) / cap


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """A 95% normal-approximation interval on the mean; zero width for a single value."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return mean - half, mean + half


def wilson(successes: int, n: int) -> tuple[float, float]:
    """Wilson's 95% interval for a proportion."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def episodes_for(
    values: Sequence[float], cap: float, half_width: float = 0.01, available: int | None = None
) -> int | None:
    """Episodes needed for a 95% half-width of `half_width` on the normalised score (the normal
    approximation, with the standard deviation these episodes show; at least as many as were played when
    they vary not at all). None when it cannot be said: fewer than two episodes show no spread, or more
    episodes would be needed than the task has (`available`: SUPERBEAM's 20 levels)."""
    n = len(values)
    if n < 2:
        return None
    sd = float(np.std(np.asarray(values, dtype=np.float64), ddof=1)) / cap
    needed = max(n, math.ceil((Z95 * sd / half_width) ** 2)) if sd > 0 else n
    return None if available is not None and needed > available else needed


@dataclass(frozen=True)
class Sample:
    """One task's graded episodes: their values (empty for a rejected answer, which scores 0), the task's
    cap, the episode ids (two runs are paired episode by episode when these are equal) and, where the cap is
    measured on the same episodes (repair tasks), each episode's cap."""

    values: tuple[float, ...]
    cap: float
    episodes: tuple[int, ...] = ()
    caps: tuple[float, ...] = ()  # per-episode caps (repair), resampled with the values; empty: `cap` is fixed


def _resampled_scores(sample: Sample, picks: np.ndarray | None) -> np.ndarray:
    """The normalised score of each resample of the sample's episodes (`picks`: one row of indices each)."""
    if not sample.values:
        return np.zeros(RESAMPLES)
    values = np.asarray(sample.values, dtype=np.float64)
    means = values[picks].mean(axis=1)
    if not sample.caps:
        return np.clip(means, 0.0, sample.cap) / sample.cap
    caps = np.asarray(sample.caps, dtype=np.float64)[picks].mean(axis=1)
    # a resample in which the cap is not positive (the trained network not ahead of the damaged one): 1 for a reply
    # at least as good as the cap, as the score's "1 for the trained network or better", else 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(caps > 0, np.clip(means, 0.0, caps) / caps, (means >= caps).astype(np.float64))


def _picks(generator: np.random.Generator, n: int) -> np.ndarray | None:
    return generator.integers(0, n, size=(RESAMPLES, n)) if n else None


def _task_scores(
    replies: Sequence[Sample], generator: np.random.Generator, best: bool, picks: dict | None = None
) -> np.ndarray:
    """A task's score in each resample: its replies drawn with replacement (K replies: `wsp run --samples K`),
    each reply's episodes drawn with replacement, then their mean (or, `best`, their maximum). Replies played on
    the same episodes share the episode draws, and so does the other run of a pair (`picks`, by episodes)."""
    picks = {} if picks is None else picks
    rows = []
    for reply in replies:
        if reply.values and reply.episodes not in picks:
            picks[reply.episodes] = _picks(generator, len(reply.values))
        rows.append(_resampled_scores(reply, picks.get(reply.episodes) if reply.values else None))
    scores = np.stack(rows)  # replies x resamples
    if len(replies) == 1:
        return scores[0]
    chosen = generator.integers(0, len(replies), size=(RESAMPLES, len(replies)))
    drawn = scores[chosen, np.arange(RESAMPLES)[:, None]]
    return drawn.max(axis=1) if best else drawn.mean(axis=1)


def _over_tasks(
    per_task: np.ndarray, generator: np.random.Generator, groups: Sequence[str] | None = None
) -> tuple[float, float]:
    """Percentile interval of the mean over tasks drawn with replacement; `per_task` is tasks x resamples. With
    `groups` (one label per task): of the mean over groups of each group's mean, tasks drawn within their group."""
    labels = [""] * per_task.shape[0] if groups is None else list(groups)
    if len(labels) != per_task.shape[0]:
        raise ValueError("one group per task")
    means = []
    for group in dict.fromkeys(labels):
        rows = per_task[[k for k, label in enumerate(labels) if label == group]]
        chosen = generator.integers(0, rows.shape[0], size=(RESAMPLES, rows.shape[0]))
        means.append(rows[chosen, np.arange(RESAMPLES)[:, None]].mean(axis=1))
    low, high = np.percentile(np.mean(means, axis=0), [2.5, 97.5])
    return float(low), float(high)


def _replies(task: Sample | Sequence[Sample]) -> Sequence[Sample]:
    return (task,) if isinstance(task, Sample) else task


def aggregate_interval(
    tasks: Sequence[Sample | Sequence[Sample]], best: bool = False, groups: Sequence[str] | None = None
) -> tuple[float, float]:
    """The 95% bootstrap interval of the mean normalised score over these tasks (each one Sample, or the
    Samples of its K replies: then of the mean over replies, or with `best` of the best-of-K); with `groups`
    (each task's family), of the mean of the family means."""
    if not tasks:
        raise ValueError("no tasks to aggregate")
    generator = np.random.default_rng(SEED)
    per_task = np.stack([_task_scores(_replies(task), generator, best) for task in tasks])
    return _over_tasks(per_task, generator, groups)


def difference_interval(
    pairs: Sequence[tuple[Sample | Sequence[Sample], Sample | Sequence[Sample]]],
    best: bool = False,
    groups: Sequence[str] | None = None,
) -> tuple[float, float]:
    """The 95% bootstrap interval of the mean over tasks of (score of a - score of b) (with `groups`, of the
    mean of the family means of it). Replies played on the same episodes are resampled with the same episode
    draws, in both runs."""
    if not pairs:
        raise ValueError("no shared tasks to compare")
    generator = np.random.default_rng(SEED)
    rows = []
    for a, b in pairs:
        shared: dict = {}
        rows.append(
            _task_scores(_replies(a), generator, best, shared) - _task_scores(_replies(b), generator, best, shared)
        )
    return _over_tasks(np.stack(rows), generator, groups)
