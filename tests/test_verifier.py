"""The Harbor verifier: both trajectory layouts, and a reward file with an error for every bad input."""

import json
import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from wspbench.answers import AnswerError, parse_edits
from wspbench.evaluation import ONE_WORKER
from wspbench.tasks import all_tasks, get_task
from wspbench.verifier import (
    FAILED,
    GRADED,
    MAX_TRAJECTORY_BYTES,
    MAX_TRAJECTORY_VALUES,
    REJECTED,
    find_task,
    grade_answer,
    grade_trajectory,
    main,
    scoring_episodes,
    seed_game,
    verify,
)

ENVIRON = {"WEIGHT_SPACE_GAME": "breakout", "WEIGHT_SPACE_SOURCE": "original", "WEIGHT_SPACE_EPISODES": "20"}
ANSWER = "My plan.\n```edits\nb3[3] = 2.0\nb3[1] = 1.0\n```"


def seed_trajectory(answer):
    return {
        "steps": [
            {"messages": [{"role": "user", "content": "write weights"}, {"role": "assistant", "content": answer}]}
        ]
    }


def atif_trajectory(message):
    return {
        "schema_version": "ATIF-v1.6",
        "steps": [
            {"step_id": 1, "source": "user", "message": "write weights"},
            {"step_id": 2, "source": "agent", "message": "draft ```edits\nb3[0] = 9\n```"},
            {"step_id": 3, "source": "agent", "message": message},
            {"step_id": 4, "source": "user", "message": "thanks"},
        ],
    }


def run(tmp_path, content, environ=ENVIRON):
    trajectory = tmp_path / "trajectory.json"
    if content is not None:
        trajectory.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    reward_path = tmp_path / "verifier" / "reward.json"
    written = verify(trajectory, reward_path, environ=environ, workers=1)
    assert json.loads(reward_path.read_text()) == written
    return written


def expected_reward():
    result = grade_answer(get_task("original/breakout"), ANSWER, 20, ONE_WORKER)
    result.pop("seconds")
    return result


@pytest.mark.parametrize(
    "trajectory",
    [
        seed_trajectory(ANSWER),
        seed_trajectory([{"type": "text", "text": ANSWER}]),
        atif_trajectory(ANSWER),
        atif_trajectory([{"type": "text", "text": ANSWER}]),
    ],
)
def test_both_layouts_give_the_graded_reward(tmp_path, trajectory):
    assert run(tmp_path, trajectory) == expected_reward()


def test_reward_keys_follow_the_seed_contract(tmp_path):
    assert list(run(tmp_path, seed_trajectory(ANSWER))) == [
        "normalized_score",
        "game",
        "source",
        "episodes",
        "parse_success",
        "raw_score",
        "score_cap",
        "mean_episode_length",
        "edit_count",
        "nonzero_weights",
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "there is no trajectory file"),
        (b"", "is empty"),
        (b"{not json", "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        ({"steps": "nope"}, "no `steps` list"),
        ({"steps": [{"messages": [{"role": "user", "content": "hi"}]}]}, "no assistant message"),
        (seed_trajectory("no block"), "no ```edits block"),
        (seed_trajectory("```edits\nW1[0, 0] = nan\n```"), "values must be plain numbers"),
    ],
)
def test_bad_trajectories_give_zero_and_an_error(tmp_path, content, message):
    reward = run(tmp_path, content)
    assert reward["normalized_score"] == 0.0 and reward["parse_success"] == 0.0
    assert message in reward["error"]


def test_huge_trajectory_is_not_read(tmp_path):
    trajectory = tmp_path / "trajectory.json"
    with open(trajectory, "wb") as handle:
        handle.truncate(MAX_TRAJECTORY_BYTES + 1)  # sparse: no disk used
    reward = run(tmp_path, None)
    assert "more than 33,554,432 bytes" in reward["error"] and reward["normalized_score"] == 0.0


