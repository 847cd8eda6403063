"""The agent protocol through `wsp run` (`harness/protocols.py`, `harness/agent.py`) in the real sandbox: the
offline `reference-agent` scores what one-shot `reference` scores on every family, its record is an audit of
its blocks, passes and seconds that `wsp runs show` prints, and handoffs carry the notebook."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.conftest import need_sandbox
from tests.harness.test_offline import offline_run, record, without_seconds
from wspbench.cli import app
from wspbench.harness.clients import OfflineClient
from wspbench.harness.protocols import run_task
from wspbench.harness.record import SCHEMA_VERSION, Reply, RunConfig, TaskRecord
from wspbench.protocols import make
from wspbench.tasks import get_task

TASKS = ["original/breakout", "synth/ferry", "superbeam", "identify-choice/breakout/1", "repair/freeway/swap_actions"]
AGENT = ("--protocol", "agent", "--passes", "3", "--train-episodes", "3")


@pytest.fixture(autouse=True)
def sandbox():
    need_sandbox()


def test_reference_agent_grades_the_reference_on_its_drawn_episodes_with_an_audit(tmp_path):
    agent_run, one_shot = tmp_path / "agent", tmp_path / "one-shot"
    result = offline_run(agent_run, "reference-agent", ",".join(TASKS), *AGENT)
    assert result.exit_code == 0, result.output
    assert offline_run(one_shot, "reference", ",".join(TASKS)).exit_code == 0
    for task_id in TASKS:
        mine, reference = record(agent_run, task_id), record(one_shot, task_id)
        task = get_task(task_id)  # the agent's held-out episodes are drawn by the run's secret (identify has none)
        drawn = task.grade(task.offline_answer("reference"), task.held_out_episodes(3, mine["held_out_key"]))
        assert without_seconds(mine["test"]) == without_seconds(drawn.to_json()), task_id
        assert (mine["held_out_key"] is None) == task_id.startswith("identify") and reference["held_out_key"] is None
        assert mine["protocol"] == "agent" and mine["best_round"] == 2 and len(mine["rounds"]) == 2
        blocks = [block for entry in mine["rounds"] for block in entry["blocks"]]
        assert [(b["kind"], b["status"]) for b in blocks] == [
            ("python", "ok"),
            ("play", "not played" if task_id.startswith("identify") else "played"),
            ("submit", "submitted"),
        ], task_id
        assert sum(b["passes"] for b in blocks) == (0 if task_id.startswith("identify") else 1)
        assert "answer.txt" not in blocks[0]["output"] and "task.md" in blocks[0]["output"]  # listed before writing
        assert blocks[1]["output"].endswith("(2 passes left)") or task_id.startswith("identify")
        assert "Reply with" not in blocks[1]["output"]  # a play reports; the protocol says what may follow
        assert all(b["seconds"] >= 0 for b in blocks)
        graded = TaskRecord.from_json(mine).graded_round  # the record keeps the answer read from the kernel's file
        assert graded.answer == get_task(task_id).offline_answer("reference") == blocks[2]["candidate"]
    manifest = json.loads((agent_run / "manifest.json").read_text())
    assert manifest["schema_version"] == SCHEMA_VERSION and manifest["config"]["passes"] == 3
    shown = offline_run_show(agent_run)
    for task_id in TASKS:
        assert task_id in shown
    assert "Blocks" in shown and "submitted" in shown and "played" in shown and "passes" in shown
    report = CliRunner().invoke(app, ["report", str(agent_run), "--out", str(tmp_path / "report"), "--no-replays"])
    assert report.exit_code == 0, report.output
    text = (tmp_path / "report" / "report.md").read_text()
    assert "## Agent blocks" in text and "| agent | synth/ferry | 1 | play | played |" in text


def offline_run_show(run_dir) -> str:
    result = CliRunner().invoke(app, ["runs", "show", str(run_dir)], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_handoff_opens_a_fresh_conversation_with_the_notebook_and_the_last_candidate():
    task = get_task("synth/ferry")
    replies = [
        "````python\nopen('notebook.md', 'w').write('unit 0 watches the ferry')\n````\n```play\nW1[0, 0] = 1\n```",
        "```python\nprint(open('candidate.txt').read())\n```",
        "```submit\n```",
    ]
    config = RunConfig(
        "reference-agent", protocol=make("agent", rounds=5, episodes=3, train_episodes=2, passes=1, handoff=1)
    )
    rec = run_task(task, OfflineClient("reference-agent"), config, paid=[Reply(text) for text in replies], workers=1)
    assert rec.status == "ok", rec.error
    assert [entry.handoff for entry in rec.rounds] == [True, True, False]
    notes = [m["content"] for m in rec.messages if m.get("handoff")]
    assert len(notes) == 2 and "Your notebook.md:\nunit 0 watches the ferry" in notes[0]
    assert "Your last candidate (also in candidate.txt):\n```edits\nW1[0, 0] = 1\n```" in notes[0]
    assert rec.rounds[1].blocks[0].output.startswith("```edits\nW1[0, 0] = 1")  # written into the kernel's folder
    assert rec.best_round == 1 and rec.passes == 1
    again = TaskRecord.from_json(rec.to_json())
    assert again.to_json() == rec.to_json()


def test_a_schema_2_record_still_reads_as_one_without_blocks():
    rec = run_task(
        get_task("synth/ferry"),
        OfflineClient("reference"),
        RunConfig("reference", protocol=make("one-shot", episodes=2)),
        workers=1,
    )
    data = rec.to_json()
    data["schema_version"] = 2
    for entry in data["rounds"]:
        del entry["blocks"], entry["handoff"]
    old = TaskRecord.from_json(data)
    assert old.rounds[0].blocks == [] and old.test_score == rec.test_score


def test_without_a_sandbox_an_agent_run_is_refused_before_anything_runs(tmp_path, monkeypatch):
    from wspbench.sandbox import _failure

    monkeypatch.setenv("PATH", str(tmp_path))
    _failure.cache_clear()
    try:
        result = offline_run(tmp_path / "run", "reference-agent", "synth/ferry", *AGENT)
    finally:
        _failure.cache_clear()
    assert result.exit_code == 2 and "the agent protocol needs a sandbox: bubblewrap (bwrap) is not on" in result.output
    assert not (tmp_path / "run").exists()
