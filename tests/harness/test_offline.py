"""The offline models end to end through `wsp run`, resume of a run directory, `wsp runs show/compare`, and
the protocol rules (best candidate, early stop, failures as records) on a small in-test Task."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.evaluation import ONE_WORKER
from wspbench.harness.clients import OfflineClient
from wspbench.harness.protocols import run_task
from wspbench.harness.record import SCHEMA_VERSION, Reply, RunConfig, TaskRecord, slug
from wspbench.harness.runs import RunDir, build_manifest, run_batch
from wspbench.protocols import make
from wspbench.tasks import get_task, select
from wspbench.tasks.spec import AnswerError, Game, GameTask, Score
from wspbench.verifier import grade_answer

RUNNER = CliRunner()


def offline_run(out: Path, model: str, tasks: str, *args: str):
    return RUNNER.invoke(
        app,
        [
            "run",
            "--model",
            model,
            "--tasks",
            tasks,
            "--out",
            str(out),
            "--episodes",
            "3",
            "--workers",
            "1",
            "--concurrency",
            "1",
            *args,
        ],
    )


def record(out: Path, task_id: str) -> dict:
    return json.loads((out / "tasks" / f"{get_task(task_id).slug}.json").read_text())


def without_seconds(score: dict) -> dict:
    return {k: v for k, v in score.items() if k != "seconds"}


def synth_with_reference() -> str | None:
    return next((t.id for t in select("synth/*") if t.offline_answer("reference")), None)


def test_reference_model_one_shot_grades_like_the_task_and_the_seed_contract(tmp_path):
    tasks = ["original/breakout"] + ([synth_with_reference()] if synth_with_reference() else [])
    result = offline_run(tmp_path, "reference", ",".join(tasks))
    assert result.exit_code == 0, result.output
    for task_id in tasks:
        task = get_task(task_id)
        answer = task.offline_answer("reference")
        expected = task.grade(answer, task.scoring_episodes(3), ONE_WORKER)
        rec = record(tmp_path, task_id)
        assert rec["status"] == "ok" and without_seconds(rec["test"]) == without_seconds(expected.to_json())
        assert rec["test"]["normalized"] == grade_answer(task, answer, 3, ONE_WORKER)["normalized_score"]
        assert rec["rounds"][0]["reply"]["model"] == "reference" and rec["model"] == "reference"
        assert len(rec["test"]["values"]) == len(rec["test"]["lengths"]) == 3  # every episode, for intervals
        assert task_id in result.output
    assert "mean held-out score" in result.output
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["config"]["kind"] == "offline" and manifest["prompt_versions"]["original/breakout"] == "minatar-v2"
    assert manifest["suite"]["digest"] and manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["seeds"]["original/breakout"]["scoring_episodes"] == [0, 2]
    assert (tmp_path / "summary.md").read_text().count("| ok |") == len(tasks)


def test_zero_model_feedback_runs_every_round_and_scores_the_zero_network(tmp_path):
    result = offline_run(
        tmp_path, "zero", "original/breakout", "--protocol", "feedback", "--rounds", "2", "--train-episodes", "3"
    )
    assert result.exit_code == 0, result.output
    rec = record(tmp_path, "original/breakout")
    task = get_task("original/breakout")
    assert len(rec["rounds"]) == 2 and rec["best_round"] == 1
    assert rec["rounds"][0]["train"]["episodes"] == [100000, 100001, 100002]
    assert rec["rounds"][0]["feedback"] == task.feedback(Score.from_json(rec["rounds"][0]["train"]))
    drawn = task.held_out_episodes(3, rec["held_out_key"])  # feedback: episodes drawn by the run's secret
    assert rec["test"]["episodes"] == drawn and rec["test"]["episodes"] != [0, 1, 2]
    assert rec["test"]["normalized"] == task.grade(task.offline_answer("zero"), drawn, ONE_WORKER).normalized
    assert [m["role"] for m in rec["messages"]] == ["system", "user", "assistant", "user", "assistant"]
    assert rec["messages"][3]["content"] == rec["rounds"][0]["feedback"]


def test_rerun_skips_finished_tasks_adds_new_ones_and_refuses_other_settings(tmp_path):
    assert offline_run(tmp_path, "zero", "original/breakout").exit_code == 0
    first = (tmp_path / "tasks" / "original-breakout.json").read_bytes()
    result = offline_run(tmp_path, "zero", "original/breakout,original/asterix")
    assert result.exit_code == 0, result.output
    assert "1 of 2 tasks already done" in " ".join(result.output.split())  # resuming says what is kept
    assert (tmp_path / "tasks" / "original-breakout.json").read_bytes() == first
    assert record(tmp_path, "original/asterix")["status"] == "ok"
    assert json.loads((tmp_path / "manifest.json").read_text())["tasks"] == ["original/breakout", "original/asterix"]
    refused = offline_run(tmp_path, "zero", "original/breakout", "--episodes", "4")
    assert refused.exit_code == 2 and "episodes=3, not 4" in " ".join(refused.output.split())


def test_an_unknown_task_is_a_usage_error(tmp_path):
    result = offline_run(tmp_path, "zero", "original/nonesuch")
    assert result.exit_code == 2 and "nonesuch" in result.output and not (tmp_path / "manifest.json").exists()


def test_runs_show_and_compare_read_the_records_with_json(tmp_path):
    for model, tasks in (("zero", "original/breakout,original/asterix"), ("reference", "original/breakout")):
        assert offline_run(tmp_path / model, model, tasks).exit_code == 0
    shown = RUNNER.invoke(app, ["runs", "show", "--json", str(tmp_path / "zero")])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.output)
    assert [r["task"] for r in data["rows"]] == ["original/breakout", "original/asterix"]
    assert data["manifest"]["config"]["model"] == "zero"
    compared = RUNNER.invoke(app, ["runs", "compare", "--json", str(tmp_path / "zero"), str(tmp_path / "reference")])
    assert compared.exit_code == 0, compared.output
    board = json.loads(compared.output)
    assert board["shared_tasks"] == ["original/breakout"] and board["tasks_left_out"] == ["original/asterix"]
    assert [row["model"] for row in board["runs"]] == ["reference", "zero"] and board["same_suite"]
    reference, zero = board["runs"]
    zero, reference = zero["writing"], reference["writing"] | {"run": reference["run"], "rank": reference["rank"]}
    assert zero["mean_test_score"] == record(tmp_path / "zero", "original/breakout")["test"]["normalized"]
    assert zero["ci95"][0] <= zero["mean_test_score"] <= zero["ci95"][1] and board["runs"][1]["reading"] is None
    (pair,) = board["pairs"]
    assert (pair["a"], pair["b"], pair["skill"]) == (reference["run"], board["runs"][1]["run"], "writing")
    assert pair["mean_difference"] == reference["mean_test_score"] - zero["mean_test_score"]
    assert pair["ci95"][0] <= pair["mean_difference"] <= pair["ci95"][1]
    table = RUNNER.invoke(app, ["runs", "compare", str(tmp_path / "zero"), str(tmp_path / "reference")])
    assert table.exit_code == 0 and "left out" in table.output and "original/asterix" in table.output
    assert "not ranked" not in table.output  # issue 52: the note on unranked runs only where a run is unranked
    assert not [line for line in table.output.splitlines() if line != line.rstrip()]  # piped: no padding


def test_compare_flags_runs_of_different_suites(tmp_path):
    for model in ("zero", "reference"):
        assert offline_run(tmp_path / model, model, "original/breakout").exit_code == 0
    path = tmp_path / "zero" / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["suite"]["digest"] = "0" * 64
    path.write_text(json.dumps(manifest))
    board = json.loads(
        RUNNER.invoke(app, ["runs", "compare", "--json", str(tmp_path / "reference"), str(tmp_path / "zero")]).output
    )
    assert not board["same_suite"] and [r["same_suite"] for r in board["runs"]] == [True, False]
    table = RUNNER.invoke(app, ["runs", "compare", str(tmp_path / "reference"), str(tmp_path / "zero")])
    assert "differs" in table.output and "different suites" in " ".join(table.output.split())
    refused = offline_run(tmp_path / "zero", "zero", "original/breakout")  # and resuming it is refused
    assert refused.exit_code == 2 and "suite" in refused.output


def test_a_run_of_the_older_schema_is_refused_and_left_as_it_is(tmp_path):
    old = {"format": "wspbench.harness.run/1", "model": "zero", "protocol": "one-shot", "tasks": ["original/breakout"]}
    record_1 = {
        "format": "wspbench.harness.task/1",
        "task": "original/breakout",
        "rounds": [{"round": 1, "reply": {"content": "a paid reply"}}],
        "status": "ok",
        "timings": {},
    }
    (tmp_path / "tasks").mkdir()
    (tmp_path / "manifest.json").write_text(json.dumps(old))
    (tmp_path / "tasks" / "original__breakout.json").write_text(json.dumps(record_1))
    before = sorted((p.name, p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file())
    for command in (["runs", "show", str(tmp_path)], ["runs", "compare", str(tmp_path)]):
        result = RUNNER.invoke(app, command)
        assert result.exit_code == 2 and "written by an older wspbench" in " ".join(result.output.split())
    result = offline_run(tmp_path, "zero", "original/breakout")
    assert result.exit_code == 2 and "written by an older wspbench" in " ".join(result.output.split())
    assert sorted((p.name, p.read_bytes()) for p in tmp_path.rglob("*") if p.is_file() and p.name != ".lock") == before


def test_superbeam_reference_one_shot(tmp_path):
    task = get_task("superbeam")
    result = offline_run(tmp_path, "reference", "superbeam")
    assert result.exit_code == 0, result.output
    rec = record(tmp_path, "superbeam")
    answer = rec["rounds"][0]["reply"]["content"]
    expected = task.grade(answer, task.scoring_episodes(3))
    assert without_seconds(rec["test"]) == without_seconds(expected.to_json()) and len(rec["test"]["episodes"]) == 3
    assert rec["rounds"][0]["weights"]["format"] == "nonzero" and rec["family"] == task.family


# --- protocol rules on an in-test task ------------------------------------------------------------------


class CountingTask(GameTask):
    """Replies are numbers n; the network is one weight holding n. An episode's value is n (training) and
    n / 10 is a perfect 1.0 at n = 10; held out, the score is n / 100. "boom" breaks the game."""

    id, family, answer_format, prompt_version, default_episodes = "test/counting", "test", "number", "test-v1", 3
    network = None  # the protocols never read it
    game = Game("counting", "count up", 10.0, 1, (1,), ("n",), ("stay",), "counting.py")

    def __init__(self, task_id: str = "test/counting"):
        self.id = task_id
        self.trained, self.tested = [], []

    def messages(self, protocol=None):
        return [{"role": "system", "content": "sys"}, {"role": "user", "content": f"count for {self.id}"}]

    def game_source(self):
        return ""

    def read(self, text):
        if text.strip() == "boom":
            return {"n": np.array([-1.0])}, {}
        if not text.strip().isdigit():
            raise AnswerError("not a number")
        return {"n": np.array([float(text)])}, {}

    def parse_feedback(self, error):
        return f"bad: {error}"

    def offline_answer(self, model):
        return "0"

    def scoring_episodes(self, count=None):
        return [0, 1, 2][: count or 3]

    def training_episodes(self, count):
        return [100]

    def play(self, weights, episodes: Sequence[int], engine="auto", workers=None, progress=None):
        n = float(weights["n"][0])
        if n < 0:
            raise RuntimeError("the game broke")
        (self.trained if episodes == [100] else self.tested).append(int(n))
        value = n if episodes == [100] else n / 10
        return [value] * len(episodes), [1] * len(episodes), {}

    def watch(self, weights, episode, observe):
        raise NotImplementedError

    def feedback(self, score):
        return self.parse_feedback(score.error) if score.error else f"score {score.normalized}"


class ScriptedClient:
    name = "scripted"

    def __init__(self, replies):
        self.replies, self.seen = list(replies), []

    def complete(self, messages, task, status=None, sample=0):
        self.seen.append([dict(m) for m in messages])
        return Reply(
            self.replies.pop(0),
            None,
            "stop",
            {"prompt_tokens": 5, "completion_tokens": 1},
            0.01,
            1,
            "s",
            ["HTTP 429: slow down"],
        )


FEEDBACK = RunConfig("scripted", protocol=make("feedback", rounds=5, episodes=3, train_episodes=1))


def test_feedback_keeps_the_best_candidate_and_stops_on_a_perfect_score():
    task, client = CountingTask(), ScriptedClient(["3", "oops", "7", "10", "2"])
    rec = run_task(task, client, FEEDBACK)
    assert rec.status == "ok" and len(rec.rounds) == 4  # stopped after the perfect "10"
    assert task.trained == [3, 7, 10] and task.tested == [10] and rec.best_round == 4
    assert rec.rounds[1].parse_error == "not a number" and rec.parse_errors == ["not a number"]
    assert client.seen[2][-1] == {"role": "user", "content": "bad: not a number"}
    assert client.seen[1][-1] == {"role": "user", "content": "score 0.3"}
    assert rec.usage == {"prompt_tokens": 20, "completion_tokens": 4}
    assert rec.rounds[0].reply.retries == ["HTTP 429: slow down"]
    assert TaskRecord.from_json(json.loads(json.dumps(rec.to_json()))) == rec  # the record survives its file


def test_feedback_grades_the_best_not_the_last():
    task = CountingTask()
    rec = run_task(task, ScriptedClient(["8", "2"]), RunConfig("s", protocol=make("feedback", rounds=2, episodes=3)))
    assert task.tested == [8] and rec.best_round == 1 and rec.train_score == 0.8
    assert rec.test.values == (0.8, 0.8, 0.8) and rec.test_score == pytest.approx(0.08)
    assert rec.test.interval() == pytest.approx((0.08, 0.08))  # from the stored values, no replay


def test_unusable_replies_only_score_zero_and_failures_never_stop_the_batch(tmp_path):
    task = CountingTask()
    rec = run_task(task, ScriptedClient(["no", "no"]), RunConfig("s", protocol=make("feedback", rounds=2)))
    assert rec.status == "ok" and rec.best_round is None and rec.test_score == 0.0 and rec.test.error == "not a number"
    broken = run_task(task, ScriptedClient(["boom"]), RunConfig("s", protocol=make("feedback", rounds=1)))
    assert broken.status == "ok" and "the game broke" in broken.rounds[0].train.error  # a result, not a crash
    assert broken.best_round is None and "the game broke" in broken.rounds[0].feedback

    class Unpromptable(CountingTask):
        def messages(self, protocol=None):
            raise ValueError("no such game")

    run_dir = RunDir(tmp_path)
    tasks = [Unpromptable("test/missing"), CountingTask("test/counting")]
    config = RunConfig("zero", protocol=make("one-shot", episodes=3))
    run_dir.open(build_manifest(config, tasks))
    assert run_batch(run_dir, tasks, OfflineClient("zero"), config, concurrency=2) == ["test/missing", "test/counting"]
    assert run_dir.record("test/missing").status == "error" and run_dir.finished("test/counting")
    assert (tmp_path / "tasks" / f"{slug('test/counting')}.json").is_file()
    rows = json.loads((tmp_path / "summary.json").read_text())["rows"]
    assert [r["status"] for r in rows] == ["error", "ok"] and "no such game" in rows[0]["error"]


def test_a_run_prepares_the_engines_before_any_task_is_timed(tmp_path):
    """issue 52: the first compile of the game engine (about 50 s) was counted in the first tasks' seconds. A run
    now calls `Task.prepare` (which loads or compiles it) for each task before any task starts; one that fails is
    left to the grade."""
    import time

    class Slow(CountingTask):
        prepared: list = []

        def prepare(self, episodes, grading=None):
            time.sleep(0.6)
            Slow.prepared.append((self.id, episodes))
            if self.id == "test/broken":
                raise RuntimeError("no compiler")

    run_dir = RunDir(tmp_path)
    tasks = [Slow("test/slow"), Slow("test/broken")]
    config = RunConfig("zero", protocol=make("one-shot", episodes=3))
    run_dir.open(build_manifest(config, tasks))
    assert run_batch(run_dir, tasks, OfflineClient("zero"), config, concurrency=2) == ["test/slow", "test/broken"]
    assert Slow.prepared == [("test/slow", 3), ("test/broken", 3)]
    for task in tasks:
        record = run_dir.record(task.id)
        assert record.status == "ok" and record.test.seconds < 0.5, record.test


def test_every_summary_leads_with_a_writing_and_a_reading_score_and_shows_the_same_intervals(tmp_path):
    """Two original tasks, SUPERBEAM and two identify tasks (given out of suite order): `wsp run`, `runs show`,
    summary.json, summary.md, `runs compare` and `wsp report` lead with the writing score (family-weighted over
    original and superbeam) and the reading score, each with the same 95% interval, and never one mean over
    both skills."""
    run = tmp_path / "run"
    ids = "original/breakout,identify/asterix/4,original/asterix,superbeam,identify/breakout/4"
    result = offline_run(run, "reference", ids)
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())
    assert "writing score 0." in printed and "reading score 1.0000" in printed and "family-weighted mean" not in printed
    assert printed.index("writing score") < printed.index("reading score") < printed.index("per family")
    summary_json = json.loads((run / "summary.json").read_text())
    assert "mean_test_score" not in summary_json and "mean_test_score" not in summary_json["scores"]
    writing, reading = summary_json["writing"], summary_json["reading"]
    assert set(writing) == set(reading) == {"mean_test_score", "ci95", "mean_unclipped", "tasks", "families"}
    assert [(f["family"], f["tasks"]) for f in writing["families"]] == [("original", 2), ("superbeam", 1)]
    assert [(f["family"], f["tasks"]) for f in reading["families"]] == [("identify", 2)]
    by_task = {t: record(run, t)["test"]["normalized"] for t in ("original/breakout", "original/asterix", "superbeam")}
    original = (by_task["original/breakout"] + by_task["original/asterix"]) / 2
    assert writing["families"][0]["mean_test_score"] == pytest.approx(original)
    assert writing["mean_test_score"] == pytest.approx((original + by_task["superbeam"]) / 2)
    assert (writing["tasks"], reading["tasks"], reading["mean_test_score"]) == (3, 2, 1.0)
    shown = json.loads(RUNNER.invoke(app, ["runs", "show", "--json", str(run)]).output)
    assert shown["writing"] == writing and shown["reading"] == reading and "mean_test_score" not in shown
    text = " ".join(RUNNER.invoke(app, ["runs", "show", str(run)]).output.split())
    assert "writing score" in text and "reading score" in text and "over 5 tasks" not in text
    summary = (run / "summary.md").read_text()
    assert summary.index("| writing | 3 | 2 |") < summary.index("| reading | 2 | 1 |") < summary.index("| original |")
    assert summary.index("| original | writing | 2 |") < summary.index("| task | sample |")
    (compared,) = json.loads(RUNNER.invoke(app, ["runs", "compare", "--json", str(run)]).output)["runs"]
    assert compared["writing"] == writing and compared["reading"] == reading and compared["rank"] == 1
    result = RUNNER.invoke(app, ["report", str(run), "--out", str(tmp_path / "report"), "--no-replays"])
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report" / "report.md").read_text()
    for skill, head in (("writing", writing), ("reading", reading)):
        low, high = head["ci95"]
        line = f"| {skill} score (family-weighted) | {head['tasks']} | reference (one-shot) | "
        assert f"{line}{head['mean_test_score']:.4f} | {low:.4f} to {high:.4f} |" in markdown
        for family in head["families"]:
            low, high = family["ci95"]
            assert f"| {family['family']} | {family['tasks']} | reference (one-shot) | " in markdown
            assert f"{family['mean_test_score']:.4f} | {low:.4f} to {high:.4f} |" in markdown
    assert "family-weighted mean" not in markdown


def test_a_reply_above_its_cap_is_flagged_and_the_unclipped_mean_stands_beside_the_score(tmp_path):
    """On episodes 0..2 the reference scores 59, 57 and 53 on synth/firefighter (cap 55: unclipped 169 / 3 / 55)
    and 15, 15 and 17 on synth/ferry (cap 18): the record keeps both scores, the rows and every mean have the
    unclipped one beside the clipped one, which stays the headline, and each listing flags the reply above its cap."""
    run = tmp_path / "run"
    result = offline_run(run, "reference", "synth/firefighter,synth/ferry")
    assert result.exit_code == 0, result.output
    above, ferry = 1.0242424242424242, 0.8703703703703703
    test = record(run, "synth/firefighter")["test"]
    assert (test["normalized"], test["unclipped"]) == (1.0, above)
    assert "done synth/firefighter: held-out score 1.0000 (above the cap: unclipped 1.0242)" in result.output
    summary = json.loads((run / "summary.json").read_text())
    rows = {row["task"]: row for row in summary["rows"]}
    assert (rows["synth/firefighter"]["test_score"], rows["synth/firefighter"]["test_unclipped"]) == (1.0, above)
    assert rows["synth/ferry"]["test_score"] == rows["synth/ferry"]["test_unclipped"] == ferry
    writing = summary["writing"]
    (synth,) = writing["families"]
    for means in (writing, synth):  # one family: the headline is its mean
        assert (means["mean_test_score"], means["mean_unclipped"]) == ((ferry + 1.0) / 2, (ferry + above) / 2)
    markdown = (run / "summary.md").read_text()
    low, high = writing["ci95"]
    assert f"| writing | 2 | 1 | 0.9352 | {low:.4f} to {high:.4f} | 0.9473 |" in markdown
    assert "| synth/firefighter | 0 | ok | 1.0000 | 1.0242 (above the cap) | " in markdown
    shown = " ".join(RUNNER.invoke(app, ["runs", "show", str(run)]).output.split())
    assert "1 reply above the cap (scored 1; unclipped, raw / cap): synth/firefighter 1.0242" in shown
    assert "writing score 0.9352 (" in shown and "; unclipped 0.9473" in shown
    result = RUNNER.invoke(app, ["report", str(run), "--out", str(tmp_path / "report"), "--no-replays"])
    assert result.exit_code == 0, result.output
    report = (tmp_path / "report" / "report.md").read_text()
    assert "| synth/firefighter | 1.0000 [0.9614, 1.0000] (above the cap: unclipped 1.0242) |" in report
    assert f"| synth | 2 | reference (one-shot) | 0.9352 | {low:.4f} to {high:.4f} | 0.9473 | " in report


def test_a_run_of_one_skill_shows_only_that_skill(tmp_path):
    assert offline_run(tmp_path, "reference", "identify/asterix/4").exit_code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["writing"] is None and summary["reading"]["tasks"] == 1
    text = " ".join(RUNNER.invoke(app, ["runs", "show", str(tmp_path)]).output.split())
    assert "reading score" in text and "writing score" not in text


def test_runs_compare_warns_of_every_setting_the_runs_differ_in_and_ranks_like_with_like(tmp_path):
    for name, model, episodes in (("a", "reference", "3"), ("b", "zero", "3"), ("c", "reference", "2")):
        result = offline_run(tmp_path / name, model, "original/breakout", "--episodes", episodes)
        assert result.exit_code == 0, result.output
    runs = [str(tmp_path / name) for name in "abc"]
    result = RUNNER.invoke(app, ["runs", "compare", *runs])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "episodes" in warnings[0] and "a 3" in warnings[0] and "c 2" in warnings[0]
    assert "rank '-': scored on another number of episodes than the first run, so not ranked" in " ".join(
        result.output.split()
    )
    board = json.loads(RUNNER.invoke(app, ["runs", "compare", "--json", *runs]).output)
    assert [(Path(r["run"]).name, r["rank"]) for r in board["runs"]] == [("a", 1), ("b", 2), ("c", None)]
    assert board["by"] == "writing" and {p["skill"] for p in board["pairs"]} == {"writing"}
    assert RUNNER.invoke(app, ["runs", "compare", "--by", "reading", *runs]).exit_code == 0
    assert RUNNER.invoke(app, ["runs", "compare", "--by", "both", *runs]).exit_code == 2


def test_piped_progress_is_a_line_per_task_with_its_count(tmp_path):
    """Without a terminal (a pipe, CI, a log file) the live bars are not drawn, so each finished task is a
    `k/N done TASK: held-out score S` line."""
    result = offline_run(tmp_path, "zero", "original/breakout,original/asterix")
    lines = [line for line in result.output.splitlines() if " done original/" in line]
    assert result.exit_code == 0 and len(lines) == 2, result.output
    assert {line.split(" done ")[0] for line in lines} == {"1/2", "2/2"} and all(
        "held-out score 0." in x for x in lines
    )
