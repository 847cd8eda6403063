"""Run directories under hostile conditions: a second run on the same directory, a disk that fills up,
corrupt records and manifests, a grader that crashes after the model was paid, a worker that fails."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.harness.test_offline import CountingTask, ScriptedClient
from wspbench.cli import app
from wspbench.evaluation import DEFAULT
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
from wspbench.protocols import make

IDS = ["test/a", "test/b"]
ONE_SHOT = RunConfig("zero", engine="fast", protocol=make("one-shot", episodes=3))
FEEDBACK = RunConfig("scripted", protocol=make("feedback", rounds=3, episodes=3, train_episodes=1))


def counting(ids=IDS, kind=CountingTask):
    return [kind(task_id) for task_id in ids]


class FlakyTask(CountingTask):
    """CountingTask whose held-out grading crashes while `broken` is set (a bug outside the task's own
    error handling)."""

    broken = True

    def grade_checked(self, checked, episodes=None, grading=DEFAULT):
        if FlakyTask.broken and episodes != self.training_episodes(1):
            raise RecursionError("maximum recursion depth exceeded")
        return super().grade_checked(checked, episodes, grading)


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
    """Writes fail like a full disk from the `count`-th write on: the data reaches no disk (ENOSPC when
    `files.write_atomic` flushes it), after a partial temporary file was written."""
    fsync = os.fsync

    def failing(fd: int) -> None:
        calls.append(fd)
        if len(calls) < count:
            return fsync(fd)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", failing)


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
def test_a_corrupt_record_is_counted_as_zero_kept_and_not_asked_again(tmp_path, junk):
    opened(tmp_path).close()
    (tmp_path / "tasks" / "test-a.json").write_bytes(junk)
    reader = RunDir(tmp_path)
    row = reader.summary()[1][0]  # `wsp runs show` counts it, as 0, and names the file
    assert row["status"] == "corrupt" and row["test_score"] == 0.0
    assert len(reader.notes) == 1 and "test-a.json" in reader.notes[0] and "counted as corrupt" in reader.notes[0]
    run_dir = opened(tmp_path)
    assert len(run_dir.notes) == 1 and "test-a.json" in run_dir.notes[0] and "not run again" in run_dir.notes[0]
    assert run_batch(run_dir, counting(), ScriptedClient(["2"]), ONE_SHOT) == ["test/b"]  # its replies were paid
    assert (tmp_path / "tasks" / "test-a.json").read_bytes() == junk
    assert [row["status"] for row in RunDir(tmp_path).summary()[1]] == ["corrupt", "ok"]
    (tmp_path / "tasks" / "test-a.json").unlink()  # moved away by the user: its task runs again
    assert run_batch(opened(tmp_path), counting(), ScriptedClient(["1"]), ONE_SHOT) == ["test/a"]


def test_a_corrupt_manifest_is_named_and_set_aside(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "wspbench.run", "schema_version": 2, "tasks": [')
    run_dir = opened(tmp_path)
    assert "manifest.json" in run_dir.notes[0] and (tmp_path / "manifest.json.corrupt").is_file()
    assert run_dir.manifest().tasks == IDS
    result = CliRunner().invoke(app, ["runs", "show", str(tmp_path / "nowhere")])
    assert result.exit_code == 2


def test_runs_show_counts_a_corrupt_record_and_names_it(tmp_path):
    opened(tmp_path).close()
    (tmp_path / "tasks" / "test-b.json").write_text("{")
    result = CliRunner().invoke(app, ["runs", "show", str(tmp_path)])
    assert result.exit_code == 0 and "test-b.json" in "".join(result.output.replace("│", "").split())


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


def test_a_record_under_another_tasks_name_is_counted_as_corrupt(tmp_path):
    first = opened(tmp_path)
    run_batch(first, counting(), ScriptedClient(["1", "2"]), ONE_SHOT)
    (tmp_path / "tasks" / "test-a.json").write_bytes((tmp_path / "tasks" / "test-b.json").read_bytes())
    run_dir = opened(tmp_path)
    assert "holds the record of 'test/b'" in run_dir.notes[0] and run_dir.record("test/a").status == "corrupt"
    assert run_dir.record("test/b").status == "ok"


def test_an_error_whose_message_cannot_be_printed_is_still_a_record():
    class Unprintable(CountingTask):
        def grade_checked(self, *args, **kwargs):
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
    config = RunConfig("scripted", engine="fast", samples=2, protocol=make("one-shot", episodes=3))
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


# --- records that parse but are wrong, and special files (issue 27, items 8 and 9) -------------------------


def finished_run(path: Path) -> Path:
    """A run of test/a and test/b, both "ok"."""
    run_batch(opened(path), counting(), ScriptedClient(["1", "2"]), ONE_SHOT)
    return path


def within(seconds: float, action):
    """`action()`'s result, or a failure (not a hung test) when it takes longer: a FIFO blocks a plain read."""
    import threading

    result: list = []
    thread = threading.Thread(target=lambda: result.append(_outcome(action)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, f"did not finish within {seconds} s"
    if isinstance(result[0], BaseException):
        raise result[0]
    return result[0]


def _outcome(action):
    try:
        return action()
    except BaseException as error:  # noqa: BLE001 - handed to the test's thread
        return error


def one_line(text: str) -> str:
    return " ".join(text.split())


def _many_episodes(test: dict) -> None:
    n = 2_000_000
    test.update(episodes=list(range(n)), values=[0.1] * n, lengths=[1] * n)


MUTATIONS = {  # the reproducers of issue 27 item 8, and a few of their kind: (change, a word of the message)
    "best_round as text": (lambda r: r.update(best_round="1"), "best_round"),
    "best_round out of range": (lambda r: r.update(best_round=7), "best_round"),
    "raw 10**400": (lambda r: r["test"].update(raw=10**400), "raw"),
    "a value NaN": (lambda r: r["test"]["values"].__setitem__(0, float("nan")), "value"),
    "usage as text": (lambda r: r.update(usage={"prompt_tokens": "5", "completion_tokens": "1"}), "prompt_tokens"),
    "timings as a list": (lambda r: r.update(timings=[1, 2]), "timings"),
    "timings as text": (lambda r: r.update(timings={"total_s": "3"}), "total_s"),
    "2,000,000 episodes": (lambda r: _many_episodes(r["test"]), "2,000,000"),
    "reused as text": (lambda r: r["rounds"][0].update(reused="no"), "reused"),
    "sample 10**9": (lambda r: r.update(sample=10**9), "sample"),
    "ok without its Score": (lambda r: r.update(test=None), "test"),  # found by benchmarks/fuzz.py
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_a_parseable_but_wrong_record_is_counted_as_corrupt_by_readers_and_on_resume(tmp_path, name):
    change, word = MUTATIONS[name]
    finished_run(tmp_path)
    path = tmp_path / "tasks" / "test-a.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))

    for command in (["runs", "show", str(tmp_path)], ["runs", "compare", str(tmp_path), str(tmp_path)]):
        result = within(120, lambda command=command: CliRunner().invoke(app, command))
        notice = [line for line in result.output.splitlines() if "test-a.json" in line]
        assert result.exit_code == 0 and "Traceback" not in result.output, result.output
        assert len(notice) == command.count(str(tmp_path)) and word in notice[0] and "corrupt" in notice[0]

    from wspbench.report.runs import load_run

    notes: list[str] = []
    entries = within(120, lambda: load_run(tmp_path, notes.append))  # `wsp report` reads runs so
    assert [(e.task, e.status, e.score) for e in entries][0] == ("test/a", "corrupt", 0.0)
    assert len(notes) == 1 and word in notes[0]

    run_dir = within(120, lambda: opened(tmp_path))  # resume: a one-line notice; counted, never asked again
    assert len(run_dir.notes) == 1 and "\n" not in run_dir.notes[0] and "not run again" in run_dir.notes[0]
    assert run_batch(run_dir, counting(), NoClient(), ONE_SHOT) == []
    assert run_dir.record("test/a").status == "corrupt" and run_dir.record("test/a").test_score == 0.0


@pytest.mark.parametrize(
    ("change", "word"),
    [
        (lambda m: m["config"].update(samples=10**9), "samples"),
        (lambda m: m["config"].update(episodes="3"), "episodes"),
        (lambda m: m["config"].update(rounds=1e400), "rounds"),
        (lambda m: m.update(tasks=[f"test/{i}" for i in range(5000)]), "5,000 tasks x 1,000"),
        (lambda m: m.update(tasks=["test/a", "test/b"] * 1000), "more than once"),  # found by the fuzz
        (lambda m: m.update(suite=[1, 2]), "suite"),
    ],
)
def test_a_parseable_but_wrong_manifest_is_one_line_and_exit_2(tmp_path, change, word):
    finished_run(tmp_path)
    data = json.loads((tmp_path / "manifest.json").read_text())
    if word.startswith("5,000"):
        data["config"]["samples"] = 1000
    change(data)
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    result = within(60, lambda: CliRunner().invoke(app, ["runs", "show", str(tmp_path)]))
    message = one_line(result.output)
    assert result.exit_code == 2 and "manifest.json" in message and word in message, result.output
    assert "Traceback" not in result.output


def test_a_fifo_record_does_not_hang_resume_or_the_readers(tmp_path):
    finished_run(tmp_path)
    path = tmp_path / "tasks" / "test-a.json"
    path.unlink()
    os.mkfifo(path)
    reader = RunDir(tmp_path)
    assert [r.status for r in within(20, reader.records)] == ["corrupt", "ok"]
    assert "not a regular file" in reader.notes[0]
    run_dir = within(20, lambda: opened(tmp_path))
    assert "not a regular file" in run_dir.notes[0] and path.exists()
    assert run_batch(run_dir, counting(), NoClient(), ONE_SHOT) == []


def test_a_fifo_manifest_is_a_message_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "manifest.json")
    result = within(30, lambda: CliRunner().invoke(app, ["runs", "show", str(tmp_path)]))
    assert result.exit_code == 2 and "not a regular file" in one_line(result.output)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_record_linked_to_dev_zero_is_refused(tmp_path):
    finished_run(tmp_path)
    path = tmp_path / "tasks" / "test-a.json"
    path.unlink()
    path.symlink_to("/dev/zero")
    reader = RunDir(tmp_path)
    assert [r.status for r in within(20, reader.records)] == ["corrupt", "ok"] and "not a regular file" in reader.notes[
        0
    ]
    run_dir = within(20, lambda: opened(tmp_path))
    assert "not a regular file" in run_dir.notes[0] and path.is_symlink() and run_dir.finished("test/a")


def test_a_3_gb_record_is_refused_by_its_size_unread(tmp_path):
    import tracemalloc

    finished_run(tmp_path)
    path = tmp_path / "tasks" / "test-a.json"
    with open(path, "r+b") as handle:  # sparse: 3 GB long, nothing written
        handle.truncate(3 * 2**30)
    reader = RunDir(tmp_path)
    tracemalloc.start()
    records = within(20, reader.records)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [r.status for r in records] == ["corrupt", "ok"] and peak < 20 * 2**20
    assert "3,221,225,472 bytes: more than 134,217,728 bytes" in reader.notes[0]
    run_dir = within(20, lambda: opened(tmp_path))
    assert "3,221,225,472 bytes" in run_dir.notes[0] and path.stat().st_size == 3 * 2**30


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_lock_that_is_not_a_file_is_exit_2_with_a_message(tmp_path, kind):
    (tmp_path / ".lock").mkdir() if kind == "folder" else os.mkfifo(tmp_path / ".lock")
    with pytest.raises(RunDirError, match=r"\.lock"):
        within(20, lambda: opened(tmp_path))
    result = within(
        60,
        lambda: CliRunner().invoke(
            app, ["run", "--model", "zero", "--tasks", "original/breakout", "--out", str(tmp_path), "--episodes", "2"]
        ),
    )
    message = one_line(result.output)
    assert result.exit_code == 2 and ".lock" in message and "Traceback" not in result.output, result.output


def test_a_resumed_run_of_another_suite_is_refused_in_one_short_line(tmp_path):
    """Found by benchmarks/fuzz.py: the refusal quoted the manifest's suite name whole (a list of 200,000 items)."""
    finished_run(tmp_path)
    data = json.loads((tmp_path / "manifest.json").read_text())
    data["suite"]["name"] = [0] * 200_000
    data["config"]["model"] = "x\n" * 1000
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(RunDirError) as refused:
        opened(tmp_path)
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 1000
    data["config"]["model"] = "zero"
    (tmp_path / "manifest.json").write_text(json.dumps(data))
    with pytest.raises(RunDirError, match="holds a run of suite") as refused:
        opened(tmp_path)
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 1000


def test_the_default_directory_of_a_run_with_other_settings_is_its_own_and_resumes(tmp_path, monkeypatch):
    """A newcomer who changes --episodes is not refused: the run goes to a directory of its own, named in the
    output, and the same command again resumes it."""
    monkeypatch.chdir(tmp_path)

    def run(*args):
        command = ["run", "--model", "zero", "--tasks", "original/breakout", "--workers", "1", *args]
        return CliRunner().invoke(app, command)

    first = run("--episodes", "3")
    assert first.exit_code == 0 and (tmp_path / "runs" / "zero-one-shot" / "tasks").is_dir(), first.output
    second = run("--episodes", "2")
    output = " ".join(second.output.split())
    assert second.exit_code == 0 and "holds a run with other settings (episodes=2, not 3)" in output, output
    (other,) = [p for p in (tmp_path / "runs").iterdir() if p.name.startswith("zero-one-shot-")]
    assert other.name in output and RunDir(other).read()[0].config.protocol.episodes == 2
    again = " ".join(run("--episodes", "2").output.split())
    assert "all 1 task already finished in " + str(Path("runs") / other.name) in again
    assert "all 1 task already finished in runs/zero-one-shot;" in " ".join(run("--episodes", "3").output.split())
    tasks = run("--episodes", "3", "--tasks", "original/breakout,original/asterix")  # other tasks: another run too
    assert tasks.exit_code == 0 and "other tasks" in " ".join(tasks.output.split())
    assert len(list((tmp_path / "runs").iterdir())) == 3
    from wspbench import evaluate  # issue 52: the function said nothing of the directory it chose

    with pytest.warns(UserWarning, match=r"runs/zero-one-shot holds a run with other settings \(episodes=2, not 3\)"):
        (record,) = evaluate("zero", "original/breakout", episodes=2, workers=1)
    assert record.test.episodes == (0, 1)
