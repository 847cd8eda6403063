"""Harbor task folders: one per task, plus `registry.json` and `dataset.toml` for the exported set.

    OUT/<slug>/task.toml               name wspbench/<slug>, timeouts sized from measured grading time
    OUT/<slug>/instruction.md          the harness's one-shot prompt + where to hand in the answer
    OUT/<slug>/environment/Dockerfile  Python with wspbench installed at build time (no network to grade)
    OUT/<slug>/tests/test.sh           `wsp verify` with the task's WEIGHT_SPACE_* variables
    OUT/<slug>/solution/solve.sh       the reference program, handed in as an agent would
    OUT/registry.json, OUT/dataset.toml, OUT/README.md

Why it looks like this: Harbor's linter wants a verifier in its own container ("separate" mode), and
there the verifier sees files the agent left as artifacts, not the agent's trajectory. So the agent
writes its reply to /app/answer.md (declared as an artifact); tests/test.sh grades that file, or the
agent's trajectory when the verifier shares the agent's container. See docs/exports.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from wspbench.export.catalog import HARBOR_ORG, TaskInfo

ANSWER_FILE = "/app/answer.md"
SCHEMA_VERSION = "1.4"
MIN_VERIFIER_S = 300
STARTUP_S = 120      # container start, imports, process pool
SAFETY = 2.0         # measured time is on this machine; Harbor's may be slower
AGENT_BASE_S = 1800  # the model's own time, on top of one grading run it may do itself
KEYWORDS = ["weight-space-programming", "neural-networks", "games", "reinforcement-learning"]


@dataclass(frozen=True)
class Resources:
    cpus: int = 4
    memory_mb: int = 4096
    storage_mb: int = 10240


# --- what a task costs to grade -------------------------------------------------------------------

def measure_grading(info: TaskInfo, episodes: int = 2) -> float:
    """Seconds one scoring episode can take in the worst case (every episode at its step limit),
    measured on this machine with one process by grading the reference (or zero) answer."""
    import time

    answer = info.reference_answer() or info.harness_task.offline_answer("zero")
    if info.family == "superbeam":
        from superbeam.task import grade
        started = time.perf_counter()
        grade(answer, info.levels[:1])
        return 2.0 * (time.perf_counter() - started)  # a level that times out plays ~2x as many frames
    from wspbench.grading import grade_answer
    from wspbench.harness.minatar_family import game_facts
    result = grade_answer(info.minatar_task, answer, episodes, workers=1)
    steps = max(1.0, episodes * result.get("mean_episode_length", 1.0))
    return result.get("seconds", 1.0) / steps * game_facts(info.source, info.game).max_steps


def timeouts(info: TaskInfo, episode_s: float, cpus: int) -> tuple[int, int]:
    """(verifier, agent) timeouts in seconds, rounded up to whole minutes."""
    worst = info.scoring_episodes * episode_s / max(1, cpus)
    verifier = max(MIN_VERIFIER_S, 60 * math.ceil((SAFETY * worst + STARTUP_S) / 60))
    return verifier, AGENT_BASE_S + verifier


# --- how the environment installs wspbench --------------------------------------------------------

def source_tree() -> Path | None:
    """The project folder (with pyproject.toml) this wspbench runs from, if it is a source checkout."""
    import wspbench.grading  # wspbench is a namespace package: locate it through a module
    root = Path(wspbench.grading.__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "src" / "wspbench").is_dir() else None


def build_wheel(folder: Path) -> Path:
    """Build this project's wheel (no dependencies) into `folder` with pip."""
    root = source_tree()
    if root is None:
        raise RuntimeError("wspbench is not running from a source checkout; pass --wheel or --install pypi")
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(folder), str(root)],
                          capture_output=True, text=True)
    wheels = sorted(folder.glob("wspbench-*.whl"))
    if done.returncode != 0 or not wheels:
        raise RuntimeError(f"building the wspbench wheel failed: {done.stderr.strip()[-400:]}")
    return wheels[-1]


