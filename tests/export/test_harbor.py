"""`wsp export harbor`: every file of a task folder; the agent's image holds nothing of this project; each
folder's tests/test.sh, run here against a fake /logs root, writes the reward the task's own grade gives the
same answer, even when the agent planted modules and Python variables; every file carries the suite; two
exports are byte-identical. The real `harbor lint` runs on the folders when its virtual environment exists
(benchmarks/harbor_lint.py)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import missing_part
from wspbench.cli import app
from wspbench.evaluation import ONE_WORKER
from wspbench.export.harbor import (
    LOCK_FILE,
    TIMEOUTS_TABLE,
    ZIP_DATE,
    content_digest,
    export_harbor,
    exported,
    grading_file,
    measured_table,
    normalize_wheel,
    timeouts,
)
from wspbench.files import NotEmpty
from wspbench.protocols import OneShot
from wspbench.tasks import all_tasks, get_task, select, suite
from wspbench.verifier import (
    FAILED,
    GRADED,
    REJECTED,
    SETTINGS,
    run_step,
    step_main,
)

EPISODES = 2
ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
RUNNER = CliRunner()
HARBOR_VENV = Path(os.environ.get("WSP_HARBOR_VENV", "/tmp/harbor-venv"))
ZERO_REWARD = {"reward": 0.0, "normalized_score": 0.0, "parse_success": 0.0}


def synth_with_reference() -> str:
    found = [task.id for task in select("synth/*") if task.offline_answer("reference") is not None]
    if not found:
        pytest.skip("no synthetic game ships a reference program yet")
    return "synth/ferry" if "synth/ferry" in found else found[0]


def stand_in_wheel(folder: Path) -> Path:
    """A wheel holding only METADATA (building the real one is tested on its own below)."""
    wheel = folder / "wspbench-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        requires = "".join(f"Requires-Dist: {r}\n" for r in metadata.requires("wspbench") or [])
        archive.writestr("wspbench-0.1.0.dist-info/METADATA", f"Name: wspbench\n{requires}")
    return wheel


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    """original/breakout, a synthetic game and SUPERBEAM."""
    out = tmp_path_factory.mktemp("harbor")
    items = exported(select(f"original/breakout,{synth_with_reference()},superbeam"), EPISODES)
    folders = export_harbor(out, items, wheel=stand_in_wheel(out.parent))
    return out, {item.task.id: (item, folder) for item, folder in zip(items, folders, strict=True)}


def run_script(script: Path, env: dict, cwd: Path | None = None) -> subprocess.CompletedProcess:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(
        ["bash", str(script)],
        env={**os.environ, "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        check=False,
    )


def expected_score(item, answer_file: Path) -> float:
    """The normalised score the task's own grade (what `wsp grade` prints) gives the answer on its episodes."""
    return item.task.grade(answer_file.read_text(), item.episodes, ONE_WORKER).normalized


