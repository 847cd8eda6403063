"""The protocols package (`wspbench/protocols/`): one constructor that checks and fills each protocol's settings, and
a new protocol added as one module (`tests/toy_protocol.py`) that every driver then runs: `wsp run`, `wsp prompt`
and the prompt it states, with the same records as the built-in ones."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.toy_protocol import Retry
from wspbench import protocols
from wspbench.cli import app
from wspbench.harness.clients import OfflineClient
from wspbench.harness.protocols import run_task
from wspbench.harness.record import Reply, RunConfig
from wspbench.protocols import Agent, Feedback, OneShot, make
from wspbench.tasks import get_task


@pytest.fixture
def retry():
    protocols.register(Retry)
    task = get_task("synth/ferry")
    task.protocols = (*task.protocols, Retry.name)  # this task offers it (a task names the protocols it states)
    try:
        yield task
    finally:
        del task.protocols
        protocols.unregister(Retry.name)


def test_make_fills_each_protocols_defaults_and_refuses_what_is_wrong():
    assert make("one-shot") == OneShot() and make("feedback", rounds=None) == Feedback(rounds=4, train_episodes=100)
    assert make("agent", passes=3) == Agent(passes=3) and Agent().task_timeout == 3600.0
    assert make("one-shot", rounds=7, passes=3) == OneShot()  # a run names every setting: those it lacks are left out
    for name, given, message in [
        ("two-shot", {}, "unknown protocol 'two-shot'"),
        ("onesho", {}, "did you mean one-shot"),
        ("agent", {"pases": 3}, "no protocol setting 'pases' \\(did you mean 'passes'\\?\\)"),
        ("agent", {"rounds": 0}, "rounds must be a whole number from 1 to 1,000, not 0"),
        ("one-shot", {"rounds": 2.5}, "rounds must be a whole number"),  # checked even where it is left out
        ("feedback", {"task_timeout": float("inf")}, "task_timeout must be a number from 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            make(name, **given)
    with pytest.raises(ValueError, match="the one-shot protocol has no passes setting"):
        OneShot(passes=3)
    with pytest.raises(ValueError, match="not a new protocol"):
        protocols.register(OneShot)


def test_a_protocol_added_as_one_module_runs_everywhere(retry, tmp_path):
    """`tests/toy_protocol.py` registered: its prompt says it, `wsp prompt` and `wsp run --help` know it, its rules
    run (an unusable reply answered with its error, the next one graded) and the record stores its settings."""
    assert "retry" in protocols.names() and "retry 2" in protocols.options()["rounds"][1]
    text = " ".join(retry.messages(make("retry"))[1]["content"].split())
    assert "This is retry mode: your reply is graded as it is, but if it holds no usable edits block" in text
    shown = CliRunner().invoke(app, ["prompt", retry.id, "--protocol", "retry", "--json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)[1]["content"] == retry.messages(make("retry", episodes=1000))[1]["content"]
    config = RunConfig("reference", protocol=make("retry", episodes=3))
    replies = [Reply("no answer here"), Reply(retry.offline_answer("reference")), Reply("never asked")]
    record = run_task(retry, OfflineClient("reference"), config, paid=replies, workers=1)
    assert record.status == "ok" and len(record.rounds) == 2 and record.best_round == 2
    assert record.messages[3]["content"] == retry.parse_feedback(record.rounds[0].parse_error)
    assert list(record.test.episodes) == [0, 1, 2] and record.held_out_key is None  # fixed episodes
    assert record.test.normalized == retry.grade(retry.offline_answer("reference"), [0, 1, 2]).normalized
    assert RunConfig.from_json(config.to_json()) == config and config.to_json()["rounds"] == 2
    run = CliRunner().invoke(
        app, ["run", "--model", "reference", "--tasks", retry.id, "--protocol", "retry", "--episodes", "2", "--out",
              str(tmp_path / "run"), "--workers", "1"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["config"]["protocol"] == "retry"
