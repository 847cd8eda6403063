"""The offline models end to end through `wsp run`, resume of a run directory, and the protocol rules
(best candidate, early stop, failures as records) on a small in-test task family."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.grading import grade_answer
from wspbench.harness import superbeam_family
from wspbench.harness.base import HarnessTask, TestResult, TrainResult
from wspbench.harness.clients import OfflineClient, Reply
from wspbench.harness.families import select_task_ids
from wspbench.harness.protocols import run_task
from wspbench.harness.runs import RunDir, build_manifest, run_batch
from wspbench.harness.summary import leaderboard_rows
from wspbench.tasks import MinAtarTask

RUNNER = CliRunner()


def offline_run(out: Path, model: str, tasks: str, *args: str):
    return RUNNER.invoke(app, ["run", "--model", model, "--tasks", tasks, "--out", str(out), "--episodes", "3",
                               "--workers", "1", "--concurrency", "1", *args])


def record(out: Path, task_id: str) -> dict:
    return json.loads((out / "tasks" / f"{task_id.replace('/', '__')}.json").read_text())


def synth_with_reference() -> str | None:
    folder = resources.files("minatar_synth") / "references"
    return next((t for t in select_task_ids("synth/*") if (folder / f"{t.split('/')[1]}.txt").is_file()), None)


def test_reference_model_one_shot_grades_the_shipped_programs(tmp_path):
    tasks = ["original/breakout"] + ([synth_with_reference()] if synth_with_reference() else [])
    result = offline_run(tmp_path, "reference", ",".join(tasks))
    assert result.exit_code == 0, result.output
    for task_id in tasks:
        source, game = task_id.split("/")
        folder = resources.files("wspbench") / "examples" if source == "original" else \
            resources.files("minatar_synth") / "references"
        expected = grade_answer(MinAtarTask(game, source), (folder / f"{game}.txt").read_text(), 3, workers=1)
        rec = record(tmp_path, task_id)
        assert rec["status"] == "ok" and rec["test_score"] == expected["normalized_score"]
        assert rec["rounds"][0]["reply"]["model"] == "reference" and rec["model"] == "reference"
        assert task_id in result.output
    assert "mean held-out score" in result.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["kind"] == "offline" and manifest["prompt_versions"]["minatar"] == "minatar-v1"
    assert manifest["seeds"]["minatar"]["training_episodes"][0] == 100000
    assert (tmp_path / "summary.md").read_text().count("| ok |") == len(tasks)


def test_zero_model_feedback_runs_every_round_and_scores_the_zero_network(tmp_path):
    result = offline_run(tmp_path, "zero", "original/breakout", "--protocol", "feedback", "--rounds", "2",
                         "--train-episodes", "3")
    assert result.exit_code == 0, result.output
    rec = record(tmp_path, "original/breakout")
    zero = (resources.files("wspbench") / "examples" / "zero.txt").read_text()
    assert len(rec["rounds"]) == 2 and rec["best_round"] == 1
    assert rec["test_score"] == grade_answer(MinAtarTask("breakout"), zero, 3, workers=1)["normalized_score"]
    assert [m["role"] for m in rec["messages"]] == ["system", "user", "assistant", "user", "assistant"]


def test_rerun_skips_finished_tasks_adds_new_ones_and_refuses_other_settings(tmp_path):
    assert offline_run(tmp_path, "zero", "original/breakout").exit_code == 0
    first = (tmp_path / "tasks" / "original__breakout.json").read_bytes()
    result = offline_run(tmp_path, "zero", "original/breakout,original/asterix")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tasks" / "original__breakout.json").read_bytes() == first
    assert record(tmp_path, "original/asterix")["status"] == "ok"
    assert json.loads((tmp_path / "manifest.json").read_text())["tasks"] == ["original/breakout", "original/asterix"]
    refused = offline_run(tmp_path, "zero", "original/breakout", "--episodes", "4")
    assert refused.exit_code == 2 and "episodes" in refused.output


def test_leaderboard_ranks_runs_by_mean_held_out_score(tmp_path):
    for model in ("zero", "reference"):
        assert offline_run(tmp_path / model, model, "original/breakout").exit_code == 0
    board = leaderboard_rows([RunDir(tmp_path / model).summary() for model in ("zero", "reference")])
    assert [row["model"] for row in board] == ["reference", "zero"]
    assert board[0]["tasks_ok"] == board[0]["tasks"] == 1 and board[0]["mean_test_score"] > board[1]["mean_test_score"]


def test_superbeam_reference_one_shot(tmp_path):
    if superbeam_family.unavailable_reason():
        pytest.skip(superbeam_family.unavailable_reason())
    from superbeam import task as sb

    result = offline_run(tmp_path, "reference", "superbeam")
    assert result.exit_code == 0, result.output
    rec = record(tmp_path, "superbeam")
    answer = rec["rounds"][0]["reply"]["content"]
    assert rec["test_score"] == sb.grade(answer, sb.TEST_LEVELS)["score"] and rec["test"]["levels"] == 20
    assert rec["rounds"][0]["weights"]["format"] == "dense"


# --- protocol rules on an in-test family ---------------------------------------------------------------

class CountingTask(HarnessTask):
    """Replies are numbers; the training score is the number / 10 (10 is perfect); "boom" breaks the game."""

    task_id, family, prompt_version = "test/counting", "test", "test-v1"

    def __init__(self):
        self.trained, self.tested = [], []

    def messages(self, protocol, rounds):
        return [{"role": "system", "content": "sys"}, {"role": "user", "content": "count"}]

    def check(self, answer):
        return None if answer.strip().isdigit() or answer == "boom" else "not a number"

    def parse_feedback(self, error):
        return f"bad: {error}"

    def train(self, answer):
        if answer == "boom":
            raise RuntimeError("the game broke")
        self.trained.append(answer)
        score = int(answer) / 10
        return TrainResult(score, (score,), score >= 1, f"score {score}", {"n": int(answer)})

    def test(self, answer):
        self.tested.append(answer)
        return TestResult(int(answer) / 100 if answer.strip().isdigit() else 0.0, {"answer": answer})

    def weights_record(self, answer):
        return {"n": answer}

    def offline_answer(self, model):
        return "0"

    def seeds(self):
        return {}


class ScriptedClient:
    name = "scripted"

    def __init__(self, replies):
        self.replies, self.seen = list(replies), []

    def complete(self, messages, task, status=None):
        self.seen.append([dict(m) for m in messages])
        return Reply(self.replies.pop(0), None, "stop", {"prompt_tokens": 5, "completion_tokens": 1}, 0.01, 1, "s")


def test_feedback_keeps_the_best_candidate_and_stops_on_a_perfect_score():
    task, client = CountingTask(), ScriptedClient(["3", "oops", "7", "10", "2"])
    rec = run_task(task.task_id, lambda _: task, client, "feedback", rounds=5)
    assert rec["status"] == "ok" and len(rec["rounds"]) == 4  # stopped after the perfect "10"
    assert task.trained == ["3", "7", "10"] and task.tested == ["10"] and rec["best_round"] == 4
    assert rec["rounds"][1]["parse_error"] == "not a number"
    assert client.seen[2][-1] == {"role": "user", "content": "bad: not a number"}
    assert client.seen[1][-1] == {"role": "user", "content": "score 0.3"}
    assert rec["usage"] == {"prompt_tokens": 20, "completion_tokens": 4}


def test_feedback_grades_the_best_not_the_last():
    task = CountingTask()
    rec = run_task(task.task_id, lambda _: task, ScriptedClient(["8", "2"]), "feedback", rounds=2)
    assert task.tested == ["8"] and rec["best_round"] == 1 and rec["train_score"] == 0.8 and rec["test_score"] == 0.08


def test_unusable_replies_only_score_zero_and_failures_never_stop_the_batch(tmp_path):
    task = CountingTask()
    rec = run_task(task.task_id, lambda _: task, ScriptedClient(["no", "no"]), "feedback", rounds=2)
    assert rec["status"] == "ok" and rec["best_round"] is None and rec["test_score"] == 0.0
    broken = run_task(task.task_id, lambda _: task, ScriptedClient(["boom"]), "feedback", rounds=1)
    assert broken["status"] == "error" and "the game broke" in broken["error"]

    def make(task_id):
        if task_id == "test/missing":
            raise ValueError("no such game")
        return CountingTask()

    run_dir = RunDir(tmp_path)
    ids = ["test/missing", "test/counting"]
    run_dir.open(build_manifest(OfflineClient("zero").describe(), "one-shot", 1, 3, 0, "fast", ids))
    assert run_batch(run_dir, ids, make, OfflineClient("zero"), "one-shot", 1, concurrency=2) == ids
    assert run_dir.record("test/missing")["status"] == "error" and run_dir.finished("test/counting")
    rows = json.loads((tmp_path / "summary.json").read_text())["rows"]
    assert [r["status"] for r in rows] == ["error", "ok"] and "no such game" in rows[0]["error"]