def file_hashes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_every_file_of_every_folder(three):
    out, tasks = three
    table = measured_table()
    suite_facts = suite().to_json()
    for task_id, (item, folder) in tasks.items():
        assert folder.name == item.task.slug == task_id.replace("/", "-")
        assert sorted(file_hashes(folder)) == sorted(
            [
                "task.toml",
                "instruction.md",
                "environment/Dockerfile",
                "tests/Dockerfile",
                "tests/constraints.txt",
                "tests/wspbench-0.1.0-py3-none-any.whl",
                "tests/test.sh",
                "solution/solve.sh",
            ]
        )
        for script in ("tests/test.sh", "solution/solve.sh"):
            assert os.access(folder / script, os.X_OK)
        config = tomllib.loads((folder / "task.toml").read_text())
        assert config["task"]["name"] == f"wspbench/{item.task.slug}" and config["task"]["description"]
        assert item.task.game.description in config["task"]["description"]
        assert config["metadata"]["license"] == "GPL-3.0-or-later"
        assert config["verifier"]["environment_mode"] == "separate"
        assert config["verifier"]["network_mode"] == "no-network"
        assert config["environment"]["network_mode"] == "no-network"  # the agent's: Harbor's default is public
        assert config["verifier"]["environment"]["network_mode"] == "no-network"
        assert config["verifier"]["environment"]["cpus"] == config["environment"]["cpus"]
        assert config["verifier"]["env"] == item.verifier_env() == {"WEIGHT_SPACE_EPISODES": str(len(item.episodes))}
        assert config["metadata"]["measured_worst_episode_s"] == table[task_id]  # the committed table
        assert config["verifier"]["timeout_sec"] == timeouts(item, table[task_id], 4)[0] >= 300
        assert config["metadata"]["wspbench_task"] == task_id and config["metadata"]["suite"] == suite_facts
        assert config["metadata"]["episodes"] == len(item.task.scoring_episodes(EPISODES))
        assert config["artifacts"] == ["/app/answer.md"] and config["agent"]["user"] == "agent"
        assert config["metadata"]["prompt_sha256"] == item.prompt_sha256
        system, user = item.task.messages(OneShot(episodes=len(item.episodes)))  # the count graded
        instruction = (folder / "instruction.md").read_text()
        assert user["content"].rstrip() in instruction and system["content"] in instruction
        assert "/app/answer.md" in instruction
        verifier_image = (folder / "tests" / "Dockerfile").read_text()
        assert "-c /opt/wspbench/constraints.txt /opt/wspbench/wspbench-0.1.0-py3-none-any.whl" in verifier_image
        assert "COPY test.sh /tests/test.sh" in verifier_image  # Harbor does not upload tests/ to this image
        assert "numpy==" in (folder / "tests" / "constraints.txt").read_text()
        test_sh = (folder / "tests" / "test.sh").read_text()
        assert f'export WEIGHT_SPACE_EPISODES="${{WEIGHT_SPACE_EPISODES:-{len(item.episodes)}}}"' in test_sh
        assert f"python -I -m wspbench.verifier {task_id} " in test_sh
    registry = json.loads((out / "registry.json").read_text())
    assert [t["path"] for t in registry[0]["tasks"]] == [f.name for _, f in tasks.values()]
    assert registry[0]["suite"] == suite_facts
    dataset = tomllib.loads((out / "dataset.toml").read_text())
    assert {t["name"]: t["digest"] for t in dataset["tasks"]} == {
        item.harbor_name: content_digest(folder) for item, folder in tasks.values()
    }
    assert dataset["dataset"]["metadata"]["suite"] == suite_facts
    assert suite_facts["digest"] in (out / "README.md").read_text()


def test_the_timeouts_table_covers_every_task():
    table = json.loads(TIMEOUTS_TABLE.read_text())["worst_episode_s"]
    assert {task.id for task in all_tasks()} <= set(table)
    assert all(0 < seconds < 60 for seconds in table.values())


def reference_lines() -> list[str]:
    """Every line of the shipped reference programs, except short ones (such as `W2[0, 0] = 3.0`, the
    edits format's example in the prompt itself) that say nothing about a solution."""
    files = sorted((SRC / "wspbench" / "references").glob("*.txt")) + sorted(
        (SRC / "minatar_synth" / "references").glob("*.txt")
    )
    assert len(files) >= 20
    return sorted({line.strip() for f in files for line in f.read_text().splitlines() if len(line.strip()) >= 16})


def superbeam_reference_texts() -> list[str]:
    """The SUPERBEAM reference network's notes and every row holding a non-zero weight, as JSON writes them."""
    network = json.loads((SRC / "wspbench" / "tasks" / "superbeam_reference.json").read_text())
    texts = [note for note in network["notes"].values() if isinstance(note, str)]
    for key in ("W1", "b1", "W2", "b2"):
        rows = network[key] if isinstance(network[key][0], list) else [network[key]]
        for row in rows:
            if any(row):
                texts += [json.dumps(row), json.dumps(row, separators=(",", ":"))]
    return texts


def test_the_agent_image_holds_no_reference_answer_no_grader_and_no_wspbench(tmp_path):
    """Everything the agent receives (the environment/ build context and instruction.md), for every task."""
    folders = export_harbor(tmp_path / "out", exported(all_tasks(), 1000), wheel=stand_in_wheel(tmp_path))
    secrets = reference_lines() + superbeam_reference_texts()
    for folder in folders:
        received = [folder / "instruction.md", *(p for p in (folder / "environment").rglob("*") if p.is_file())]
        assert [p.name for p in received] == ["instruction.md", "Dockerfile"], folder.name
        for path in received:
            text = path.read_text()
            assert "wspbench" not in text.lower() and ".whl" not in text, path
            leaked = [secret[:60] for secret in secrets if secret in text]
            assert not leaked, f"{path}: {leaked[:3]}"
        dockerfile = (folder / "environment" / "Dockerfile").read_text()
        assert not any(line.split()[:1] in (["COPY"], ["ADD"]) for line in dockerfile.splitlines())
        assert "pip install --no-cache-dir --only-binary=:all: numpy==" in dockerfile