def wheel_requirements(wheel: Path) -> list[str]:
    """The Requires-Dist lines of a wheel (the wheel may be newer than the installed metadata)."""
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        name = next((n for n in archive.namelist() if n.endswith(".dist-info/METADATA")), None)
        text = archive.read(name).decode() if name else ""
    return [line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("Requires-Dist:")]


def constraints(top: list[str] | None = None) -> str:
    """Exact installed versions of the dependency closure of `top` (default: wspbench's requirements),
    so the image is reproducible."""
    pins: dict[str, str] = {}
    todo: list[str | list[str]] = [top if top is not None else "wspbench"]
    while todo:
        name = todo.pop()
        try:
            requirements = name if isinstance(name, list) else (metadata.requires(name) or [])
        except metadata.PackageNotFoundError:
            continue
        for requirement in requirements:
            if "extra ==" in requirement:
                continue
            dependency = re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0]
            key = dependency.lower().replace("_", "-")
            if key in pins:
                continue
            try:
                pins[key] = f"{dependency}=={metadata.version(dependency)}"
            except metadata.PackageNotFoundError:
                continue
            todo.append(dependency)
    return "".join(f"{pins[key]}\n" for key in sorted(pins))


def default_base_image() -> str:
    return f"python:{'.'.join(platform.python_version_tuple()[:2])}-slim"


def dockerfile(wheel_name: str | None, version: str, base_image: str | None = None) -> str:
    if wheel_name:
        install = (f"COPY {wheel_name} constraints.txt /opt/wspbench/\n"
                   f"RUN pip install --no-cache-dir -c /opt/wspbench/constraints.txt /opt/wspbench/{wheel_name} \\\n")
    else:
        install = ("COPY constraints.txt /opt/wspbench/\n"
                   f"RUN pip install --no-cache-dir -c /opt/wspbench/constraints.txt wspbench=={version} \\\n")
    return (f"# wspbench task environment: wspbench and its pinned dependencies are installed at build time,\n"
            f"# so grading (`wsp verify`) needs no network. The agent works as the non-root user `agent`.\n"
            f"FROM {base_image or default_base_image()}\n{install}"
            f"    && useradd --create-home agent && mkdir -p /app && chown agent /app\n"
            f"WORKDIR /app\n")


# --- the files of one task ------------------------------------------------------------------------

def instruction(info: TaskInfo) -> str:
    block = "```json" if info.answer_format == "json" else "```edits"
    episodes = (f"{len(info.levels)} held-out levels" if info.family == "superbeam"
                else f"{info.episodes} episodes (0..{info.episodes - 1})")
    return (f"{info.system_prompt}\n\n{info.prompt.rstrip()}\n\n---\n\n## Handing in your answer\n\n"
            f"Write your complete final reply (your reasoning, then the {block} block) to the file "
            f"`{ANSWER_FILE}`. Only that file is graded, as a reply: the grader reads the last {block} "
            f"block in it and plays {episodes}. Nothing else you do in this environment is scored.\n")


def test_script(info: TaskInfo) -> str:
    env = info.verifier_env()
    if info.family == "superbeam":
        grade = 'python -m wspbench.export.verifier_steps superbeam "$TRAJECTORY" "$LOGS/verifier/details.json"'
    else:
        grade = 'wsp verify --trajectory "$TRAJECTORY" --reward "$LOGS/verifier/details.json"'
    exports = "".join(f'export {key}="${{{key}:-{value}}}"\n' for key, value in env.items())
    return f"""#!/bin/bash
# Verifier of {info.harbor_name}: grades the agent's answer and writes $LOGS/verifier/reward.json
# (reward = normalised score in [0, 1]); the full result goes to $LOGS/verifier/details.json.
# The answer is {ANSWER_FILE} (the agent's artifact) or else the agent's trajectory.
# WSP_LOGS_DIR and WSP_ANSWER_FILE override the paths, for running this script outside Harbor.
set -u
LOGS="${{WSP_LOGS_DIR:-/logs}}"
ANSWER_FILE="${{WSP_ANSWER_FILE:-{ANSWER_FILE}}}"
{exports}mkdir -p "$LOGS/verifier"
TRAJECTORY="$LOGS/agent/trajectory.json"
if [ -f "$ANSWER_FILE" ]; then
  TRAJECTORY="$LOGS/verifier/answer-trajectory.json"
  python -m wspbench.export.verifier_steps wrap "$ANSWER_FILE" "$TRAJECTORY"
fi
{grade}
python -m wspbench.export.verifier_steps reward "$LOGS/verifier/details.json" "$LOGS/verifier/reward.json"
cat "$LOGS/verifier/reward.json"
"""