@pytest.mark.parametrize(
    "environ, message",
    [
        ({**ENVIRON, "WEIGHT_SPACE_EPISODES": "many"}, "WEIGHT_SPACE_EPISODES must be an integer"),
        ({**ENVIRON, "WEIGHT_SPACE_EPISODES": "0"}, "WEIGHT_SPACE_EPISODES must be an integer"),
        ({**ENVIRON, "WEIGHT_SPACE_SOURCE": "atari"}, "unknown task 'atari/breakout'"),
        ({k: v for k, v in ENVIRON.items() if k != "WEIGHT_SPACE_GAME"}, "WEIGHT_SPACE_GAME is not set"),
        ({**ENVIRON, "WEIGHT_SPACE_GAME": "pong"}, "unknown task 'original/pong'"),
        ({**ENVIRON, "WEIGHT_SPACE_GAME": "Breakout"}, "did you mean original/breakout?"),
        ({**ENVIRON, "WEIGHT_SPACE_GAME": "ferry"}, "unknown task 'original/ferry'"),
        ({**ENVIRON, "WEIGHT_SPACE_SOURCE": "synth", "WEIGHT_SPACE_GAME": "no_such_game"}, "unknown task"),
        (
            {"WEIGHT_SPACE_GAME": "superbeam", "WEIGHT_SPACE_EPISODES": "21"},
            "from 1 to 20 (held-out episodes of superbeam)",
        ),
        (
            {"WEIGHT_SPACE_GAME": "repair/breakout/swap_actions", "WEIGHT_SPACE_EPISODES": "10"},
            "from 50 to 200 (held-out episodes of repair/breakout/swap_actions), not '10'",
        ),
        ({"WEIGHT_SPACE_GAME": "identify-choice/ferry/3", "WEIGHT_SPACE_EPISODES": "2"}, "from 1 to 1"),
        ({"WEIGHT_SPACE_GAME": "identify/ferry/4"}, "unknown task 'identify/ferry/4'"),
    ],
)
def test_bad_settings_give_zero_and_an_error(tmp_path, environ, message):
    reward, code = grade_trajectory(tmp_path / "absent.json", environ, workers=1)
    assert code == 2 and reward["normalized_score"] == 0.0 and message in reward["error"]


def test_the_source_is_inferred_and_exit_codes_follow_the_contract(tmp_path):
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps(seed_trajectory(ANSWER)))
    environ = {k: v for k, v in ENVIRON.items() if k != "WEIGHT_SPACE_SOURCE"}
    reward, code = grade_trajectory(trajectory, environ, workers=1)
    assert code == 0 and reward == expected_reward() and reward["source"] == "original"
    trajectory.write_text(json.dumps(seed_trajectory("no block")))
    reward, code = grade_trajectory(trajectory, environ, workers=1)
    assert (
        code == 1
        and reward["parse_success"] == 0.0
        and list(reward) == ["normalized_score", "game", "source", "episodes", "parse_success", "error"]
    )


def test_every_registry_task_is_found_as_itself():
    """The verifier's lookup gives each of the 170 tasks itself (never the game an identify or repair task is
    about), and each task's default episode count is in its range; the seed format is for writing tasks only."""
    for task in all_tasks():
        assert find_task(task.id) is task, task.id
        assert len(scoring_episodes(task, str(task.default_episodes))) == task.default_episodes, task.id
        assert (seed_game(task) is not None) == (task.id.split("/")[0] in ("original", "synth", "gen")), task.id


IDENTIFY_REPLY = "It reads the ferry lanes.\n```game\nferry\n```"


@pytest.mark.parametrize(
    "task_id, answer, episodes, expected",
    [
        ("identify-choice/ferry/3", IDENTIFY_REPLY, None, 1.0),
        ("identify-choice/ferry/3", "```game\nbreakout\n```", None, 0.0),
        ("identify/breakout/5", "```game\nbreakout\n```", "1", 1.0),
        ("repair/breakout/swap_actions", "reference", "50", 1.0),
        ("repair/breakout/swap_actions", ANSWER, "50", None),  # a breakout writing answer, graded as a repair
        ("superbeam", "reference", "2", None),
    ],
)
def test_every_family_is_graded_as_its_own_task(tmp_path, task_id, answer, episodes, expected):
    """issue 22.1 / 27.4: `identify-choice/ferry/3` used to grade synth/ferry (exit 1, "no ```edits block") and
    `repair/breakout/swap_actions` original/breakout; SUPERBEAM was refused."""
    task = get_task(task_id)
    answer = task.offline_answer("reference") if answer == "reference" else answer
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps(atif_trajectory(answer)))
    environ = {"WEIGHT_SPACE_GAME": task_id} | ({} if episodes is None else {"WEIGHT_SPACE_EPISODES": episodes})
    reward, code = main(trajectory, tmp_path / "reward.json", environ, workers=1)
    own = task.grade(answer, task.scoring_episodes(int(episodes or task.default_episodes)), ONE_WORKER)
    assert code == GRADED and own.error is None and reward["normalized_score"] == own.normalized
    assert expected is None or reward["normalized_score"] == expected
    assert reward["game"] == task_id and reward["source"] == task_id.split("/")[0]
    assert reward["episodes"] == len(own.episodes) and reward["parse_success"] == 1.0
    assert json.loads((tmp_path / "reward.json").read_text()) == reward


