"""The Harbor verifier of the MinAtar weight tasks (the seed grader's contract, DESIGN 3).

Reads the game from `WEIGHT_SPACE_GAME`, `WEIGHT_SPACE_SOURCE` (original | synth) and
`WEIGHT_SPACE_EPISODES` (default 1000), takes the last assistant message of the trajectory, grades it
and writes `reward.json`. It always writes a reward file: a missing, empty, huge or malformed trajectory
gives score 0 with an `error` field.

Two trajectory layouts are read: the seed's `steps[].messages[] {role, content}` and Harbor's ATIF
`steps[] {source: "agent", message}`, where a message or content is a string or a list of text parts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from wspbench.grading import grade_answer
from wspbench.tasks import MinAtarTask

TRAJECTORY_PATHS = (Path("/logs/trajectory.json"), Path("/logs/agent/trajectory.json"))
REWARD_PATH = Path("/logs/verifier/reward.json")
MAX_TRAJECTORY_BYTES = 64 * 1024 * 1024
MAX_EPISODES = 100_000


class TrajectoryError(ValueError):
    """The trajectory cannot be read; the message says why."""


def read_trajectory(path: Path) -> dict:
    """The parsed trajectory file, read with a size bound."""
    try:
        size = path.stat().st_size
    except OSError:
        raise TrajectoryError(f"no trajectory file at {path}") from None
    if size == 0:
        raise TrajectoryError(f"the trajectory file {path} is empty")
    if size > MAX_TRAJECTORY_BYTES:
        raise TrajectoryError(f"the trajectory file {path} has {size:,} bytes; at most {MAX_TRAJECTORY_BYTES:,} are read")
    try:
        trajectory = json.loads(path.read_bytes())
    except (ValueError, RecursionError) as error:
        raise TrajectoryError(f"the trajectory file {path} is not valid JSON ({type(error).__name__}: {error})"[:400]) from None
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
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return None


def _episode_count(text: str) -> int:
    try:
        episodes = int(text)
    except ValueError:
        episodes = 0
    if not 1 <= episodes <= MAX_EPISODES:
        raise ValueError(f"WEIGHT_SPACE_EPISODES must be an integer from 1 to {MAX_EPISODES:,}, not {text!r:.40}")
    return episodes


def find_trajectory(explicit: Path | None) -> Path:
    if explicit is not None:
        return explicit
    return next((path for path in TRAJECTORY_PATHS if path.exists()), TRAJECTORY_PATHS[0])


def verify(trajectory_path: Path | None = None, reward_path: Path = REWARD_PATH,
           environ: dict[str, str] | None = None, workers: int | None = None) -> dict:
    """Grade the trajectory's final answer and write the reward file; returns what was written."""
    environ = os.environ if environ is None else environ
    game = environ.get("WEIGHT_SPACE_GAME", "")
    source = environ.get("WEIGHT_SPACE_SOURCE", "original")
    episodes_text = environ.get("WEIGHT_SPACE_EPISODES", "1000")
    head = {"normalized_score": 0.0, "game": game, "source": source, "episodes": episodes_text, "parse_success": 0.0}
    try:
        episodes = _episode_count(episodes_text)
        head["episodes"] = episodes
        if not game:
            raise ValueError("WEIGHT_SPACE_GAME is not set")
        task = MinAtarTask(game, source)
        answer = final_answer(read_trajectory(find_trajectory(trajectory_path)))
        reward = grade_answer(task, answer, episodes, workers=workers)
        reward.pop("seconds", None)
    except ValueError as error:  # a TrajectoryError, an unknown source, a bad episode count
        reward = {**head, "error": str(error)}
    reward_path.parent.mkdir(parents=True, exist_ok=True)
    reward_path.write_text(json.dumps(reward))
    return reward