def test_test_sh_with_the_reference_trajectory_writes_the_tasks_score(three, tmp_path):
    _, tasks = three
    for task_id, (item, folder) in tasks.items():
        answer = item.task.offline_answer("reference")
        (tmp_path / f"{item.task.slug}.md").write_text(answer)
        logs = tmp_path / item.task.slug / "logs"
        (logs / "agent").mkdir(parents=True)
        (logs / "agent" / "trajectory.json").write_text(
            json.dumps(
                {"steps": [{"source": "user", "message": "write weights"}, {"source": "agent", "message": answer}]}
            )
        )
        done = run_script(
            folder / "tests" / "test.sh", {"WSP_LOGS_DIR": str(logs), "WSP_ANSWER_FILE": str(tmp_path / "absent.md")}
        )
        assert done.returncode == 0, done.stderr
        reward = json.loads((logs / "verifier" / "reward.json").read_text())
        details = json.loads((logs / "verifier" / "details.json").read_text())
        expected = expected_score(item, tmp_path / f"{item.task.slug}.md")
        assert reward == {"reward": expected, "normalized_score": expected, "parse_success": 1.0}, task_id
        assert details["task"] == task_id and details["episodes"] == list(item.episodes)
        assert details["normalized"] == expected and details["error"] is None and len(details["values"]) == EPISODES
        assert all(isinstance(v, float) for v in reward.values())  # Harbor accepts numbers only


def test_the_oracle_hands_in_the_reference_as_an_answer_file(three, tmp_path):
    _, tasks = three
    item, folder = tasks["original/breakout"]
    answer_file = tmp_path / "app" / "answer.md"
    done = run_script(folder / "solution" / "solve.sh", {"WSP_ANSWER_FILE": str(answer_file)})
    assert done.returncode == 0, done.stderr
    assert answer_file.read_text().rstrip("\n") == item.task.offline_answer("reference").rstrip("\n")
    logs = tmp_path / "logs"  # no agent trajectory: separate-verifier mode sees only the artifact
    done = run_script(folder / "tests" / "test.sh", {"WSP_LOGS_DIR": str(logs), "WSP_ANSWER_FILE": str(answer_file)})
    assert done.returncode == 0, done.stderr
    reward = json.loads((logs / "verifier" / "reward.json").read_text())
    assert reward["reward"] == expected_score(item, answer_file) and reward["parse_success"] == 1.0


