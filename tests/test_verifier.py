"""The Harbor verifier: both trajectory layouts, and a reward file with an error for every bad input."""

import json
import os
import subprocess
import sys

import pytest

from wspbench.grading import grade_answer
from wspbench.tasks import MinAtarTask
from wspbench.verifier import MAX_TRAJECTORY_BYTES, verify

ENVIRON = {"WEIGHT_SPACE_GAME": "breakout", "WEIGHT_SPACE_SOURCE": "original", "WEIGHT_SPACE_EPISODES": "20"}
ANSWER = "My plan.\n```edits\nb3[3] = 2.0\nb3[1] = 1.0\n```"


def seed_trajectory(answer):
    return {"steps": [{"messages": [{"role": "user", "content": "write weights"},
                                    {"role": "assistant", "content": answer}]}]}


def atif_trajectory(message):
    return {"schema_version": "ATIF-v1.6", "steps": [
        {"step_id": 1, "source": "user", "message": "write weights"},
        {"step_id": 2, "source": "agent", "message": "draft ```edits\nb3[0] = 9\n```"},
        {"step_id": 3, "source": "agent", "message": message},
        {"step_id": 4, "source": "user", "message": "thanks"}]}


def run(tmp_path, content, environ=ENVIRON):
    trajectory = tmp_path / "trajectory.json"
    if content is not None:
        trajectory.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    reward_path = tmp_path / "verifier" / "reward.json"
    written = verify(trajectory, reward_path, environ=environ, workers=1)
    assert json.loads(reward_path.read_text()) == written
    return written


def expected_reward():
    result = grade_answer(MinAtarTask("breakout"), ANSWER, 20, workers=1)
    result.pop("seconds")
    return result


@pytest.mark.parametrize("trajectory", [
    seed_trajectory(ANSWER),
    seed_trajectory([{"type": "text", "text": ANSWER}]),
    atif_trajectory(ANSWER),
    atif_trajectory([{"type": "text", "text": ANSWER}]),
])
def test_both_layouts_give_the_graded_reward(tmp_path, trajectory):
    assert run(tmp_path, trajectory) == expected_reward()


def test_reward_keys_follow_the_seed_contract(tmp_path):
    assert list(run(tmp_path, seed_trajectory(ANSWER))) == [
        "normalized_score", "game", "source", "episodes", "parse_success", "raw_score", "score_cap",
        "mean_episode_length", "edit_count", "nonzero_weights"]


@pytest.mark.parametrize("content, message", [
    (None, "no trajectory file"),
    (b"", "is empty"),
    (b"{not json", "not valid JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
    (b"[1, 2]", "JSON object"),
    ({"steps": "nope"}, "no `steps` list"),
    ({"steps": [{"messages": [{"role": "user", "content": "hi"}]}]}, "no assistant message"),
    (seed_trajectory("no block"), "no ```edits block"),
    (seed_trajectory("```edits\nW1[0, 0] = nan\n```"), "values must be plain numbers"),
])
def test_bad_trajectories_give_zero_and_an_error(tmp_path, content, message):
    reward = run(tmp_path, content)
    assert reward["normalized_score"] == 0.0 and reward["parse_success"] == 0.0
    assert message in reward["error"]


def test_huge_trajectory_is_not_read(tmp_path):
    trajectory = tmp_path / "trajectory.json"
    with open(trajectory, "wb") as handle:
        handle.truncate(MAX_TRAJECTORY_BYTES + 1)  # sparse: no disk used
    reward = run(tmp_path, None)
    assert "bytes; at most" in reward["error"] and reward["normalized_score"] == 0.0


@pytest.mark.parametrize("environ, message", [
    ({**ENVIRON, "WEIGHT_SPACE_EPISODES": "many"}, "WEIGHT_SPACE_EPISODES must be an integer"),
    ({**ENVIRON, "WEIGHT_SPACE_EPISODES": "0"}, "WEIGHT_SPACE_EPISODES must be an integer"),
    ({**ENVIRON, "WEIGHT_SPACE_SOURCE": "atari"}, "unknown source"),
    ({k: v for k, v in ENVIRON.items() if k != "WEIGHT_SPACE_GAME"}, "WEIGHT_SPACE_GAME is not set"),
    ({**ENVIRON, "WEIGHT_SPACE_GAME": "pong"}, "evaluation failed"),
    ({**ENVIRON, "WEIGHT_SPACE_SOURCE": "synth", "WEIGHT_SPACE_GAME": "no_such_game"}, "evaluation failed"),
])
def test_bad_settings_give_zero_and_an_error(tmp_path, environ, message):
    reward = run(tmp_path, seed_trajectory(ANSWER), environ)
    assert reward["normalized_score"] == 0.0 and message in reward["error"]


def test_wsp_verify_command(tmp_path):
    trajectory = tmp_path / "agent" / "trajectory.json"
    trajectory.parent.mkdir()
    trajectory.write_text(json.dumps(atif_trajectory(ANSWER)))
    reward_path = tmp_path / "verifier" / "reward.json"
    environment = {**os.environ, **ENVIRON}
    subprocess.run([sys.executable, "-m", "wspbench.cli", "verify", "--trajectory", str(trajectory),
                    "--reward", str(reward_path), "--workers", "1"], check=True, env=environment,
                   capture_output=True)
    assert json.loads(reward_path.read_text()) == expected_reward()
