"""One owner for each of a run's settings: the protocol's name and settings are `wspbench/protocols/`'s (each
protocol's defaults, the bounds and help), the others `wspbench/harness/settings.py` RunSettings'; `wsp run`'s options
are those, with the same defaults and bounds, and `wspbench.evaluate` takes the same names and records the same
run."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest
import typer
from typer.testing import CliRunner

import wspbench
from tests.conftest import need_sandbox
from wspbench.cli import app
from wspbench.harness.runs import RunDir
from wspbench.harness.settings import RunSettings
from wspbench.protocols import RUN_EPISODES, SETTINGS, Agent, Feedback, OneShot, make
from wspbench.tasks import get_task

NOT_SETTINGS = {  # what a run is of, and how the command line shows it: the command's own options
    "model", "tasks", "out", "base_url", "api_key_env", "limit", "max_prompt_tokens", "dry_run", "executor",
    "ray_address",
}  # fmt: skip


def run_options() -> dict:
    command = typer.main.get_command(app)
    run = command.commands["run"]
    return {param.name: param for param in run.params}


def bounds(param) -> tuple:
    """An option's bounds: its range type's (IntRange, FloatRange), or none."""
    return getattr(param.type, "min", None), getattr(param.type, "max", None)


def test_every_option_of_wsp_run_is_a_setting_with_its_default_and_bounds():
    """A protocol's setting defaults to None (the protocol's own default applies; episodes: a run's, RUN_EPISODES)
    with the protocol's bounds; every other setting has RunSettings' default and bounds."""
    settings = {one.name: one for one in fields(RunSettings)}
    options = run_options()
    assert set(options) - NOT_SETTINGS == set(settings) | set(SETTINGS), "an option without a setting, or the reverse"
    for name, param in options.items():
        if name in NOT_SETTINGS or name == "protocol":
            continue
        if name in SETTINGS:
            assert param.default == (RUN_EPISODES if name == "episodes" else None), name
            assert bounds(param) == (SETTINGS[name].low, SETTINGS[name].high), name
            continue
        one = settings[name]
        assert param.default == one.default, name
        assert bounds(param) == (one.metadata["min"], one.metadata["max"]), name
    assert options["protocol"].default == OneShot.name


def test_an_unknown_setting_is_an_error_not_dropped():
    with pytest.raises(ValueError, match="no run setting 'pases' \\(did you mean 'passes'\\?\\)"):
        wspbench.evaluate("zero", "synth/ferry", pases=3)
    for bad in ({"episodes": 0}, {"protocol": "two-shot"}, {"rounds": 2.5}, {"temperature": float("nan")}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            RunSettings.of(**bad)
    agent, feedback, one_shot = (RunSettings.of(name).protocol for name in ("agent", "feedback", "one-shot"))
    assert (agent.rounds, agent.passes, agent.task_timeout) == (20, 10, 3600.0) and feedback.rounds == 4
    assert (one_shot.rounds, one_shot.task_timeout, one_shot.episodes) == (1, 0.0, RUN_EPISODES)
    assert RunSettings.of("one-shot", rounds=5, passes=3).protocol == one_shot  # what it lacks is left out
    assert make("agent", rounds=None) == Agent() and make("feedback") == Feedback()


def test_evaluate_and_wsp_run_record_the_same_agent_run(tmp_path, monkeypatch):
    """issue 41: `evaluate(..., protocol="agent", passes=3, handoff=2)` runs as `wsp run` with those options does:
    the same manifest settings (passes 3, handoff 2, 20 turns) and the same records."""
    need_sandbox()
    monkeypatch.chdir(tmp_path)
    settings = {"protocol": "agent", "passes": 3, "handoff": 2, "episodes": 3, "train_episodes": 2, "workers": 1}
    (record,) = wspbench.evaluate("reference-agent", "synth/ferry", out="api", **settings)
    command = ["run", "--model", "reference-agent", "--tasks", "synth/ferry", "--out", "cli", "--protocol", "agent"]
    command += ["--passes", "3", "--handoff", "2", "--episodes", "3", "--train-episodes", "2", "--workers", "1"]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    api, cli = (RunDir(tmp_path / name).read() for name in ("api", "cli"))
    assert api[0].config == cli[0].config
    protocol = api[0].config.protocol
    assert (protocol.passes, protocol.handoff, protocol.rounds) == (3, 2, 20)

    def timeless(data):
        if isinstance(data, dict):
            return {
                k: timeless(v)
                for k, v in data.items()
                if k not in ("seconds", "timings", "started_at", "finished_at", "latency_s", "held_out_key", "test")
            }
        return [timeless(v) for v in data] if isinstance(data, list) else data

    (by_cli,) = cli[1]
    for one in (record, by_cli):  # each run draws its held-out episodes by a secret of its own
        assert list(one.test.episodes) == get_task("synth/ferry").held_out_episodes(3, one.held_out_key)
    assert json.dumps(timeless(record.to_json()), sort_keys=True) == json.dumps(
        timeless(by_cli.to_json()), sort_keys=True
    )
