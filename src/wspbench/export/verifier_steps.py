"""The grading step of an exported Harbor task: what `tests/test.sh` runs, in the verifier's own image.

    python -I -m wspbench.export.verifier_steps TASK_ID ANSWER_FILE LOGS_DIR

It reads the answer from ANSWER_FILE (the agent's declared artifact) or, when that does not exist, from
the agent's trajectory LOGS_DIR/agent/trajectory.json, grades it through the task registry on the first
WEIGHT_SPACE_EPISODES held-out episodes (default: the task's own count), with the lookup of `wsp verify`
(src/wspbench/verifier.py: `find_task`, `scoring_episodes`), and writes two files:
- LOGS_DIR/verifier/details.json: the graded answer, `Score.to_json()` (src/wspbench/tasks/spec.py);
- LOGS_DIR/verifier/reward.json: numbers only (reward = normalized_score = the normalised score,
  parse_success), because Harbor (0.26) rejects a reward.json holding strings.

The answer file is untrusted: it must be a regular file (not a symlink, FIFO, device or folder) of at
most MAX_ANSWER_BYTES bytes, read without blocking; a trajectory is read with the bounds of
src/wspbench/verifier.py.

It always ends with a reward.json: any failure, even a bug, is a reward of 0 with an `error` in
details.json. Exit status: 0 graded, 1 answer rejected, 2 unknown task, bad WEIGHT_SPACE_EPISODES or
usage, 3 no reward could be written (one line on stderr says why) or an internal error.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from pathlib import Path

from wspbench import verifier
from wspbench.answers.edits import MAX_MESSAGE_CHARS
from wspbench.tasks.spec import Score, safe_message
from wspbench.verifier import FAILED, GRADED, REJECTED, SETTINGS, SettingsError, find_task, scoring_episodes

MAX_ANSWER_BYTES = 4 * 1_000_000  # a reply is at most 1,000,000 characters, each at most 4 bytes in UTF-8
USAGE = "usage: python -I -m wspbench.export.verifier_steps TASK_ID ANSWER_FILE LOGS_DIR"


class AnswerFileError(ValueError):
    """The answer file cannot be used; the message says why."""


def read_answer_file(path: Path) -> str:
    """The answer file's text (invalid UTF-8 replaced), read with bounds and without following a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        reason = "it is a symbolic link" if os.path.islink(path) else error.strerror
        raise AnswerFileError(f"cannot open the answer file {path}: {reason}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise AnswerFileError(f"the answer file {path} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_ANSWER_BYTES + 1)
    except OSError as error:
        raise AnswerFileError(f"cannot read the answer file {path}: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_ANSWER_BYTES:
        raise AnswerFileError(f"the answer file {path} has more than {MAX_ANSWER_BYTES:,} bytes (the limit)")
    return data.decode("utf-8", errors="replace")


def read_answer(answer_file: Path, logs: Path) -> str:
    """The answer file's text, else the final agent message of LOGS/agent/trajectory.json; AnswerFileError
    (a rejected answer) when neither can be used."""
    trajectory = logs / "agent" / "trajectory.json"
    if os.path.lexists(answer_file):
        return read_answer_file(answer_file)
    if not os.path.lexists(trajectory):
        raise AnswerFileError(
            f"no answer: the answer file {answer_file} does not exist (and there is no trajectory {trajectory})"
        )
    try:
        return verifier.final_answer(verifier.read_trajectory(trajectory))
    except verifier.TrajectoryError as error:
        raise AnswerFileError(str(error)) from None


def grade(
    task_id: str, answer_file: Path, logs: Path, environ: dict[str, str] | None = None, workers: int | None = None
) -> tuple[Score, int]:
    """The graded answer and the exit status; a bad setting or answer is a rejected Score."""
    environ = os.environ if environ is None else environ
    try:
        task = find_task(task_id)
    except SettingsError as error:
        return unknown(task_id, str(error)), SETTINGS
    try:
        episodes = scoring_episodes(task, environ.get("WEIGHT_SPACE_EPISODES", str(task.default_episodes)))
    except SettingsError as error:
        return task.rejected(str(error)), SETTINGS
    try:
        text = read_answer(answer_file, logs)
    except AnswerFileError as error:
        return task.rejected(str(error)[:MAX_MESSAGE_CHARS]), REJECTED
    score = task.grade(text, episodes, workers=workers)
    return score, REJECTED if score.error else GRADED


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


def unknown(task_id: str, error: str) -> Score:
    """The result for a task id that names no task (its cap is unknown: 1)."""
    return Score(task_id[:200], 0.0, 0.0, 1.0, error=error)


def run(
    task_id: str, answer_file: Path, logs: Path, environ: dict[str, str] | None = None, workers: int | None = None
) -> int:
    """Grade and write details.json and reward.json; never raises. Returns the exit status."""
    try:
        score, code = grade(task_id, answer_file, logs, environ, workers)
        result = score.to_json()
    except Exception as error:  # noqa: BLE001 - a bug must still end in a reward of 0
        result = unknown(task_id, f"internal error of the verifier: {safe_message(error, 300)}").to_json()
        code = FAILED
    folder = logs / "verifier"
    try:
        verifier.write_reward(folder / "details.json", result)
    except Exception as error:  # noqa: BLE001 - the reward below is what Harbor needs
        print(f"wspbench verifier: cannot write {folder / 'details.json'}: {safe_message(error, 300)}", file=sys.stderr)
    try:
        verifier.write_reward(folder / "reward.json", numeric_reward(result))
    except Exception as error:  # noqa: BLE001
        print(
            f"wspbench verifier: cannot write the reward file {folder / 'reward.json'}: {safe_message(error, 300)}",
            file=sys.stderr,
        )
        return FAILED
    print(json.dumps(result))
    return code


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(USAGE, file=sys.stderr)
        return SETTINGS
    return run(argv[0], Path(argv[1]), Path(argv[2]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