def test_wsp_verify_grades_an_identify_task(tmp_path):
    """The issue's reproducer through the command: reward 1.0, exit 0."""
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(seed_trajectory(IDENTIFY_REPLY)))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wspbench.cli",
            "verify",
            "--trajectory",
            str(path),
            "--reward",
            str(tmp_path / "r.json"),
        ],
        env={**os.environ, "WEIGHT_SPACE_GAME": "identify-choice/ferry/3"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["normalized_score"] == 1.0


def test_wsp_verify_command(tmp_path):
    trajectory = tmp_path / "agent" / "trajectory.json"
    trajectory.parent.mkdir()
    trajectory.write_text(json.dumps(atif_trajectory(ANSWER)))
    reward_path = tmp_path / "verifier" / "reward.json"
    environment = {**os.environ, **ENVIRON}
    subprocess.run(
        [
            sys.executable,
            "-m",
            "wspbench.cli",
            "verify",
            "--trajectory",
            str(trajectory),
            "--reward",
            str(reward_path),
            "--workers",
            "1",
        ],
        check=True,
        env=environment,
        capture_output=True,
    )
    assert json.loads(reward_path.read_text()) == expected_reward()


# --- untrusted trajectories and reward paths: always a reward, or one line that says why not ---


def within(seconds, function, *args):
    """`function(*args)`, failing the test (instead of hanging it) when it takes longer than `seconds`."""
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(function(*args)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"did not finish within {seconds} s"
    return outcome[0]


def test_a_directory_trajectory_is_rejected(tmp_path):
    (tmp_path / "trajectory.json").mkdir()
    reward, code = grade_trajectory(tmp_path / "trajectory.json", ENVIRON, workers=1)
    assert code == REJECTED and "is not a regular file" in reward["error"]


def test_a_fifo_trajectory_does_not_block(tmp_path):
    fifo = tmp_path / "trajectory.json"
    os.mkfifo(fifo)
    reward, code = within(60, grade_trajectory, fifo, ENVIRON, 1)
    assert code == REJECTED and "is not a regular file" in reward["error"]


def test_too_many_values_are_refused_before_parsing(tmp_path):
    bomb = b'{"steps": [' + b"[]," * MAX_TRAJECTORY_VALUES + b"[]]}"
    reward = run(tmp_path, bomb)
    assert f"more than {MAX_TRAJECTORY_VALUES:,} JSON values" in reward["error"]


def test_brackets_and_commas_inside_strings_are_not_values(tmp_path):
    chatter = {"role": "user", "content": '[{,\\"' * (MAX_TRAJECTORY_VALUES // 2)}
    trajectory = seed_trajectory(ANSWER)
    trajectory["steps"][0]["messages"].insert(0, chatter)
    assert run(tmp_path, trajectory) == expected_reward()


def test_a_2000_term_sum_is_a_rejected_answer(tmp_path):
    answer = "```edits\nW1[0, 0] = " + "+".join(["1"] * 2000) + "\n```"
    reward = within(60, run, tmp_path, seed_trajectory(answer))
    assert reward["normalized_score"] == 0.0 and reward["error"]


def test_newline_runs_are_a_rejected_answer(tmp_path):
    reward = within(120, run, tmp_path, seed_trajectory("```edits" + "\n" * 20_000))
    assert reward["normalized_score"] == 0.0 and "edits" in reward["error"]


def _block_search_is_linear() -> bool:
    started = time.perf_counter()
    try:
        parse_edits("```edits" + "\n" * 10_000)
    except AnswerError:
        pass
    return time.perf_counter() - started < 1.0


@pytest.mark.skipif(
    not _block_search_is_linear(),
    reason="waits for the linear ```edits block search in src/wspbench/answers/edits.py (quadratic: ~1 hour)",
)
def test_the_999000_newline_reply_is_rejected_quickly(tmp_path):
    reward = within(60, run, tmp_path, seed_trajectory("```edits" + "\n" * 999_000))
    assert reward["normalized_score"] == 0.0 and reward["error"]


def test_an_unexpected_error_still_writes_a_reward(tmp_path, monkeypatch, capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("wspbench.verifier.verifier_result", broken)
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps(seed_trajectory(ANSWER)))
    reward, code = main(trajectory, tmp_path / "reward.json", ENVIRON, workers=1)
    assert code == FAILED and "internal error of the verifier: RuntimeError: a bug" in reward["error"]
    assert json.loads((tmp_path / "reward.json").read_text()) == reward
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("where", ["a_directory", "/dev/full", "a_file/reward.json"])
def test_an_unwritable_reward_path_is_one_line_and_exit_3(tmp_path, capsys, where):
    (tmp_path / "a_directory").mkdir()
    (tmp_path / "a_file").write_text("")
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps(seed_trajectory(ANSWER)))
    reward_path = tmp_path / where
    _, code = main(trajectory, reward_path, ENVIRON, workers=1)
    err = capsys.readouterr().err
    assert code == FAILED and err.startswith("wsp verify: cannot write the reward file") and err.count("\n") == 1
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # the device is left alone
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a_directory", "a_file", "trajectory.json"]


def test_the_reward_replaces_an_old_one_atomically(tmp_path):
    reward_path = tmp_path / "verifier" / "reward.json"
    reward_path.parent.mkdir()
    reward_path.write_text("old")
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps(seed_trajectory(ANSWER)))
    written = verify(trajectory, reward_path, environ=ENVIRON, workers=1)
    assert json.loads(reward_path.read_text()) == written
    assert [p.name for p in reward_path.parent.iterdir()] == ["reward.json"]


@pytest.mark.parametrize(
    "environ, trajectory, reward, code",
    [
        (ENVIRON, seed_trajectory("no block"), "reward.json", 1),
        (
            {**ENVIRON, "WEIGHT_SPACE_GAME": "ferry", "WEIGHT_SPACE_SOURCE": "original"},
            seed_trajectory(ANSWER),
            "reward.json",
            2,
        ),
        (ENVIRON, seed_trajectory(ANSWER), ".", 3),
    ],
)
def test_wsp_verify_exit_codes(tmp_path, environ, trajectory, reward, code):
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(trajectory))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "wspbench.cli",
            "verify",
            "--trajectory",
            str(path),
            "--reward",
            str(tmp_path / reward),
            "--workers",
            "1",
        ],
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == code and "Traceback" not in done.stderr
    if code == 3:
        assert done.stderr.count("\n") == 1 and "is not a regular file" in done.stderr
    else:
        assert json.loads((tmp_path / reward).read_text())["error"]


def test_a_planted_symlink_is_replaced_not_written_through(tmp_path):
    """issue 27.13: a reward.json that links to a file outside the logs folder leaves that file as it was."""
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    logs = tmp_path / "logs"
    (logs / "verifier").mkdir(parents=True)
    reward_path = logs / "verifier" / "reward.json"
    reward_path.symlink_to(outside)
    trajectory = tmp_path / "trajectory.json"
    trajectory.write_text(json.dumps(seed_trajectory(ANSWER)))
    reward, code = main(trajectory, reward_path, ENVIRON, workers=1)
    assert code == GRADED and outside.read_text() == "keep me"
    assert not reward_path.is_symlink() and json.loads(reward_path.read_text()) == reward


def test_a_missing_source_and_count_default_to_the_tasks_own(tmp_path):
    reward, code = grade_trajectory(tmp_path / "absent.json", {"WEIGHT_SPACE_GAME": "superbeam"}, workers=1)
    assert code == REJECTED and reward["episodes"] == 20 and "no trajectory" in reward["error"]
    reward, code = grade_trajectory(tmp_path / "absent.json", {"WEIGHT_SPACE_GAME": "breakout"}, workers=1)
    assert code == REJECTED and reward["episodes"] == 1000 and reward["source"] == "original"
