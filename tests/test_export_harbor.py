"""`wsp export harbor`: every file of a task folder, and each folder's tests/test.sh, run here against a
fake /logs root, writes the reward `wsp grade` gives the same answer on the same episodes. The real
`harbor lint` runs on the folders when its virtual environment exists (benchmarks/harbor_lint.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata, resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.export.catalog import select
from wspbench.export.harbor import content_digest, export_harbor
from wspbench.export.verifier_steps import grade_superbeam, numeric_reward, wrap
from wspbench.harness.families import select_task_ids

EPISODES = 2
ROOT = Path(__file__).resolve().parents[1]
RUNNER = CliRunner()
HARBOR_VENV = Path(os.environ.get("WSP_HARBOR_VENV", "/tmp/harbor-venv"))


def synth_with_reference() -> str:
    folder = resources.files("minatar_synth") / "references"
    found = [t for t in select_task_ids("synth/*") if (folder / f"{t.split('/')[1]}.txt").is_file()]
    if not found:
        pytest.skip("no synthetic game ships a reference program yet")
    return "synth/ferry" if "synth/ferry" in found else found[0]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """original/breakout, a synthetic game and SUPERBEAM, exported with a stand-in wheel (building the
    real one is tested on its own below)."""
    out = tmp_path_factory.mktemp("harbor")
    wheel = out.parent / "wspbench-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        requires = "".join(f"Requires-Dist: {r}\n" for r in metadata.requires("wspbench") or [])
        archive.writestr("wspbench-0.1.0.dist-info/METADATA", f"Name: wspbench\n{requires}")
    infos = select(f"original/breakout,{synth_with_reference()},superbeam", EPISODES)
    folders = export_harbor(out, infos, wheel=wheel, measure_episodes=1)
    return out, {info.task_id: (info, folder) for info, folder in zip(infos, folders)}


def run_script(script: Path, env: dict) -> subprocess.CompletedProcess:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", str(script)], env={**os.environ, "PATH": path, **env}, capture_output=True,
                           text=True, timeout=120)


def wsp_grade_score(info, answer_file: Path) -> float:
    """The score `wsp grade` (MinAtar) or `wsp superbeam grade` gives the answer on the task's episodes."""
    if info.family == "superbeam":
        levels = f"{info.levels[0]}..{info.levels[-1]}"
        result = RUNNER.invoke(app, ["superbeam", "grade", str(answer_file), "--levels", levels, "--json"])
        return json.loads(result.stdout)["score"]
    result = RUNNER.invoke(app, ["grade", str(answer_file), "--game", info.game, "--source", info.source,
                                 "--episodes", str(EPISODES), "--workers", "1", "--json"])
    return json.loads(result.stdout.strip().splitlines()[-1])["normalized_score"]


def test_every_file_of_every_folder(exported):
    out, tasks = exported
    for task_id, (info, folder) in tasks.items():
        assert folder.name == info.slug == task_id.replace("/", "-")
        for name in ("task.toml", "instruction.md", "environment/Dockerfile", "environment/constraints.txt",
                     "environment/wspbench-0.1.0-py3-none-any.whl", "tests/test.sh", "solution/solve.sh"):
            assert (folder / name).is_file(), f"{folder.name}/{name}"
        for script in ("tests/test.sh", "solution/solve.sh"):
            assert os.access(folder / script, os.X_OK)
        config = tomllib.loads((folder / "task.toml").read_text())
        assert config["task"]["name"] == f"wspbench/{info.slug}" and config["task"]["description"]
        assert config["verifier"]["environment_mode"] == "separate"
        assert config["verifier"]["network_mode"] == "no-network"
        assert config["verifier"]["env"] == info.verifier_env()
        assert 300 <= config["verifier"]["timeout_sec"] < config["agent"]["timeout_sec"]
        assert config["artifacts"] == ["/app/answer.md"] and config["agent"]["user"] == "agent"
        assert config["metadata"]["prompt_sha256"] == info.prompt_sha256
        instruction = (folder / "instruction.md").read_text()
        assert info.prompt.rstrip() in instruction and info.system_prompt in instruction
        assert "/app/answer.md" in instruction
        dockerfile = (folder / "environment" / "Dockerfile").read_text()
        assert "pip install" in dockerfile and "constraints.txt" in dockerfile
        assert "numpy==" in (folder / "environment" / "constraints.txt").read_text()
        assert 'export WEIGHT_SPACE_GAME="${WEIGHT_SPACE_GAME:-' + info.game in (folder / "tests" / "test.sh").read_text()
    registry = json.loads((out / "registry.json").read_text())
    assert [t["path"] for t in registry[0]["tasks"]] == [f.name for _, f in tasks.values()]
    dataset = tomllib.loads((out / "dataset.toml").read_text())
    assert {t["name"]: t["digest"] for t in dataset["tasks"]} == {
        info.harbor_name: content_digest(folder) for info, folder in tasks.values()}
    assert (out / "README.md").is_file()