def plant(app_dir: Path, logs: Path, marker: Path) -> dict[str, str]:
    """The files and variables an agent could leave to run its own code in the verifier: a `wspbench`
    package with its own verifier, sitecustomize, usercustomize, .pth files (in the folder and in a
    user site-packages), a PYTHONSTARTUP script. Each writes a reward of 1.0 and a marker file.
    Returns the Python variables pointing at them."""
    payload = (
        f"import json, pathlib\npathlib.Path({str(marker)!r}).write_text('planted code ran')\n"
        f"reward = pathlib.Path({str(logs / 'verifier' / 'reward.json')!r})\n"
        "reward.parent.mkdir(parents=True, exist_ok=True)\n"
        "reward.write_text(json.dumps({'reward': 1.0, 'normalized_score': 1.0, 'parse_success': 1.0}))\n"
    )
    user_site = app_dir / "userbase" / Path(sysconfig.get_path("purelib", "posix_user", {"userbase": ""}).lstrip("/"))
    for path in (
        app_dir / "wspbench" / "__init__.py",
        app_dir / "wspbench" / "verifier.py",
        app_dir / "sitecustomize.py",
        app_dir / "usercustomize.py",
        app_dir / "startup.py",
        user_site / "usercustomize.py",
        user_site / "sitecustomize.py",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(payload)
    line = f"import runpy; runpy.run_path({str(app_dir / 'startup.py')!r})\n"
    (app_dir / "planted.pth").write_text(line)
    (user_site / "planted.pth").write_text(line)
    return {
        "PYTHONPATH": str(app_dir),
        "PYTHONUSERBASE": str(app_dir / "userbase"),
        "PYTHONSTARTUP": str(app_dir / "startup.py"),
        "HOME": str(app_dir),
    }


def test_a_planted_module_attack_changes_nothing(three, tmp_path):
    _, tasks = three
    item, folder = tasks["original/breakout"]
    app_dir, logs, marker = tmp_path / "app", tmp_path / "logs", tmp_path / "planted-code-ran"
    attack = plant(app_dir, logs, marker)
    (app_dir / "answer.md").write_text(item.task.offline_answer("zero"))
    # the planted files do work on a Python that is not isolated: the old test.sh ran exactly this
    subprocess.run(
        [sys.executable, "-m", "wspbench.verifier"],
        cwd=app_dir,
        capture_output=True,
        env={**os.environ, **attack},
        timeout=60,
        check=False,
    )
    assert marker.is_file()
    marker.unlink()
    (logs / "verifier" / "reward.json").unlink()

    done = run_script(
        folder / "tests" / "test.sh",
        {**attack, "WSP_LOGS_DIR": str(logs), "WSP_ANSWER_FILE": str(app_dir / "answer.md")},
        cwd=app_dir,
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists(), "code the agent wrote ran inside the verifier"
    reward = json.loads((logs / "verifier" / "reward.json").read_text())
    expected = expected_score(item, app_dir / "answer.md")
    assert reward == {"reward": expected, "normalized_score": expected, "parse_success": 1.0} and expected < 1.0


SUPERBEAM = {"WEIGHT_SPACE_EPISODES": "1"}


def rewards(logs: Path) -> tuple[dict, dict]:
    verifier = logs / "verifier"
    return json.loads((verifier / "reward.json").read_text()), json.loads((verifier / "details.json").read_text())


@pytest.mark.parametrize(
    "kind, message",
    [
        ("missing", "does not exist"),
        ("symlink", "symbolic link"),
        ("fifo", "not a regular file"),
        ("folder", "not a regular file"),
        ("huge", "more than"),
        ("no json", "no JSON object"),
    ],
)
def test_a_bad_answer_file_is_a_zero_reward_never_a_hang(tmp_path, kind, message):
    answer, logs = tmp_path / "answer.md", tmp_path / "logs"
    if kind == "symlink":  # pointing at a reference answer of the verifier's own image
        answer.symlink_to(SRC / "wspbench" / "references" / "breakout.txt")
    elif kind == "fifo":
        os.mkfifo(answer)  # opening it for reading would block until a writer comes
    elif kind == "folder":
        answer.mkdir()
    elif kind == "huge":
        answer.write_bytes(b"x" * (4 * get_task("superbeam").max_answer_chars + 1))
    elif kind == "no json":
        answer.write_text("no weights here")
    assert run_step("superbeam", answer, logs, SUPERBEAM) == REJECTED
    reward, details = rewards(logs)
    assert reward == ZERO_REWARD and message in details["error"]


@pytest.mark.parametrize(
    "task_id, episodes, message",
    [
        ("superbeam", "99", "from 1 to 20 (held-out episodes of superbeam)"),
        ("superbeam", "0", "from 1 to 20"),
        ("original/breakout", "many", "from 1 to 100,000"),
        ("original/breakout", "100001", "from 1 to 100,000"),
        ("repair/breakout/swap_actions", "10", "from 50 to 200 (held-out episodes of repair/breakout/swap_actions)"),
        ("Breakout", "1", "did you mean original/breakout?"),
        ("minatar/original/pong", "1", "unknown task"),
    ],
)
def test_bad_settings_are_exit_2_with_a_reward(tmp_path, task_id, episodes, message):
    answer, logs = tmp_path / "answer.md", tmp_path / "logs"
    answer.write_text("{}")
    assert run_step(task_id, answer, logs, {"WEIGHT_SPACE_EPISODES": episodes}) == SETTINGS
    reward, details = rewards(logs)
    assert reward == ZERO_REWARD and message in details["error"] and details["normalized"] == 0.0


def test_usage_and_internal_errors_still_write_a_reward(tmp_path, monkeypatch, capsys):
    answer, logs = tmp_path / "answer.md", tmp_path / "logs"
    answer.write_text("{}")
    assert step_main(["superbeam", str(answer)]) == SETTINGS and "usage:" in capsys.readouterr().err

    def broken(*args, **kwargs):
        raise RecursionError("a bug")

    monkeypatch.setattr("wspbench.verifier.find_task", broken)
    answer.write_text('```json\n{"W1": []}\n```')
    assert run_step("superbeam", answer, logs, SUPERBEAM) == FAILED
    reward, details = rewards(logs)
    assert reward == ZERO_REWARD and "internal error of the verifier: RecursionError" in details["error"]


def test_an_unwritable_reward_is_one_line_and_exit_3(tmp_path, capsys):
    answer, logs = tmp_path / "answer.md", tmp_path / "logs"
    answer.write_text("no weights here")
    (logs / "verifier" / "reward.json").mkdir(parents=True)
    assert run_step("superbeam", answer, logs, SUPERBEAM) == FAILED
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "cannot write the reward file" in lines[0]


def test_the_trajectory_is_the_answer_when_there_is_no_answer_file(tmp_path):
    logs = tmp_path / "logs"
    (logs / "agent").mkdir(parents=True)
    reference = get_task("superbeam").offline_answer("reference")
    (logs / "agent" / "trajectory.json").write_text(json.dumps({"steps": [{"source": "agent", "message": reference}]}))
    assert run_step("superbeam", tmp_path / "absent.md", logs, SUPERBEAM) == GRADED
    assert rewards(logs)[0]["parse_success"] == 1.0


def test_normalised_wheels_do_not_depend_on_dates_or_order(tmp_path):
    files = {
        "wspbench/a.py": b"a = 1\n",
        "wspbench-0.1.0.dist-info/RECORD": b"r\n",
        "wspbench-0.1.0.dist-info/METADATA": b"Name: wspbench\n",
        "superbeam/b.json": b"{}\n",
    }
    made = []
    for index, (names, date) in enumerate(
        [(sorted(files), (2020, 5, 6, 7, 8, 10)), (sorted(files, reverse=True), (2024, 1, 2, 3, 4, 6))]
    ):
        raw = tmp_path / f"raw{index}.whl"
        with zipfile.ZipFile(raw, "w") as archive:
            for name in names:
                archive.writestr(zipfile.ZipInfo(name, date_time=date), files[name])
        made.append(normalize_wheel(raw, tmp_path / f"n{index}.whl"))
    assert made[0].read_bytes() == made[1].read_bytes()
    with zipfile.ZipFile(made[0]) as archive:
        assert archive.namelist() == [
            "superbeam/b.json",
            "wspbench/a.py",
            "wspbench-0.1.0.dist-info/METADATA",
            "wspbench-0.1.0.dist-info/RECORD",
        ]
        assert {info.date_time for info in archive.infolist()} == {ZIP_DATE}
        assert {info.external_attr >> 16 for info in archive.infolist()} == {0o100644}
        assert archive.read("wspbench/a.py") == files["wspbench/a.py"]


def test_two_exports_with_the_real_wheel_are_byte_identical(tmp_path):
    """The wheel is built twice from the source tree, seconds apart; every file of both exports is equal."""
    from wspbench.export.harbor import source_tree

    if source_tree() is None:
        pytest.skip("wspbench is not installed from a source checkout")
    items = exported(select("superbeam,repair/breakout/swap_actions"), 100)
    try:
        export_harbor(tmp_path / "one", items)
        export_harbor(tmp_path / "two", items)
    except RuntimeError as error:
        pytest.skip(f"pip cannot build the wheel here (it needs setuptools from an index): {error}")
    one, two = file_hashes(tmp_path / "one"), file_hashes(tmp_path / "two")
    assert one == two and len(one) == 2 * 8 + 3
    assert {p.stat().st_mode & 0o777 for p in (tmp_path / "one").rglob("*") if p.is_file()} == {0o644, 0o755}
    wheels = {
        item.task.id: next((tmp_path / "one" / item.public.slug / "tests").glob("wspbench-*.whl")) for item in items
    }
    with zipfile.ZipFile(wheels["superbeam"]) as archive:  # a task that grades no reading network carries none
        assert not any(
            name.startswith("wspbench/tasks/reading/") and name.endswith(".npz") for name in archive.namelist()
        )
    wheel = wheels["repair/breakout/swap_actions"]
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert {info.date_time for info in archive.infolist()} == {ZIP_DATE}
    assert [name for name in names if name.endswith(".npz") and "/reading/" in name] == [
        "wspbench/tasks/reading/breakout.2.npz"
    ]
    for needed in (
        "wspbench/verifier.py",
        "wspbench/references/breakout.txt",
        "superbeam/roms/superbeam.asm",
        "wspbench/tasks/superbeam_reference.json",
        "wspbench/export/harbor_constraints.txt",
        "wspbench/tasks/reading/damages.json",
        "wspbench/tasks/reading/breakout.2.npz",
    ):
        assert needed in names
    assert not any(name.endswith((".0.npz", ".1.npz")) for name in names)
    assert wheel.stat().st_size < 3_000_000  # 6.35 MB before the unread networks were left out
    unpacked = tmp_path / "unpacked"  # what grading reads is in it: an identify grade, a repair answer's network
    zipfile.ZipFile(wheel).extractall(unpacked)
    script = (
        f"import sys; sys.path.insert(0, {str(unpacked)!r})\n"
        "from wspbench.tasks import get_task\nfrom wspbench.verifier import step_main\n"
        "repair = get_task('repair/breakout/swap_actions')\n"
        "assert repair.check(repair.offline_answer('reference'))[2] is None\n"
        "import wspbench.baselines.ppo as ppo\n"
        f"assert ppo.__file__.startswith({str(unpacked)!r})  # the wheel's own data, not this checkout's\n"
        f"answer, logs = {str(tmp_path / 'answer.md')!r}, {str(tmp_path / 'logs')!r}\n"
        "sys.exit(step_main(['identify-choice/ferry/3', answer, logs]))\n"
    )
    (tmp_path / "answer.md").write_text("```game\nferry\n```\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "logs" / "verifier" / "reward.json").read_text())["reward"] == 1.0
    assert any(n.endswith("entry_points.txt") for n in names)
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_harbor_lint_reports_no_errors(three):
    if not (HARBOR_VENV / "bin" / "harbor").is_file():
        missing_part(
            "harbor",
            f"not installed in {HARBOR_VENV} (a Python >= 3.12 venv with `pip install harbor`, as .ci/parts.sh "
            "makes; set WSP_HARBOR_VENV)",
        )
    out, _ = three
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "harbor_lint.py"), str(out), "--harbor-venv", str(HARBOR_VENV)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "harbor lint on 3 folders: exit 0" in done.stdout and "digests unchanged" in done.stdout
    assert done.stdout.count("image built from tests/ (tests baked in)") == 3


def test_cli_rejects_an_unknown_selector_and_a_file_as_the_output_folder(tmp_path):
    result = RUNNER.invoke(app, ["export", "harbor", str(tmp_path), "--tasks", "original/nosuchgame"])
    assert result.exit_code == 2 and "no task matches" in result.output
    existing = tmp_path / "existing.txt"
    existing.write_text("keep me")
    result = RUNNER.invoke(app, ["export", "harbor", str(existing), "--tasks", "superbeam"])
    assert result.exit_code == 2 and "not a folder" in result.output and existing.read_text() == "keep me"
    result = RUNNER.invoke(app, ["export", "harbor", str(tmp_path / "out"), "--install", "conda"])
    assert result.exit_code == 2 and "wheel or pypi" in result.output


def test_cli_exports_with_the_table_or_measures(tmp_path):
    wheel = stand_in_wheel(tmp_path)
    for out, extra in ((tmp_path / "table", []), (tmp_path / "measured", ["--measure", "--measure-episodes", "1"])):
        result = RUNNER.invoke(
            app,
            ["export", "harbor", str(out), "--tasks", "superbeam", "--episodes", "2", "--wheel", str(wheel), *extra],
        )
        assert result.exit_code == 0, result.output
    table = tomllib.loads((tmp_path / "table" / "superbeam" / "task.toml").read_text())
    assert table["metadata"]["measured_worst_episode_s"] == measured_table()["superbeam"]
    measured = tomllib.loads((tmp_path / "measured" / "superbeam" / "task.toml").read_text())
    assert measured["metadata"]["measured_worst_episode_s"] > 0


def test_a_toy_family_from_one_file_is_exported_and_graded(tmp_path):
    """tests/toy_family.py, registered at run time: its folder, instruction and oracle come from the task
    alone, and the grading step grades it (in this process, where the family is registered)."""
    from tests import toy_family
    from wspbench.tasks import register_family, unregister_family

    register_family("toy", toy_family.tasks)
    try:
        item = exported(select("toy"), 4)[0]
        (folder,) = export_harbor(tmp_path / "out", [item], wheel=stand_in_wheel(tmp_path))
        config = tomllib.loads((folder / "task.toml").read_text())
        assert folder.name == "toy-sign" and config["task"]["name"] == "wspbench/toy-sign"
        assert config["metadata"]["game"] == "sign" and config["metadata"]["episodes"] == 4
        assert config["metadata"]["suite"] == suite().to_json() and config["metadata"]["suite"]["tasks"] >= 27
        assert "Say whether a number is negative or positive." in config["task"]["description"]
        assert "```json" in (folder / "instruction.md").read_text()
        assert "wspbench.verifier toy/sign " in (folder / "tests" / "test.sh").read_text()
        answer = tmp_path / "answer.md"
        answer.write_text(item.task.offline_answer("reference"))
        assert run_step("toy/sign", answer, tmp_path / "logs", {"WEIGHT_SPACE_EPISODES": "4"}) == GRADED
        reward, details = rewards(tmp_path / "logs")
        assert reward == {"reward": 1.0, "normalized_score": 1.0, "parse_success": 1.0}
        assert details["task"] == "toy/sign" and details["episodes"] == [0, 1, 2, 3]
    finally:
        unregister_family("toy")


@pytest.mark.parametrize("task_id", ["identify-choice/ferry/3", "repair/breakout/swap_actions"])
def test_reading_and_repair_tasks_are_exported_and_verified(tmp_path, task_id):
    """A reading task's folder: its instruction holds the whole prompt and says how the reply is scored, and the
    verifier's grading step gives the reference reply 1 and the zero reply 0."""
    item = exported(select(task_id), 50)[0]
    (folder,) = export_harbor(tmp_path / "out", [item], wheel=stand_in_wheel(tmp_path))
    instruction = (folder / "instruction.md").read_text()
    assert item.task.messages(OneShot(episodes=50))[1]["content"].rstrip() in instruction
    assert (
        f"```{item.task.answer_format} block" in instruction
        and item.task.scoring_rule(len(item.episodes)) in instruction
    )
    for model, expected in (("reference", 1.0), ("zero", 0.0)):
        answer = tmp_path / f"{model}.md"
        answer.write_text(item.task.offline_answer(model))
        logs = tmp_path / model
        assert run_step(item.public.id, answer, logs, item.verifier_env()) == GRADED  # as the export calls it
        reward, details = rewards(logs)
        assert reward == {"reward": expected, "normalized_score": expected, "parse_success": 1.0}, model
        assert details["task"] == item.public.id != task_id and details["episodes"] == list(item.episodes)
        assert task_id not in (logs / "verifier" / "details.json").read_text()  # the real id names the answer


def test_a_planted_symlink_in_the_logs_is_replaced_not_written_through(tmp_path):
    """issue 27.13: details.json and reward.json linking outside the logs folder leave those files alone."""
    answer, logs, outside = tmp_path / "answer.md", tmp_path / "logs", tmp_path / "outside"
    answer.write_text(get_task("superbeam").offline_answer("reference"))
    outside.mkdir()
    (logs / "verifier").mkdir(parents=True)
    for name in ("details.json", "reward.json"):
        (outside / name).write_text("keep me")
        (logs / "verifier" / name).symlink_to(outside / name)
    assert run_step("superbeam", answer, logs, SUPERBEAM) == GRADED
    assert [(outside / name).read_text() for name in ("details.json", "reward.json")] == ["keep me"] * 2
    assert not any(path.is_symlink() for path in (logs / "verifier").iterdir())
    assert rewards(logs)[0]["parse_success"] == 1.0


@pytest.mark.parametrize("task_id", ["original/breakout", "repair/breakout/swap_actions"])
def test_the_instruction_states_the_episodes_the_verifier_grades(tmp_path, task_id):
    """issue 27.12: with --episodes 60 the instruction said 1000 (200 for repair, with returns over 200)."""
    result = RUNNER.invoke(
        app,
        ["export", "harbor", str(tmp_path / "out"), "--tasks", task_id, "--episodes", "60"]
        + ["--wheel", str(stand_in_wheel(tmp_path))],
    )
    assert result.exit_code == 0, result.output
    task, folder = get_task(task_id), tmp_path / "out" / get_task(task_id).public().slug
    instruction = (folder / "instruction.md").read_text()
    assert "The network plays 60 episodes" in instruction and "plays 1000 episodes" not in instruction
    assert task.messages(OneShot(episodes=60))[1]["content"].rstrip() in instruction
    assert tomllib.loads((folder / "task.toml").read_text())["verifier"]["env"]["WEIGHT_SPACE_EPISODES"] == "60"
    if task_id.startswith("repair/"):
        damaged = sum(task.returns("damaged", range(60))) / 60
        assert f"the damaged network's mean return is {damaged:.2f}" in instruction


def test_a_non_empty_folder_is_refused_without_force_and_then_holds_exactly_the_export(tmp_path):
    """issue 22.9: an earlier export's task folders stayed next to the new ones, which registry.json left out."""
    wheel, out = stand_in_wheel(tmp_path), tmp_path / "out"
    export_harbor(out, exported(select("original/breakout,superbeam"), 2), wheel=wheel)
    result = RUNNER.invoke(app, ["export", "harbor", str(out), "--tasks", "synth/ferry", "--wheel", str(wheel)])
    assert result.exit_code == 2 and "not empty; pass --force" in result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md",
        "dataset.toml",
        "original-breakout",
        "registry.json",
        "superbeam",
    ]
    result = RUNNER.invoke(
        app,
        ["export", "harbor", str(out), "--tasks", "synth/ferry", "--episodes", "2", "--wheel", str(wheel), "--force"],
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "dataset.toml", "registry.json", "synth-ferry"]
    readme = (out / "README.md").read_text()
    assert "harbor run -p synth-ferry -a oracle" in readme and "original-breakout" not in readme
    (out / "notes.txt").write_text("mine")  # something that is not an export is never removed
    with pytest.raises(NotEmpty, match="notes.txt"):
        export_harbor(out, exported(select("superbeam"), 2), wheel=wheel, force=True)
    assert (out / "notes.txt").read_text() == "mine" and (out / "synth-ferry" / "task.toml").is_file()


def test_the_pins_come_from_the_committed_lock_not_the_local_venv(tmp_path, monkeypatch):
    """issue 22.9: constraints.txt pinned whatever this venv held, and the base image this Python's version."""
    wheel = stand_in_wheel(tmp_path)
    items = exported(select("superbeam"), 2)
    export_harbor(tmp_path / "here", items, wheel=wheel)
    version = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: version(name) if name == "wspbench" else "9.9.9")
    monkeypatch.setattr("platform.python_version_tuple", lambda: ("3", "99", "0"))
    export_harbor(tmp_path / "elsewhere", items, wheel=wheel)
    assert file_hashes(tmp_path / "here") == file_hashes(tmp_path / "elsewhere")
    assert (tmp_path / "here" / "superbeam" / "tests" / "constraints.txt").read_text() == LOCK_FILE.read_text()