def solve_script(info: TaskInfo, answer: str) -> str:
    delimiter = "WSP_REFERENCE_ANSWER"
    while delimiter in answer.splitlines():
        delimiter += "_"
    return f"""#!/bin/bash
# Oracle for {info.harbor_name}: hands in the shipped reference program as an agent would, by
# writing the reply to {ANSWER_FILE} (WSP_ANSWER_FILE overrides the path).
set -euo pipefail
ANSWER_FILE="${{WSP_ANSWER_FILE:-{ANSWER_FILE}}}"
mkdir -p "$(dirname "$ANSWER_FILE")"
cat > "$ANSWER_FILE" <<'{delimiter}'
{answer.rstrip(chr(10))}
{delimiter}
"""


def task_toml(info: TaskInfo, verifier_s: int, agent_s: int, resources: Resources, version: str,
              episode_s: float) -> str:
    q = json.dumps  # a JSON string is a valid TOML basic string
    keywords = KEYWORDS + [info.family, info.game] + ([info.source] if info.source != info.game else [])
    env = "".join(f"{key} = {q(value)}\n" for key, value in info.verifier_env().items())
    return f"""schema_version = {q(SCHEMA_VERSION)}
artifacts = [{q(ANSWER_FILE)}]

[task]
name = {q(info.harbor_name)}
version = {q(version)}
description = {q(info.description())}
keywords = [{", ".join(q(k) for k in dict.fromkeys(keywords))}]

[metadata]
category = "weight-space-programming"
wspbench_task = {q(info.task_id)}
family = {q(info.family)}
game = {q(info.game)}
source = {q(info.source)}
episodes = {info.scoring_episodes}
score_cap = {info.score_cap!r}
answer_format = {q(info.answer_format)}
answer_file = {q(ANSWER_FILE)}
protocol = "one-shot"
prompt_version = {q(info.prompt_version)}
prompt_sha256 = {q(info.prompt_sha256)}
measured_worst_episode_s = {round(episode_s, 4)!r}

[verifier]
timeout_sec = {float(verifier_s)!r}
environment_mode = "separate"
network_mode = "no-network"

[verifier.env]
{env}
[agent]
timeout_sec = {float(agent_s)!r}
user = "agent"

[environment]
build_timeout_sec = 900.0
cpus = {resources.cpus}
memory_mb = {resources.memory_mb}
storage_mb = {resources.storage_mb}
"""


def write_task(info: TaskInfo, out: Path, wheel: Path | None, pins: str, resources: Resources,
               measure_episodes: int = 2, base_image: str | None = None) -> Path:
    """Write one task folder (replacing an old one) and return it."""
    version = metadata.version("wspbench")
    folder = out / info.slug
    if folder.exists():
        shutil.rmtree(folder)
    (folder / "environment").mkdir(parents=True)
    (folder / "tests").mkdir()
    episode_s = measure_grading(info, measure_episodes) if measure_episodes > 0 else 0.0
    verifier_s, agent_s = timeouts(info, episode_s, resources.cpus)
    (folder / "task.toml").write_text(task_toml(info, verifier_s, agent_s, resources, version, episode_s))
    (folder / "instruction.md").write_text(instruction(info))
    (folder / "environment" / "Dockerfile").write_text(dockerfile(wheel.name if wheel else None, version, base_image))
    (folder / "environment" / "constraints.txt").write_text(pins)
    if wheel:
        shutil.copyfile(wheel, folder / "environment" / wheel.name)
    _script(folder / "tests" / "test.sh", test_script(info))
    answer = info.reference_answer()
    if answer is not None:
        (folder / "solution").mkdir()
        _script(folder / "solution" / "solve.sh", solve_script(info, answer))
    return folder


