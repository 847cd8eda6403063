"""The reference grader's result for a MinAtar answer: the dict that `wsp verify` writes as Harbor's reward
and that the conformance data holds (tests/data/minatar_original_expected.json). Every other command prints
the registry's `Score` (tasks/spec.py). `verifier_result` is that dict for any registry task: the seed's
exact format for a MinAtar writing task, the same keys (the task id as `game`) for every other task.

A failure is a value with an `error` message, never an exception, so one bad answer cannot crash a batch.
"""

from __future__ import annotations

from wspbench.answers.edits import MAX_MESSAGE_CHARS
from wspbench.evaluation.engine import Progress
from wspbench.games.minatar import MinAtarGame
from wspbench.tasks import UnknownTask, get_task
from wspbench.tasks.spec import Score, Task, group_of, safe_message

__all__ = [
    "MAX_MESSAGE_CHARS",
    "find_task",
    "grade_answer",
    "reference_result",
    "safe_message",
    "seed_game",
    "verifier_result",
]


def seed_game(task: Task) -> MinAtarGame | None:
    """The MinAtar game that `task` is the writing task of (original/*, synth/*: the seed contract's tasks), else
    None. Identify and repair tasks are bound to a MinAtar game too, but they are not that game's task."""
    binding = getattr(task, "binding", None)
    return binding if isinstance(binding, MinAtarGame) and binding.task_id == task.id else None


def find_task(game: str, source: str | None = None) -> MinAtarGame:
    """The MinAtar game `game`; with `source` None the source is inferred (game names are unique).

    UnknownTask (a ValueError), with a message that says what to write instead, for an unknown game or
    source, or a task that is not a MinAtar writing task (the seed contract is MinAtar's)."""
    task = get_task(f"{source}/{game}" if source else game)
    binding = seed_game(task)
    if binding is None:
        raise UnknownTask(f"{task.id} is not a MinAtar writing task (those are original/<game> and synth/<game>)")
    return binding


def grade_answer(
    game: MinAtarGame,
    answer: str,
    episodes: int = 1000,
    engine: str = "auto",
    workers: int | None = None,
    progress: Progress | None = None,
) -> dict:
    """`{"normalized_score", game, source, episodes, parse_success, raw_score, score_cap,
    mean_episode_length, edit_count, nonzero_weights, seconds}`, or the first five and `error`."""
    task = get_task(game.task_id)
    return reference_result(
        game, task.grade(answer, task.scoring_episodes(episodes), engine, workers, progress), episodes
    )


def reference_result(game: MinAtarGame, score: Score, episodes: int) -> dict:
    """A Score as the reference grader's metadata dict."""
    return _result(game.game, game.source, score, episodes, ("edit_count", "nonzero_weights"))


def verifier_result(task: Task, score: Score, episodes: int) -> dict:
    """What `wsp verify` writes for a graded answer: `reference_result` for a MinAtar writing task (the seed's
    format, exactly); for every other task the same keys, with the task id as `game` and its group as `source`
    (`identify-choice`, `repair`, `superbeam`), and no edit counts."""
    game = seed_game(task)
    if game is not None:
        return reference_result(game, score, episodes)
    return _result(task.id, group_of(task.id), score, episodes, ())


def _result(game: str, source: str, score: Score, episodes: int, counts: tuple[str, ...]) -> dict:
    """The seed's reward keys, in its order; `counts` names the score's metadata counts it also reports."""
    head = {
        "normalized_score": score.normalized,
        "game": game,
        "source": source,
        "episodes": episodes,
        "parse_success": 0.0 if score.error else 1.0,
    }
    if score.error:
        return {**head, "error": score.error}
    return {
        **head,
        "raw_score": score.raw,
        "score_cap": score.score_cap,
        "mean_episode_length": score.mean_length,
        **{count: score.metadata[count] for count in counts},
        "seconds": score.seconds,
    }
