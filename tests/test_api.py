"""`import wspbench`: the README's Python API section runs as shown, the names load lazily, and `evaluate` is
`wsp run` (same records, same run directory, resumed the same way)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import replace
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

import wspbench
from wspbench.cli import app
from wspbench.harness.runs import RunDir, RunDirError
from wspbench.tasks import registry, spec

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
SECTION = README.split("## Python API", 1)[1].split("\n## ", 1)[0]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}


def block(kind: str) -> str:
    (body,) = re.findall(rf"^```{kind}\n(.*?)^```$", SECTION, re.MULTILINE | re.DOTALL)
    return body


def test_import_loads_no_subpackage_and_nothing_heavy():
    code = "import sys, wspbench; print(sorted(m for m in sys.modules if m.split('.')[0] in ARGS))"
    code = code.replace("ARGS", repr(("wspbench", "numpy", "numba", "typer", "minatar", "rich")))
    shown = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "['wspbench']"


def test_every_exported_name_resolves_to_its_definition():
    assert wspbench.get_task is registry.get_task and wspbench.select is registry.select
    assert wspbench.all_tasks is registry.all_tasks and wspbench.suite is registry.suite
    assert wspbench.register_family is registry.register_family
    assert (wspbench.Task, wspbench.Score, wspbench.AnswerError) == (spec.Task, spec.Score, spec.AnswerError)
    assert callable(wspbench.evaluate)
    assert set(wspbench.__all__) <= set(dir(wspbench))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        wspbench.nothing  # noqa: B018
    from wspbench import Score, get_task  # noqa: F401 - the from-import form works too


def test_version_is_the_package_version(monkeypatch):
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert wspbench.__version__ == metadata.version("wspbench") == pyproject

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)  # a source tree that was never installed
    assert wspbench._version() == pyproject


def test_the_readme_one_liner_grades_an_answer_file(tmp_path):
    (line,) = block("bash").strip().splitlines()
    command = shlex.split(line)
    assert command[:2] == ["python", "-c"]
    (tmp_path / "a.txt").write_text(wspbench.get_task("synth/ferry").offline_answer("reference"))
    shown = subprocess.run(
        [sys.executable, *command[1:]], cwd=tmp_path, env=ENV, capture_output=True, text=True, check=True
    )
    assert shown.stdout.split() == [wspbench.__version__, "0.8085"]  # the reference program on 1000 episodes


def test_the_readme_example_runs_and_evaluate_equals_wsp_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(block("python"), "README.md", "exec"), scope)  # noqa: S102 - the README's own example
    (record,) = scope["records"]
    assert (record.task, record.status, record.model) == ("synth/ferry", "ok", "reference")
    assert (tmp_path / "runs" / "reference-one-shot" / "tasks").is_dir()  # `wsp run`'s default directory

    ran = CliRunner().invoke(
        app, ["run", "--model", "reference", "--tasks", "synth/ferry", "--episodes", "20", "--out", "cli"]
    )
    assert ran.exit_code == 0, ran.output
    (by_cli,) = RunDir(tmp_path / "cli").records()
    untimed = [replace(score, seconds=0.0) for score in (record.test, by_cli.test)]
    assert untimed[0] == untimed[1] and len(record.test.values) == 20
    assert (record.seeds, record.prompt_sha256) == (by_cli.seeds, by_cli.prompt_sha256)
    cli_manifest, _ = RunDir(tmp_path / "cli").read()
    api_manifest, _ = RunDir(tmp_path / "runs" / "reference-one-shot").read()
    assert api_manifest.config == cli_manifest.config


def test_evaluate_resumes_and_refuses_other_settings(tmp_path):
    task = wspbench.get_task("synth/ferry")
    first = wspbench.evaluate("zero", task, episodes=3, out=tmp_path / "zero")
    assert [r.test_score for r in first] == [0.0]
    again = wspbench.evaluate("zero", [task], episodes=3, out=tmp_path / "zero")
    assert again == first  # the finished record, read back: nothing ran again
    with pytest.raises(RunDirError, match="episodes=3, not 5"):
        wspbench.evaluate("zero", task, episodes=5, out=tmp_path / "zero")


def test_evaluate_rejects_settings_before_anything_runs(tmp_path):
    with pytest.raises(ValueError, match="engine must be one of auto, compiled, fast, reference, not 'warp'"):
        wspbench.evaluate("zero", "synth/ferry", engine="warp", out=tmp_path / "a")
    with pytest.raises(ValueError, match="episodes must be a whole number from 1 to 100,000, not 0"):
        wspbench.evaluate("zero", "synth/ferry", episodes=0, out=tmp_path / "a")
    with (
        pytest.warns(UserWarning, match="skipped 10 tasks that have no feedback protocol"),
        pytest.raises(ValueError, match="no selected task has the feedback protocol"),
    ):
        wspbench.evaluate("zero", "identify/*", protocol="feedback", out=tmp_path / "b")
    with pytest.raises(registry.UnknownTask):
        wspbench.evaluate("zero", "synth/nothing", out=tmp_path / "c")
    assert list(tmp_path.iterdir()) == []
