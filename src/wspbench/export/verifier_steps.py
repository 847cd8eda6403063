"""The grading step of an exported Harbor task: what `tests/test.sh` runs, in the verifier's own image.

    python -I -m wspbench.export.verifier_steps minatar|superbeam ANSWER_FILE LOGS_DIR

It reads the answer from ANSWER_FILE (the agent's declared artifact) or, when that does not exist, from
the agent's trajectory LOGS_DIR/agent/trajectory.json, grades it with the task's WEIGHT_SPACE_* settings
and writes two files:
- LOGS_DIR/verifier/details.json: the verifier's full result (the contract of src/wspbench/verifier.py:
  normalized_score, game, source, episodes, parse_success, metrics or `error`);
- LOGS_DIR/verifier/reward.json: numbers only (reward = normalized_score, normalized_score,
  parse_success), because Harbor (0.26) rejects a reward.json holding strings.

The answer file is untrusted: it must be a regular file (not a symlink, FIFO, device or folder) of at
most MAX_ANSWER_BYTES bytes, read without blocking. `wsp verify` grades MinAtar tasks; SUPERBEAM is the
same contract graded by `superbeam.task.grade` on the first WEIGHT_SPACE_EPISODES held-out levels.

It always ends with a reward.json: any failure, even a bug, is a reward of 0 with an `error` in
details.json. Exit status: 0 graded, 1 answer rejected, 2 bad WEIGHT_SPACE_* settings or usage,
3 no reward could be written (one line on stderr says why) or an internal error.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from pathlib import Path

MAX_ANSWER_BYTES = 4 * 1_000_000  # a reply is at most 1,000,000 characters, each at most 4 bytes in UTF-8
MAX_ERROR_CHARS = 2_000
GRADED, REJECTED, SETTINGS, FAILED = 0, 1, 2, 3
FAMILIES = ("minatar", "superbeam")
USAGE = "usage: python -I -m wspbench.export.verifier_steps minatar|superbeam ANSWER_FILE LOGS_DIR"


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


def wrap(text: str, trajectory: Path) -> None:
    """Write `text` as an ATIF-style trajectory with one agent message (what the verifier grades)."""
    trajectory.parent.mkdir(parents=True, exist_ok=True)
    trajectory.write_text(json.dumps({"schema_version": "ATIF-v1.6", "steps": [
        {"step_id": 1, "source": "agent", "message": text}]}))


def grade_superbeam(trajectory: Path | None, environ: dict[str, str] | None = None) -> tuple[dict, int]:
    """The SUPERBEAM result in the verifier's shape (normalized_score = fraction of levels won), and the
    exit code."""
    from superbeam.task import TEST_LEVELS, grade
    from wspbench import verifier

    environ = os.environ if environ is None else environ
    text = environ.get("WEIGHT_SPACE_EPISODES", str(len(TEST_LEVELS)))
    head = {"normalized_score": 0.0, "game": "superbeam", "source": "superbeam", "episodes": text[:40],
            "parse_success": 0.0}
    try:
        count = int(text)
        if not 1 <= count <= len(TEST_LEVELS):
            raise ValueError
    except ValueError:
        return {**head, "error": f"WEIGHT_SPACE_EPISODES must be 1..{len(TEST_LEVELS)} (held-out levels)"}, SETTINGS
    head["episodes"] = count
    try:
        answer = verifier.final_answer(verifier.read_trajectory(verifier.find_trajectory(trajectory)))
    except verifier.TrajectoryError as error:
        return {**head, "error": str(error)[:MAX_ERROR_CHARS]}, REJECTED
    result = grade(answer, TEST_LEVELS[:count])
    if result.get("error"):
        return {**head, "error": str(result["error"])[:MAX_ERROR_CHARS]}, REJECTED
    return {**head, "normalized_score": float(result["score"]), "parse_success": 1.0, "won": result["won"],
            "levels": result["levels"], "mean_progress": result["mean_progress"]}, GRADED


def grade(family: str, answer_file: Path, logs: Path, environ: dict[str, str] | None = None) -> tuple[dict, int]:
    """The verifier's result for the answer file, or the agent's trajectory when there is no answer file."""
    environ = os.environ if environ is None else environ
    trajectory = logs / "agent" / "trajectory.json"
    if os.path.lexists(answer_file):
        try:
            text = read_answer_file(answer_file)
        except AnswerFileError as error:
            return {**_head(family, environ), "error": str(error)}, REJECTED
        trajectory = logs / "verifier" / "answer-trajectory.json"
        wrap(text, trajectory)
    elif not os.path.lexists(trajectory):
        return {**_head(family, environ), "error": f"no answer: the answer file {answer_file} does not exist "
                                                   f"(and there is no trajectory {trajectory})"}, REJECTED
    if family == "superbeam":
        return grade_superbeam(trajectory, environ)
    from wspbench.verifier import grade_trajectory
    return grade_trajectory(trajectory, environ)


def _head(family: str, environ: dict[str, str]) -> dict:
    if family == "superbeam":
        game = source = "superbeam"
    else:
        game, source = environ.get("WEIGHT_SPACE_GAME", ""), environ.get("WEIGHT_SPACE_SOURCE") or "original"
    return {"normalized_score": 0.0, "game": game[:60], "source": source[:60],
            "episodes": environ.get("WEIGHT_SPACE_EPISODES", "")[:40], "parse_success": 0.0}


def numeric_reward(result: dict) -> dict[str, float]:
    """Harbor's reward dict from a verifier result (0 when the result has no finite score)."""
    try:
        score = float(result["normalized_score"])
        parse = float(result.get("parse_success", 0.0))
        if not (math.isfinite(score) and math.isfinite(parse)):
            raise ValueError
    except (ValueError, KeyError, TypeError, AttributeError):
        score = parse = 0.0
    return {"reward": score, "normalized_score": score, "parse_success": parse}


def run(family: str, answer_file: Path, logs: Path, environ: dict[str, str] | None = None) -> int:
    """Grade and write details.json and reward.json; never raises. Returns the exit status."""
    from wspbench.verifier import write_reward

    try:
        result, code = grade(family, answer_file, logs, environ)
    except Exception as error:  # noqa: BLE001 - a bug must still end in a reward of 0
        result = {**_head(family, os.environ if environ is None else environ),
                  "error": f"internal error of the verifier: {_safe(error)}"}
        code = FAILED
    verifier = logs / "verifier"
    try:
        write_reward(verifier / "details.json", result)
    except Exception as error:  # noqa: BLE001 - the reward below is what Harbor needs
        print(f"wspbench verifier: cannot write {verifier / 'details.json'}: {_safe(error)}", file=sys.stderr)
    try:
        write_reward(verifier / "reward.json", numeric_reward(result))
    except Exception as error:  # noqa: BLE001
        print(f"wspbench verifier: cannot write the reward file {verifier / 'reward.json'}: {_safe(error)}",
              file=sys.stderr)
        return FAILED
    print(json.dumps(result))
    return code


def _safe(error: BaseException) -> str:
    try:
        text = f"{type(error).__name__}: {error}"
    except Exception:  # noqa: BLE001 - some messages cannot be built
        text = type(error).__name__
    return text[:300]


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[0] not in FAMILIES:
        print(USAGE, file=sys.stderr)
        return SETTINGS
    return run(argv[0], Path(argv[1]), Path(argv[2]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
