"""Grading outside a run, in one place: the two Harbor verifiers and the seed grader's result format.

- `wsp verify` (`main`), the seed contract (README.md): reads the task from `WEIGHT_SPACE_GAME` (a game name or
  any registry task id: `breakout`, `synth/ferry`, `identify-choice/ferry/3`, `superbeam`), `WEIGHT_SPACE_SOURCE`
  (original | synth, put before the game; unset for a full id or to infer it from the game) and
  `WEIGHT_SPACE_EPISODES` (default: the task's own count, 1000 for MinAtar), takes the last assistant message of
  the trajectory, grades it as that task and writes `reward.json` (`verifier_result`: the seed's format for
  MinAtar writing tasks, tests/data/minatar_original_expected.json).
- An exported Harbor task's grading step (`run_step`), what its `tests/test.sh` runs in the verifier's image:

      python -I -m wspbench.verifier TASK_ID ANSWER_FILE LOGS_DIR

  reads the answer from ANSWER_FILE (the agent's declared artifact: a regular file, not a link, of at most
  4 bytes per character of the task's `max_answer_chars`) or, when that does not exist, from the trajectory
  LOGS_DIR/agent/trajectory.json, and writes LOGS_DIR/verifier/details.json (`Score.to_json()`) and
  LOGS_DIR/verifier/reward.json, numbers only (reward = normalized_score, parse_success), because Harbor (0.26)
  rejects a reward.json holding strings.

Both always end with a reward file when one can be written (`files.write_atomic`: never half a file, never
through a link): any failure, even a bug, is a reward of 0 with an `error`. Exit codes:
  0  graded: the reward holds the metrics;
  1  the answer was rejected (bad trajectory, answer file or answer): the reward is 0 with an `error`;
  2  the settings are wrong (unknown task, an episode count outside the task's range, usage);
  3  the verifier failed: no reward could be written (the path is a folder, a device, read-only, the disk is
     full), or an unexpected error (then a reward of 0 with an `error` is still written when possible). One
     line on stderr says why.

Trajectories are untrusted and bounded: at most MAX_TRAJECTORY_BYTES bytes of a regular file (never a FIFO or a
device, which could block), at most MAX_TRAJECTORY_VALUES JSON values (counted before parsing, so that a file of
tiny containers cannot take gigabytes) and the JSON decoder's own nesting limit. Two layouts are read: the seed's
`steps[].messages[] {role, content}` and Harbor's ATIF `steps[] {source: "agent", message}`, where a message or
content is a string or a list of text parts.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

from wspbench.answers.edits import MAX_MESSAGE_CHARS
from wspbench.evaluation import DEFAULT, Grading
from wspbench.files import InputFileError, read_bounded, write_atomic
from wspbench.games.minatar import MinAtarGame, seed_name
from wspbench.tasks import get_task
from wspbench.tasks.spec import Score, Task, family_of, safe_message

TRAJECTORY_PATHS = (Path("/logs/trajectory.json"), Path("/logs/agent/trajectory.json"))
REWARD_PATH = Path("/logs/verifier/reward.json")
MAX_TRAJECTORY_BYTES = 32 * 1024 * 1024
MAX_TRAJECTORY_VALUES = 1_000_000
MAX_EPISODES = 100_000
ATIF_AGENT = "agent"  # an ATIF step's `source` when the agent took it (Harbor's trajectory format)
GRADED, REJECTED, SETTINGS, FAILED = 0, 1, 2, 3
USAGE = "usage: python -I -m wspbench.verifier TASK_ID ANSWER_FILE LOGS_DIR"

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STRUCTURE = (b",", b"[", b"{")


class TrajectoryError(ValueError):
    """The trajectory cannot be read; the message says why."""


class SettingsError(ValueError):
    """A WEIGHT_SPACE_* setting or the task id is wrong; the message says which."""


class AnswerFileError(ValueError):
    """The answer file cannot be used; the message says why."""


def _value_count(data: bytes) -> int:
    """An upper bound on the JSON values in `data`: commas and opening brackets outside strings, plus one.

    Counting the whole text first is a few passes in C; only when that count is over the limit are the
    brackets inside strings subtracted, string by string (stopping once the strings alone are too many)."""
    count = 1 + sum(data.count(char) for char in _STRUCTURE)
    if count <= MAX_TRAJECTORY_VALUES:
        return count
    for strings, match in enumerate(_STRING.finditer(data)):
        if strings > MAX_TRAJECTORY_VALUES:
            break
        start, end = match.span()
        count -= sum(data.count(char, start, end) for char in _STRUCTURE)
    return count


def read_trajectory(path: Path) -> dict:
    """The parsed trajectory file, read with bounds on its size and its number of values."""
    try:
        data = read_bounded(path, MAX_TRAJECTORY_BYTES, "trajectory file")
    except InputFileError as error:
        raise TrajectoryError(str(error)) from None
    if not data:
        raise TrajectoryError(f"the trajectory file {path} is empty")
    if _value_count(data) > MAX_TRAJECTORY_VALUES:
        raise TrajectoryError(
            f"the trajectory file {path} holds more than {MAX_TRAJECTORY_VALUES:,} JSON values (the limit)"
        )
    try:
        trajectory = json.loads(data)
    except RecursionError:
        raise TrajectoryError(f"the trajectory file {path} is not valid JSON: it is nested too deeply") from None
    except ValueError as error:
        raise TrajectoryError(f"the trajectory file {path} is not valid JSON ({safe_message(error, 300)})") from None
    if not isinstance(trajectory, dict):
        raise TrajectoryError("the trajectory must be a JSON object with a `steps` list")
    return trajectory


def final_answer(trajectory: dict) -> str:
    """The text of the last assistant (seed format) or agent (ATIF) message."""
    steps = trajectory.get("steps")
    if not isinstance(steps, list):
        raise TrajectoryError("the trajectory has no `steps` list")
    for step in reversed(steps):
        if not isinstance(step, dict):
            continue
        if isinstance(step.get("messages"), list):
            for message in reversed(step["messages"]):
                if isinstance(message, dict) and message.get("role") == "assistant":
                    text = _text(message.get("content"))
                    if text is not None:
                        return text
        elif step.get("source") == ATIF_AGENT:
            text = _text(step.get("message"))
            if text is not None:
                return text
    raise TrajectoryError("the trajectory has no assistant message")


def _text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_part_text(part) for part in content if isinstance(part, dict))
    return None


def _part_text(part: dict) -> str:
    text = part.get("text", "")
    return text if isinstance(text, str) else ""


def find_task(name: str, source: str | None = None) -> Task:
    """The registry task `name` names (any id, public id or bare game name; with `source`, `source/name`), or
    SettingsError saying what to write instead."""
    try:
        return get_task(seed_name(name, source) if source else name)
    except ValueError as error:
        raise SettingsError(str(error)[:MAX_MESSAGE_CHARS]) from None


def scoring_episodes(task: Task, text: str) -> list[int]:
    """The task's first `text` held-out episodes, or SettingsError stating the task's own range: at least what
    it grades with (repair: 50), at most what it has (SUPERBEAM: 20 levels) and MAX_EPISODES."""
    low, high = len(task.scoring_episodes(1)), min(task.max_episodes, MAX_EPISODES)
    try:
        count = int(text)
    except ValueError:
        count = 0
    episodes = task.scoring_episodes(count) if low <= count <= high else []
    if len(episodes) != count or not episodes:
        raise SettingsError(
            f"WEIGHT_SPACE_EPISODES must be an integer from {low:,} to {high:,} (held-out episodes of {task.id}), "
            f"not {text!r:.40}"
        )
    return episodes


# --- the seed's result format ---------------------------------------------------------------------


def seed_game(task: Task) -> MinAtarGame | None:
    """The MinAtar game that `task` is the writing task of in the seed contract, as the task says (`Task.seed_game`:
    original/*, synth/*, gen/*; identify and repair tasks are bound to a game too, but are not its task)."""
    return task.seed_game()


def grade_answer(
    task: Task,
    answer: str,
    episodes: int = 1000,
    grading: Grading = DEFAULT,
) -> dict:
    """The reference grader's result for a MinAtar writing task's answer: `{"normalized_score", game, source,
    episodes, parse_success, raw_score, score_cap, mean_episode_length, edit_count, nonzero_weights, seconds}`,
    or the first five and `error`."""
    game = seed_game(task)
    if game is None:
        raise ValueError(f"{task.id} is not a MinAtar writing task (original/<game>, synth/<game>, gen/<seed>)")
    return reference_result(game, task.grade(answer, task.scoring_episodes(episodes), grading), episodes)


def reference_result(game: MinAtarGame, score: Score, episodes: int) -> dict:
    """A Score as the reference grader's metadata dict."""
    return _result(game.game, game.seed_source, score, episodes, ("edit_count", "nonzero_weights"))


def verifier_result(task: Task, score: Score, episodes: int) -> dict:
    """What `wsp verify` writes for a graded answer: `reference_result` for a MinAtar writing task (the seed's
    format, exactly); for every other task the same keys, with the task id as `game` and its group as `source`
    (`identify-choice`, `repair`, `superbeam`), and no edit counts."""
    game = seed_game(task)
    if game is not None:
        return reference_result(game, score, episodes)
    return _result(task.id, family_of(task.id), score, episodes, ())


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


# --- wsp verify -----------------------------------------------------------------------------------


def find_trajectory(explicit: Path | None) -> Path:
    if explicit is not None:
        return explicit
    return next((path for path in TRAJECTORY_PATHS if path.exists()), TRAJECTORY_PATHS[0])


def grade_trajectory(
    trajectory_path: Path | None = None, environ: dict[str, str] | None = None, workers: int | None = None
) -> tuple[dict, int]:
    """The reward for the trajectory's final answer, and the exit code (see the module docstring).

    Never raises: an unexpected error is a reward of 0 with an `error` field and exit code 3."""
    environ = os.environ if environ is None else environ
    game = environ.get("WEIGHT_SPACE_GAME", "")
    source = environ.get("WEIGHT_SPACE_SOURCE") or None
    episodes_text = environ.get("WEIGHT_SPACE_EPISODES")
    head = {
        "normalized_score": 0.0,
        "game": game[:100],
        "source": (source or "original")[:100],
        "episodes": None if episodes_text is None else episodes_text[:40],
        "parse_success": 0.0,
    }
    task, code = None, GRADED
    try:
        if not game:
            raise SettingsError("WEIGHT_SPACE_GAME is not set")
        try:
            task = find_task(game, source)
        except SettingsError as error:
            raise SettingsError(f"WEIGHT_SPACE_GAME/WEIGHT_SPACE_SOURCE: {error}") from None
        episodes = scoring_episodes(task, str(task.default_episodes) if episodes_text is None else episodes_text)
        head["episodes"] = len(episodes)
        answer = final_answer(read_trajectory(find_trajectory(trajectory_path)))
        reward = verifier_result(task, task.grade(answer, episodes, Grading(workers=workers)), len(episodes))
        reward.pop("seconds", None)
        if "error" in reward:
            code = REJECTED
    except (SettingsError, TrajectoryError) as error:
        code = SETTINGS if isinstance(error, SettingsError) else REJECTED
        reward = {**head, "error": str(error)}
        if task is not None:
            reward = verifier_result(task, task.rejected(str(error)), head["episodes"])
    except Exception as error:  # noqa: BLE001 - a bug must still end in a reward of 0, not a traceback
        reward, code = {**head, "error": f"internal error of the verifier: {safe_message(error)}"}, FAILED
    if "error" in reward:
        reward["error"] = reward["error"][:MAX_MESSAGE_CHARS]
    return reward, code


def write_reward(path: Path, reward: dict) -> None:
    """Write `reward` as JSON at `path` atomically, never through a link (`files.write_atomic`); OSError says
    why it could not."""
    write_atomic(path, json.dumps(reward).encode())


def verify(
    trajectory_path: Path | None = None,
    reward_path: Path = REWARD_PATH,
    environ: dict[str, str] | None = None,
    workers: int | None = None,
) -> dict:
    """Grade the trajectory's final answer and write the reward file; returns what was written.

    Raises OSError only when the reward file cannot be written."""
    reward, _ = grade_trajectory(trajectory_path, environ, workers)
    write_reward(reward_path, reward)
    return reward


def main(
    trajectory_path: Path | None = None,
    reward_path: Path = REWARD_PATH,
    environ: dict[str, str] | None = None,
    workers: int | None = None,
) -> tuple[dict, int]:
    """`verify`, never raising: the reward and the exit code; a failure is one line on stderr."""
    reward, code = grade_trajectory(trajectory_path, environ, workers)
    if code == FAILED:
        print(f"wsp verify: {reward['error']}", file=sys.stderr)
    try:
        write_reward(reward_path, reward)
    except Exception as error:  # noqa: BLE001 - reported in one line
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        print(f"wsp verify: cannot write the reward file {reward_path}: {why[:MAX_MESSAGE_CHARS]}", file=sys.stderr)
        return reward, FAILED
    return reward, code


# --- an exported task's grading step --------------------------------------------------------------


def read_answer(task: Task, answer_file: Path, logs: Path) -> str:
    """The answer file's text (invalid UTF-8 replaced), else the final agent message of
    LOGS/agent/trajectory.json; AnswerFileError (a rejected answer) when neither can be used."""
    trajectory = logs / "agent" / "trajectory.json"
    try:
        if os.path.lexists(answer_file):
            limit = 4 * task.max_answer_chars  # UTF-8: a longer file has more characters than `read` takes
            return read_bounded(answer_file, limit, "answer file", follow=False).decode("utf-8", errors="replace")
        if not os.path.lexists(trajectory):
            raise AnswerFileError(
                f"no answer: the answer file {answer_file} does not exist (and there is no trajectory {trajectory})"
            )
        return final_answer(read_trajectory(trajectory))
    except (InputFileError, TrajectoryError) as error:
        raise AnswerFileError(str(error)) from None


def grade_step(
    task_id: str, answer_file: Path, logs: Path, environ: dict[str, str] | None = None, workers: int | None = None
) -> tuple[Score, int]:
    """The graded answer and the exit status; a bad setting or answer is a rejected Score. The Score names the
    task by its public id (`Task.public`: an exported reading task's opaque id), never by an id that names its
    answer."""
    environ = os.environ if environ is None else environ
    try:
        task = find_task(task_id)
    except SettingsError as error:
        return unknown(task_id, str(error)), SETTINGS
    public = task.public().id
    try:
        episodes = scoring_episodes(task, environ.get("WEIGHT_SPACE_EPISODES", str(task.default_episodes)))
    except SettingsError as error:
        return replace(task.rejected(str(error)), task=public), SETTINGS
    try:
        text = read_answer(task, answer_file, logs)
    except AnswerFileError as error:
        return replace(task.rejected(str(error)[:MAX_MESSAGE_CHARS]), task=public), REJECTED
    score = replace(task.grade(text, episodes, Grading(workers=workers)), task=public)
    return score, REJECTED if score.error else GRADED


def unknown(task_id: str, error: str) -> Score:
    """The result for a task id that names no task, or a grading that failed before it had one (cap unknown: 1)."""
    return Score(task_id[:200], 0.0, 0.0, 1.0, error=error)


def numeric_reward(result: dict) -> dict[str, float]:
    """Harbor's reward dict from a graded answer's JSON (0 when it has no finite score)."""
    try:
        score = float(result["normalized"])
        parse = 0.0 if result.get("error") else 1.0
        if not math.isfinite(score):
            raise ValueError
    except (ValueError, KeyError, TypeError, AttributeError):
        score = parse = 0.0
    return {"reward": score, "normalized_score": score, "parse_success": parse}


def run_step(
    task_id: str, answer_file: Path, logs: Path, environ: dict[str, str] | None = None, workers: int | None = None
) -> int:
    """Grade and write details.json and reward.json; never raises. Returns the exit status."""
    try:
        score, code = grade_step(task_id, answer_file, logs, environ, workers)
        result = score.to_json()
    except Exception as error:  # noqa: BLE001 - a bug must still end in a reward of 0
        failure = f"internal error of the verifier: {safe_message(error, 300)}"
        result, code = unknown(task_id, failure).to_json(), FAILED
    folder = logs / "verifier"
    try:
        write_reward(folder / "details.json", result)
    except Exception as error:  # noqa: BLE001 - the reward below is what Harbor needs
        print(f"wspbench verifier: cannot write {folder / 'details.json'}: {safe_message(error, 300)}", file=sys.stderr)
    try:
        write_reward(folder / "reward.json", numeric_reward(result))
    except Exception as error:  # noqa: BLE001
        print(
            f"wspbench verifier: cannot write the reward file {folder / 'reward.json'}: {safe_message(error, 300)}",
            file=sys.stderr,
        )
        return FAILED
    print(json.dumps(result))
    return code


def step_main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(USAGE, file=sys.stderr)
        return SETTINGS
    return run_step(argv[0], Path(argv[1]), Path(argv[2]))


if __name__ == "__main__":
    sys.exit(step_main(sys.argv[1:]))
