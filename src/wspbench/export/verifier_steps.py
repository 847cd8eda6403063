"""The steps an exported Harbor task's `tests/test.sh` runs around `wsp verify`.

Why they exist:
- `wrap`: in Harbor's separate-verifier mode the verifier sees the agent's answer file (an artifact),
  not the agent's trajectory; this turns the file into the one-message trajectory `wsp verify` reads.
- `reward`: Harbor (0.26) accepts only finite numbers in `reward.json`, while `wsp verify`'s result
  (DESIGN 3) also holds strings (game, source, error). The full result is kept as `details.json`; this
  writes the numeric `reward.json` Harbor reads: reward (= normalized_score), normalized_score,
  parse_success. A missing or broken result is a reward of 0, never a crash.
- `superbeam`: `wsp verify` grades MinAtar tasks only; this is the same contract for SUPERBEAM, graded
  by `superbeam.task.grade` on the first WEIGHT_SPACE_EPISODES held-out levels.

    python -m wspbench.export.verifier_steps wrap ANSWER_FILE TRAJECTORY
    python -m wspbench.export.verifier_steps superbeam TRAJECTORY DETAILS
    python -m wspbench.export.verifier_steps reward DETAILS REWARD
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

MAX_ANSWER_BYTES = 16 * 1024 * 1024


def wrap(answer_file: Path, trajectory: Path) -> None:
    """Write `answer_file`'s text as an ATIF-style trajectory with one agent message."""
    with open(answer_file, "rb") as stream:
        text = stream.read(MAX_ANSWER_BYTES + 1).decode("utf-8", errors="replace")
    trajectory.parent.mkdir(parents=True, exist_ok=True)
    trajectory.write_text(json.dumps({"schema_version": "ATIF-v1.6", "steps": [
        {"step_id": 1, "source": "agent", "message": text}]}))


def grade_superbeam(trajectory: Path | None, environ: dict[str, str] | None = None) -> dict:
    """The SUPERBEAM result in the verifier's shape: normalized_score = fraction of levels won."""
    from superbeam.task import TEST_LEVELS, grade
    from wspbench.verifier import TrajectoryError, final_answer, find_trajectory, read_trajectory

    environ = os.environ if environ is None else environ
    text = environ.get("WEIGHT_SPACE_EPISODES", str(len(TEST_LEVELS)))
    head = {"normalized_score": 0.0, "game": "superbeam", "source": "superbeam", "episodes": text,
            "parse_success": 0.0}
    try:
        count = int(text)
        if not 1 <= count <= len(TEST_LEVELS):
            raise ValueError
    except ValueError:
        return {**head, "error": f"WEIGHT_SPACE_EPISODES must be 1..{len(TEST_LEVELS)} (held-out levels)"}
    head["episodes"] = count
    try:
        answer = final_answer(read_trajectory(find_trajectory(trajectory)))
    except TrajectoryError as error:
        return {**head, "error": str(error)}
    result = grade(answer, TEST_LEVELS[:count])
    if result.get("error"):
        return {**head, "error": result["error"]}
    return {**head, "normalized_score": float(result["score"]), "parse_success": 1.0, "won": result["won"],
            "levels": result["levels"], "mean_progress": result["mean_progress"]}


def numeric_reward(details: Path) -> dict[str, float]:
    """Harbor's reward dict from a verifier result file (0 when it is missing or unreadable)."""
    try:
        result = json.loads(details.read_text())
        score = float(result["normalized_score"])
        parse = float(result.get("parse_success", 0.0))
        if not (math.isfinite(score) and math.isfinite(parse)):
            raise ValueError
    except (OSError, ValueError, KeyError, TypeError):
        score = parse = 0.0
    return {"reward": score, "normalized_score": score, "parse_success": parse}


def main(argv: list[str]) -> int:
    usage = "usage: verifier_steps wrap ANSWER TRAJECTORY | superbeam TRAJECTORY DETAILS | reward DETAILS REWARD"
    if len(argv) != 3:
        print(usage, file=sys.stderr)
        return 2
    step, first, second = argv[0], Path(argv[1]), Path(argv[2])
    second.parent.mkdir(parents=True, exist_ok=True)
    if step == "wrap":
        wrap(first, second)
    elif step == "superbeam":
        result = grade_superbeam(first)
        second.write_text(json.dumps(result))
        print(json.dumps(result))
    elif step == "reward":
        second.write_text(json.dumps(numeric_reward(first)))
    else:
        print(usage, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