def _script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


# --- the set --------------------------------------------------------------------------------------

def content_digest(folder: Path) -> str:
    """Harbor's task digest (its Packager): sha256 over `path\\0sha256(file)\\n` of the task's files."""
    names = ["task.toml", "instruction.md", "README.md", "trajectory.json"]
    files = [folder / name for name in names if (folder / name).is_file()]
    for sub in ("environment", "tests", "solution", "steps"):
        files += [p for p in (folder / sub).rglob("*") if p.is_file()] if (folder / sub).is_dir() else []
    files = [p for p in files if "__pycache__" not in p.parts and p.suffix != ".pyc"]
    outer = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(folder).as_posix()):
        outer.update(f"{path.relative_to(folder).as_posix()}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return f"sha256:{outer.hexdigest()}"


def write_dataset(out: Path, infos: list[TaskInfo], folders: list[Path], name: str) -> None:
    """registry.json (Harbor's local registry format), dataset.toml (its dataset manifest) and README.md."""
    version = metadata.version("wspbench")
    description = "wspbench: language models write the weights of small networks that play games."
    registry = [{"name": name, "version": version, "description": description,
                 "tasks": [{"name": f.name, "path": f.name} for f in folders], "metrics": [{"type": "mean"}]}]
    (out / "registry.json").write_text(json.dumps(registry, indent=2) + "\n")
    q = json.dumps
    tasks = "".join(f"\n[[tasks]]\nname = {q(i.harbor_name)}\ndigest = {q(content_digest(f))}\n"
                    for i, f in zip(infos, folders))
    (out / "dataset.toml").write_text(
        f"[dataset]\nname = {q(f'{HARBOR_ORG}/{name}')}\nversion = {q(version)}\ndescription = {q(description)}\n"
        f"keywords = [{', '.join(q(k) for k in KEYWORDS)}]\n{tasks}")
    rows = "".join(f"| `{i.harbor_name}` | {i.family} | {i.scoring_episodes} | "
                   f"{'yes' if (f / 'solution').is_dir() else 'no'} |\n" for i, f in zip(infos, folders))
    (out / "README.md").write_text(
        f"# {HARBOR_ORG}/{name}: weight-space programming tasks for Harbor\n\n{description}\n\n"
        "Each folder is a Harbor task. The agent writes its reply (reasoning and the answer block) to\n"
        f"`{ANSWER_FILE}`; `tests/test.sh` grades it with `wsp verify` and writes `/logs/verifier/reward.json`.\n\n"
        "```bash\nharbor lint */             # static checks\n"
        "harbor run -p original-breakout -a oracle   # the reference program through Harbor\n"
        f"harbor run --registry-path registry.json -d {name}@{version} -a <agent> -m <model>   # from this folder\n```\n\n"
        "| task | family | episodes | reference solution |\n|---|---|---|---|\n" + rows)


def export_harbor(out: Path, infos: list[TaskInfo], wheel: Path | None = None, install: str = "wheel",
                  resources: Resources = Resources(), measure_episodes: int = 2, name: str = "wspbench",
                  base_image: str | None = None, progress=None) -> list[Path]:
    """Write every task folder and the dataset files; returns the task folders.
    install "wheel" copies a wheel of this project into each environment (built with pip unless
    `wheel` is given); "pypi" installs the same version from PyPI at image build time. `base_image`
    replaces the default python:X.Y-slim (e.g. pinned to a digest)."""
    if install not in ("wheel", "pypi"):
        raise ValueError("install must be wheel or pypi")
    out.mkdir(parents=True, exist_ok=True)
    if install == "wheel" and wheel is None:
        wheel = build_wheel(out / ".wheel")
    pins = constraints(wheel_requirements(wheel) if wheel is not None and install == "wheel" else None)
    folders = []
    for info in infos:
        folders.append(write_task(info, out, wheel if install == "wheel" else None, pins, resources,
                                  measure_episodes, base_image))
        if progress:
            progress(info)
    shutil.rmtree(out / ".wheel", ignore_errors=True)
    write_dataset(out, infos, folders, name)
    return folders
