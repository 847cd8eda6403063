"""Grade an answer on a MinAtar task: parse, evaluate, score. What `wsp grade` and the verifier call.

The result is the reference grader's metadata dict (DESIGN 3): a failure is a value with an `error`
message, never an exception, so one bad answer cannot crash a batch.
"""

from __future__ import annotations

import time

import numpy as np

from wspbench.answers import AnswerError, parse_edits
from wspbench.answers.edits import MAX_MESSAGE_CHARS
from wspbench.evaluation import EpisodeResults, evaluate
from wspbench.evaluation.engine import Progress
from wspbench.games import minatar_original, synth
from wspbench.tasks import MinAtarTask


def safe_message(error: BaseException, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`Type: message`, at most `limit` characters; never raises (some messages cannot be built)."""
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - e.g. an int too long to print
        text = ""
    text = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def game_names() -> dict[str, list[str]]:
    """The games of each source: {"original": [...], "synth": [...]}."""
    return {"original": list(minatar_original.ORIGINAL_SCORE_CAPS), "synth": synth.available_games()}


def find_task(game: str, source: str | None = None) -> MinAtarTask:
    """The task of `game`; with `source` None the source is inferred (game names are unique across sources).

    ValueError, with a message that says what to write instead, for an unknown game or source."""
    names = game_names()
    if source is not None and source not in names:
        raise ValueError(f"unknown source {source!r:.40}: choose {' or '.join(names)}")
    owners = [owner for owner, games in names.items() if game in games]
    if not owners:
        close = [name for games in names.values() for name in games if name == game.strip().lower().replace("-", "_")]
        hint = f" (did you mean {close[0]}?)" if close else ""
        listed = "; ".join(f"{owner}: {', '.join(games)}" for owner, games in names.items())
        raise ValueError(f"unknown game {game!r:.60}{hint}; games: {listed}")
    if source is not None and source not in owners:
        raise ValueError(f"{game} is a {owners[0]} game, not {'an' if source == 'original' else 'a'} {source} one "
                         f"(source {owners[0]})")
    return MinAtarTask(game, source or owners[0])


def grade_answer(task: MinAtarTask, answer: str, episodes: int = 1000, engine: str = "auto",
                 workers: int | None = None, progress: Progress | None = None) -> dict:
    """`{"normalized_score", game, source, episodes, parse_success, raw_score, score_cap,
    mean_episode_length, edit_count, nonzero_weights}`, or the first five and `error`."""
    result, _ = grade_answer_with_episodes(task, answer, episodes, engine, workers, progress)
    return result


def grade_answer_with_episodes(task: MinAtarTask, answer: str, episodes: int = 1000, engine: str = "auto",
                               workers: int | None = None, progress: Progress | None = None
                               ) -> tuple[dict, EpisodeResults | None]:
    """`grade_answer`, plus every episode's return and length (None when grading failed)."""
    head = {"normalized_score": 0.0, "game": task.game, "source": task.source, "episodes": episodes,
            "parse_success": 0.0}
    try:
        weights, edit_count = parse_edits(answer, task.network)
    except AnswerError as error:
        return {**head, "error": str(error)[:MAX_MESSAGE_CHARS]}, None
    except Exception as error:  # noqa: BLE001 - untrusted text gives a rejection, never a crash
        return {**head, "error": f"the answer cannot be read: {safe_message(error)}"}, None
    try:
        cap = task.score_cap
        started = time.perf_counter()
        run = evaluate(task, weights, episodes, engine=engine, workers=workers, progress=progress)
        seconds = time.perf_counter() - started
    except Exception as error:  # noqa: BLE001 - a broken game module is a result, not a crash
        return {**head, "error": f"evaluation failed: {safe_message(error)}"}, None
    result = {
        **head,
        "normalized_score": task.normalize(run.raw_score),
        "parse_success": 1.0,
        "raw_score": run.raw_score,
        "score_cap": cap,
        "mean_episode_length": run.mean_length,
        "edit_count": edit_count,
        "nonzero_weights": sum(int(np.count_nonzero(value)) for value in weights.values()),
        "seconds": round(seconds, 3),
    }
    return result, run
