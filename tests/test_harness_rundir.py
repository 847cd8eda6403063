"""Run directories under hostile conditions: a second run on the same directory, a disk that fills up,
corrupt records and manifests, a grader that crashes after the model was paid, a worker that fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.test_harness_offline import CountingTask, ScriptedClient
from wspbench.cli import app
from wspbench.harness import runs
from wspbench.harness.protocols import run_task
from wspbench.harness.record import RunConfig
from wspbench.harness.runs import (
    RunDir,
    RunDirError,
    RunDirLocked,
    RunWriteError,
    build_manifest,
    run_batch,
)

IDS = ["test/a", "test/b"]
ONE_SHOT = RunConfig("zero", episodes=3, engine="fast")
FEEDBACK = RunConfig("scripted", protocol="feedback", rounds=3, episodes=3, train_episodes=1)


def counting(ids=IDS, kind=CountingTask):
    return [kind(task_id) for task_id in ids]


class FlakyTask(CountingTask):
    """CountingTask whose held-out grading crashes while `broken` is set (a bug outside the task's own
    error handling)."""

    broken = True

    def grade(self, text, episodes=None, engine="auto", workers=None, progress=None):
        if FlakyTask.broken and episodes != self.training_episodes(1):
            raise RecursionError("maximum recursion depth exceeded")
        return super().grade(text, episodes, engine, workers, progress)


class NoClient:
    """A client that must not be asked: every reply should come from the earlier attempt."""

    name = "scripted"

    def complete(self, messages, task, status=None, sample=0):
        raise AssertionError("the model was asked (and paid) again")


def opened(path: Path, ids=IDS) -> RunDir:
    run_dir = RunDir(path)
    run_dir.open(build_manifest(ONE_SHOT, counting(ids)))
    return run_dir


def leftovers(path: Path) -> list[str]:
    return [p.name for p in path.rglob("*") if p.name.endswith(".tmp")]


def test_the_lock_refuses_a_second_run_until_the_first_ends(tmp_path):
    first = opened(tmp_path)
    with pytest.raises(RunDirLocked, match="in use by another"):
        opened(tmp_path)
    run_batch(first, counting(), ScriptedClient(["1", "2"]), ONE_SHOT)
    second = opened(tmp_path)  # released at the end of the batch
    assert run_batch(second, counting(), NoClient(), ONE_SHOT) == []


def test_a_reply_whose_grading_crashes_is_kept_and_not_paid_for_again(tmp_path):
    FlakyTask.broken = True
    run_dir = opened(tmp_path, ["test/a"])
    run_batch(run_dir, counting(["test/a"], FlakyTask), ScriptedClient(["7"]), ONE_SHOT)
    failed = run_dir.record("test/a")
    assert failed.status == "error" and "RecursionError" in failed.error
    assert failed.rounds[0].reply.content == "7"  # the paid reply, stored once

    FlakyTask.broken = False
    run_dir = opened(tmp_path, ["test/a"])
    run_batch(run_dir, counting(["test/a"], FlakyTask), NoClient(), ONE_SHOT)
    done = run_dir.record("test/a")
    assert done.status == "ok" and done.test_score == pytest.approx(0.07) and done.rounds[0].reused is True
    assert len(list((tmp_path / "attempts").glob("test-a.*.json"))) == 1  # the failed try, kept


def test_feedback_replays_paid_rounds_then_asks_for_the_rest():
    FlakyTask.broken = True
    task = FlakyTask()
    first = run_task(task, ScriptedClient(["3", "5", "4"]), FEEDBACK)
    assert first.status == "error" and len(first.rounds) == 3 and "RecursionError" in first.error
    FlakyTask.broken = False
    client = ScriptedClient(["10"])
    paid = [entry.reply for entry in first.rounds[:1]]  # as if only round 1 had been stored
    again = run_task(task, client, FEEDBACK, paid=paid)
    assert again.status == "ok" and [r.reused for r in again.rounds] == [True, False]
    assert len(client.seen) == 1 and client.seen[0][-1] == {"role": "user", "content": "score 0.3"}


def full_disk_after(count: int, monkeypatch, calls: list):
    """Writes fail like a full disk (the real ENOSPC of /dev/full) from the `count`-th write on."""
    write = runs._write_bytes

    def writer(path: Path, data: bytes) -> None:
        calls.append(path.name)
        if len(calls) < count:
            return write(path, data)
        path.write_bytes(data[:10])  # a partial temporary file, as a full disk leaves it
        with open("/dev/full", "wb") as full:
            full.write(data)
            full.flush()

    monkeypatch.setattr(runs, "_write_bytes", writer)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_stops_the_run_naming_the_path_and_loses_nothing(tmp_path, monkeypatch):
    run_dir = opened(tmp_path)
    calls: list[str] = []
    full_disk_after(6, monkeypatch, calls)  # a partial, a final, a partial, a partial, a final: the 2nd final fails
    with pytest.raises(RunWriteError, match=r"cannot write .*test-b\.json: No space left on device"):
        run_batch(run_dir, counting(), ScriptedClient(["4", "6"]), ONE_SHOT)
    assert leftovers(tmp_path) == []
    assert run_dir.record("test/a").status == "ok"  # finished before the disk filled
    assert json.loads((tmp_path / "tasks" / "test-b.partial.json").read_text())["rounds"][0]["reply"]["content"] == "6"

    monkeypatch.undo()
    run_dir = opened(tmp_path)
    assert run_batch(run_dir, counting(), NoClient(), ONE_SHOT) == ["test/b"]
    assert run_dir.record("test/b").test_score == pytest.approx(0.06) and leftovers(tmp_path) == []


def test_a_full_disk_through_wsp_run_is_a_message_not_a_traceback(tmp_path, monkeypatch):
    full_disk_after(1, monkeypatch, [])
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--model",
            "zero",
            "--tasks",
            "original/breakout",
            "--out",
            str(tmp_path),
            "--episodes",
            "2",
            "--workers",
            "1",
        ],
    )
    output = " ".join(result.output.split())
    assert result.exit_code == 2 and "manifest.json" in output and "No space left" in output
    assert leftovers(tmp_path) == []


def test_a_worker_that_fails_stops_the_batch_with_a_message(tmp_path):
    class BrokenDisplay(runs.Display):
        def done(self, task_id, record):
            raise RuntimeError("the terminal went away")

    run_dir = opened(tmp_path)
    with pytest.raises(RunDirError, match="the run stopped: RuntimeError: the terminal went away"):
        run_batch(run_dir, counting(), ScriptedClient(["1", "2"]), ONE_SHOT, concurrency=2, display=BrokenDisplay())
    assert opened(tmp_path).finished("test/a")  # saved before the display failed; the lock was released


@pytest.mark.parametrize("junk", [b"{not json", b"[1, 2]", b'{"task": "test/a"}', b"\xff\xfe", b"[" * 100_000])
def test_a_corrupt_record_is_named_set_aside_and_run_again(tmp_path, junk):
    opened(tmp_path).close()
    (tmp_path / "tasks" / "test-a.json").write_bytes(junk)
    with pytest.raises(RunDirError, match=r"test-a\.json"):
        RunDir(tmp_path).summary()  # `wsp runs show` names the file
    run_dir = opened(tmp_path)
    assert len(run_dir.notes) == 1 and "test-a.json" in run_dir.notes[0] and "test-a.json.corrupt" in run_dir.notes[0]
    assert (tmp_path / "tasks" / "test-a.json.corrupt").read_bytes() == junk
    assert run_batch(run_dir, counting(), ScriptedClient(["1", "2"]), ONE_SHOT) == IDS


def test_a_corrupt_manifest_is_named_and_set_aside(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "wspbench.run", "schema_version": 2, "tasks": [')
    run_dir = opened(tmp_path)
    assert "manifest.json" in run_dir.notes[0] and (tmp_path / "manifest.json.corrupt").is_file()
    assert run_dir.manifest().tasks == IDS
    result = CliRunner().invoke(app, ["runs", "show", str(tmp_path / "nowhere")])
    assert result.exit_code == 2


def test_runs_show_names_a_corrupt_record(tmp_path):
    opened(tmp_path).close()
    (tmp_path / "tasks" / "test-b.json").write_text("{")
    result = CliRunner().invoke(app, ["runs", "show", str(tmp_path)])
    assert result.exit_code == 2 and "test-b.json" in "".join(result.output.replace("│", "").split())


def test_temporary_files_of_a_killed_run_are_removed(tmp_path):
    opened(tmp_path).close()
    (tmp_path / ".manifest.json.123.456.tmp").write_text("half")
    (tmp_path / "tasks" / ".test-a.json.123.456.tmp").write_text("half")
    opened(tmp_path).close()
    assert leftovers(tmp_path) == []


def test_a_folder_of_another_tool_is_refused_not_renamed(tmp_path):
    (tmp_path / "manifest.json").write_text('{"name": "someone else\'s"}')
    with pytest.raises(RunDirError, match="not the manifest of a wspbench run"):
        opened(tmp_path)
    assert (tmp_path / "manifest.json").is_file() and not list(tmp_path.glob("*.corrupt"))


def test_a_record_under_another_tasks_name_is_set_aside(tmp_path):
    first = opened(tmp_path)
    run_batch(first, counting(), ScriptedClient(["1", "2"]), ONE_SHOT)
    (tmp_path / "tasks" / "test-a.json").write_bytes((tmp_path / "tasks" / "test-b.json").read_bytes())
    run_dir = opened(tmp_path)
    assert "another task" in run_dir.notes[0] and not run_dir.finished("test/a") and run_dir.finished("test/b")


def test_an_error_whose_message_cannot_be_printed_is_still_a_record():
    class Unprintable(CountingTask):
        def grade(self, *args, **kwargs):
            raise ValueError(10**5000)  # str() of it raises: the int is too long to convert

    task = Unprintable()
    record = run_task(task, ScriptedClient(["3"]), ONE_SHOT)
    assert record.status == "error" and record.error.startswith("ValueError")
    assert record.rounds[0].reply.content == "3"


def test_a_full_disk_mid_run_is_exit_2_naming_the_file(tmp_path, monkeypatch):
    full_disk_after(3, monkeypatch, [])
    result = CliRunner().invoke(
        app,
        [
            "run",
            "--model",
            "zero",
            "--tasks",
            "original/breakout",
            "--out",
            str(tmp_path),
            "--episodes",
            "2",
            "--workers",
            "1",
        ],
    )
    output = "".join(result.output.replace("│", "").split())
    assert result.exit_code == 2 and "original-breakout" in output and leftovers(tmp_path) == []


def test_a_record_of_the_older_schema_in_a_run_is_refused_and_kept(tmp_path):
    opened(tmp_path).close()
    old = {
        "format": "wspbench.harness.task/1",
        "task": "test/a",
        "status": "error",
        "timings": {},
        "rounds": [{"round": 1, "reply": {"content": "a paid reply"}}],
    }
    (tmp_path / "tasks" / "test-a.json").write_text(json.dumps(old))
    with pytest.raises(RunDirError, match="written by an older wspbench"):
        opened(tmp_path)
    with pytest.raises(RunDirError, match="written by an older wspbench"):
        RunDir(tmp_path).summary()
    assert json.loads((tmp_path / "tasks" / "test-a.json").read_text()) == old  # neither renamed nor rewritten
    assert not list(tmp_path.rglob("*.corrupt"))


def test_the_paid_replies_of_a_killed_run_are_replayed_with_their_retries(tmp_path):
    run_dir = opened(tmp_path, ["test/a"])
    partial = run_task(CountingTask("test/a"), ScriptedClient(["7"]), ONE_SHOT)
    partial.status, partial.test = "running", None  # as a kill leaves it
    run_dir.save_partial(partial)
    run_dir.close()
    run_dir = opened(tmp_path, ["test/a"])  # sets the partial record aside
    assert run_batch(run_dir, counting(["test/a"]), NoClient(), ONE_SHOT) == ["test/a"]
    done = run_dir.record("test/a")
    assert done.rounds[0].reused and done.rounds[0].reply.retries == ["HTTP 429: slow down"]
    assert done.test_score == pytest.approx(0.07)


def test_each_reply_of_a_task_has_its_own_record_and_paid_replies(tmp_path):
    """`--samples K`: reply k of a task is tasks/<slug>@k.json; a failed reply is replayed into its own
    sample only, and the batch asks only for the replies without an "ok" record."""
    config = RunConfig("scripted", episodes=3, engine="fast", samples=2)
    FlakyTask.broken = True
    run_dir = RunDir(tmp_path)
    run_dir.open(build_manifest(config, counting(["test/a"], FlakyTask)))
    run_batch(run_dir, counting(["test/a"], FlakyTask), ScriptedClient(["3", "5"]), config)
    assert [run_dir.record("test/a", k).status for k in (0, 1)] == ["error", "error"]
    assert (tmp_path / "tasks" / "test-a@1.json").is_file()
    assert [r.content for r in run_dir.paid_replies("test/a", 1)] == ["5"]
    FlakyTask.broken = False
    run_dir = RunDir(tmp_path)
    run_dir.open(build_manifest(config, counting(["test/a"], FlakyTask)))
    run_batch(run_dir, counting(["test/a"], FlakyTask), NoClient(), config)
    done = [run_dir.record("test/a", k) for k in (0, 1)]
    assert [(r.sample, r.test_score) for r in done] == [(0, pytest.approx(0.03)), (1, pytest.approx(0.05))]
    assert all(r.rounds[0].reused for r in done)


def test_a_manifest_from_before_samples_reads_as_one_reply_per_task():
    data = RunConfig("zero").to_json()
    del data["samples"]
    assert RunConfig.from_json(data).samples == 1
    with pytest.raises(ValueError):
        RunConfig.from_json({**data, "samples": 0})
