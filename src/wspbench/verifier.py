"""The Harbor verifier of the MinAtar weight tasks (the seed grader's contract, see README.md), and the
trajectory reader that every exported task's grading step uses (src/wspbench/export/verifier_steps.py).

Reads the task from `WEIGHT_SPACE_GAME` (a game name or any registry task id: `breakout`, `synth/ferry`,
`identify-choice/ferry/3`, `repair/breakout/swap_actions`, `superbeam`), `WEIGHT_SPACE_SOURCE` (original |
synth, put before the game; unset for a full id or to infer it from the game) and `WEIGHT_SPACE_EPISODES`
(default: the task's own count, 1000 for MinAtar), takes the last assistant message of the trajectory, grades it
as that registry task and writes `reward.json` (`grading.verifier_result`: the seed's format for MinAtar writing
tasks). `find_task` and `scoring_episodes` are also the lookup of the exported tasks' grading step. The reward
file is written atomically and without following a link (a temporary file in the same folder, then
`os.replace`, which replaces a planted symlink instead of writing through it), so a reader never sees half of it.

`main` never raises. Its exit codes:
  0  graded: the reward holds the metrics;
  1  the answer was rejected (bad trajectory or bad answer): the reward is 0 with an `error` field;
  2  the settings are wrong (unknown task, an episode count outside the task's range): the reward is 0 with
     an `error`;
  3  the verifier failed: no reward could be written (the path is a directory, a device, read-only, the
     disk is full), or an unexpected error (then a reward of 0 with an `error` is still written when
     possible). One line on stderr says why.

Trajectories are untrusted and bounded: at most MAX_TRAJECTORY_BYTES bytes of a regular file (never a
FIFO or a device, which could block), at most MAX_TRAJECTORY_VALUES JSON values (counted before parsing,
so that a file of tiny containers cannot take gigabytes) and the JSON decoder's own nesting limit.

Two trajectory layouts are read: the seed's `steps[].messages[] {role, content}` and Harbor's ATIF
`steps[] {source: "agent", message}`, where a message or content is a string or a list of text parts.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

from wspbench.answers.edits import MAX_MESSAGE_CHARS
from wspbench.grading import verifier_result
from wspbench.inputs import InputFileError, read_bounded
from wspbench.tasks import get_task
from wspbench.tasks.spec import Task, safe_message

TRAJECTORY_PATHS = (Path("/logs/trajectory.json"), Path("/logs/agent/trajectory.json"))
REWARD_PATH = Path("/logs/verifier/reward.json")
MAX_TRAJECTORY_BYTES = 32 * 1024 * 1024
MAX_TRAJECTORY_VALUES = 1_000_000
MAX_EPISODES = 100_000
GRADED, REJECTED, SETTINGS, FAILED = 0, 1, 2, 3

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_STRUCTURE = (b",", b"[", b"{")


class TrajectoryError(ValueError):
    """The trajectory cannot be read; the message says why."""


class SettingsError(ValueError):
    """A WEIGHT_SPACE_* setting is wrong; the message says which."""


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
        elif step.get("source") == "agent":
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


def find_task(task_id: str) -> Task:
    """The registry task with this id (or bare game name), or SettingsError saying what to write instead."""
    try:
        return get_task(task_id)
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
            task = find_task(f"{source}/{game}" if source else game)
        except SettingsError as error:
            raise SettingsError(f"WEIGHT_SPACE_GAME/WEIGHT_SPACE_SOURCE: {error}") from None
        episodes = scoring_episodes(task, str(task.default_episodes) if episodes_text is None else episodes_text)
        head["episodes"] = len(episodes)
        answer = final_answer(read_trajectory(find_trajectory(trajectory_path)))
        reward = verifier_result(task, task.grade(answer, episodes, workers=workers), len(episodes))
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
    """Write `reward` as JSON at `path` atomically, never through a link: a temporary file in the same folder
    (created with O_EXCL, so not through a planted link either), then `os.replace`, which replaces a symlink at
    `path` itself rather than the file it points to. OSError says why it could not."""
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        mode = os.lstat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise OSError("it is not a regular file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OSError(f"{path.parent} is not a folder") from None
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as stream:
            stream.write(json.dumps(reward))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


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