def test_the_lock_pins_every_dependency_once_within_its_bounds():
    """Every dependency pyproject.toml declares (read from the file: an editable install's metadata can be older)
    is pinned once, at a version its bounds allow, so that the verifier image resolves (on main 85cd881 the lock
    lacked pyseccomp and pinned typer 0.29.2 against `typer<0.29`: caught by `.ci/run` in a fresh clone)."""
    from packaging.requirements import Requirement

    pins = [line for line in LOCK_FILE.read_text().splitlines() if line and not line.startswith("#")]
    versions = {line.split("==")[0].lower(): line.split("==")[1] for line in pins}
    assert all(line.count("==") == 1 for line in pins) and len(versions) == len(pins)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for requirement in map(Requirement, declared):
        if requirement.marker is None or requirement.marker.evaluate({"sys_platform": "linux"}):
            name = requirement.name.lower().replace("_", "-")
            assert name in versions, str(requirement)
            assert requirement.specifier.contains(versions[name], prereleases=True), (str(requirement), versions[name])


def test_the_verifier_wheel_leaves_out_the_networks_grading_never_loads(tmp_path):
    """issue 22.9: only repair's network (seed 2) of the trained ones is read when grading; seeds 0 and 1
    (identify's prompts) and the `trained` offline model's networks were 2/3 of a 6.3 MB wheel."""
    raw = tmp_path / "raw.whl"
    names = ["wspbench/tasks/reading/breakout.0.npz", "wspbench/tasks/reading/breakout.2.npz", "wspbench/a.py"]
    names += ["wspbench/tasks/reading/damages.json", "wspbench/baselines/trained/superbeam.0.json"]
    names += ["wspbench/baselines/trained/breakout.0.npz", "wspbench/baselines/trained/breakout.2.npz"]
    record = "".join(f"{name},sha256=x,1\n" for name in names) + "wspbench-0.1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(raw, "w") as archive:
        for name in names:
            archive.writestr(name, b"data")
        archive.writestr("wspbench-0.1.0.dist-info/RECORD", record)
    with zipfile.ZipFile(normalize_wheel(raw, tmp_path / "kept.whl", keep=grading_file)) as archive:
        kept = ["wspbench/a.py", "wspbench/tasks/reading/breakout.2.npz", "wspbench/tasks/reading/damages.json"]
        assert archive.namelist() == [*kept, "wspbench-0.1.0.dist-info/RECORD"]
        assert [line.split(",")[0] for line in archive.read("wspbench-0.1.0.dist-info/RECORD").decode().split()] == [
            *sorted(kept, key=names.index),
            "wspbench-0.1.0.dist-info/RECORD",
        ]