def test_test_sh_with_the_reference_trajectory_writes_wsp_grades_score(exported, tmp_path):
    _, tasks = exported
    for task_id, (info, folder) in tasks.items():
        answer = info.reference_answer()
        (tmp_path / f"{info.slug}.md").write_text(answer)
        logs = tmp_path / info.slug / "logs"
        (logs / "agent").mkdir(parents=True)
        (logs / "agent" / "trajectory.json").write_text(json.dumps(
            {"steps": [{"source": "user", "message": info.prompt}, {"source": "agent", "message": answer}]}))
        done = run_script(folder / "tests" / "test.sh", {"WSP_LOGS_DIR": str(logs),
                                                          "WSP_ANSWER_FILE": str(tmp_path / "absent.md")})
        assert done.returncode == 0, done.stderr
        reward = json.loads((logs / "verifier" / "reward.json").read_text())
        details = json.loads((logs / "verifier" / "details.json").read_text())
        expected = wsp_grade_score(info, tmp_path / f"{info.slug}.md")
        assert reward == {"reward": expected, "normalized_score": expected, "parse_success": 1.0}, task_id
        assert details["episodes"] == info.scoring_episodes and details["game"] == info.game
        assert all(isinstance(v, float) for v in reward.values())  # Harbor accepts numbers only


def test_the_oracle_hands_in_the_reference_as_an_answer_file(exported, tmp_path):
    _, tasks = exported
    info, folder = tasks["original/breakout"]
    answer_file = tmp_path / "app" / "answer.md"
    done = run_script(folder / "solution" / "solve.sh", {"WSP_ANSWER_FILE": str(answer_file)})
    assert done.returncode == 0, done.stderr
    assert answer_file.read_text().rstrip("\n") == info.reference_answer().rstrip("\n")
    logs = tmp_path / "logs"  # no agent trajectory: separate-verifier mode sees only the artifact
    done = run_script(folder / "tests" / "test.sh", {"WSP_LOGS_DIR": str(logs), "WSP_ANSWER_FILE": str(answer_file)})
    assert done.returncode == 0, done.stderr
    reward = json.loads((logs / "verifier" / "reward.json").read_text())
    assert reward["reward"] == wsp_grade_score(info, answer_file) and reward["parse_success"] == 1.0


def test_a_missing_or_bad_answer_is_a_zero_reward(tmp_path):
    environ = {"WEIGHT_SPACE_EPISODES": "1"}
    missing = grade_superbeam(tmp_path / "none.json", environ)
    assert missing["normalized_score"] == 0.0 and "no trajectory file" in missing["error"]
    wrap_answer(tmp_path / "reply.md", tmp_path / "t.json", "no weights here")
    assert "no JSON object" in grade_superbeam(tmp_path / "t.json", environ)["error"]
    assert "1..20" in grade_superbeam(tmp_path / "t.json", {"WEIGHT_SPACE_EPISODES": "99"})["error"]
    assert numeric_reward(tmp_path / "missing.json") == {"reward": 0.0, "normalized_score": 0.0, "parse_success": 0.0}
    (tmp_path / "details.json").write_text(json.dumps({**missing, "normalized_score": "NaN"}))
    assert numeric_reward(tmp_path / "details.json")["reward"] == 0.0


def wrap_answer(answer_file: Path, trajectory: Path, text: str) -> None:
    answer_file.write_text(text)
    wrap(answer_file, trajectory)


def test_harbor_lint_reports_no_errors(exported):
    if not (HARBOR_VENV / "bin" / "harbor").is_file():
        pytest.skip(f"harbor is not installed in {HARBOR_VENV} (a Python >= 3.12 venv with `pip install harbor`; "
                    "set WSP_HARBOR_VENV)")
    out, _ = exported
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "harbor_lint.py"), str(out),
                           "--harbor-venv", str(HARBOR_VENV)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "harbor lint on 3 folders: exit 0" in done.stdout and "digests unchanged" in done.stdout


def test_the_real_wheel_carries_the_package_data(tmp_path):
    from wspbench.export.harbor import build_wheel, source_tree

    if source_tree() is None:
        pytest.skip("wspbench is not installed from a source checkout")
    try:
        wheel = build_wheel(tmp_path)
    except RuntimeError as error:
        pytest.skip(f"pip cannot build the wheel here (it needs setuptools from an index): {error}")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("wspbench/export/verifier_steps.py", "wspbench/verifier.py", "wspbench/examples/breakout.txt",
                   "superbeam/roms/superbeam.asm", "superbeam/reference_network.json"):
        assert needed in names
    assert any(n.endswith("entry_points.txt") for n in names)


def test_cli_rejects_an_unknown_selector(tmp_path):
    result = RUNNER.invoke(app, ["export", "harbor", str(tmp_path), "--tasks", "original/nosuchgame"])
    assert result.exit_code == 2 and "no task matches" in result.output
