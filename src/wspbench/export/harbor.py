"""Harbor task folders: one per task, plus `registry.json` and `dataset.toml` for the exported set.

    OUT/<slug>/task.toml               name wspbench/<slug>, timeouts from harbor_timeouts.json (or --measure)
    OUT/<slug>/instruction.md          the task's one-shot prompt + where to hand in the answer
    OUT/<slug>/environment/Dockerfile  the agent's image: Python and numpy, nothing of this project
    OUT/<slug>/tests/Dockerfile        the verifier's own image: this project's wheel + pinned dependencies
    OUT/<slug>/tests/constraints.txt, wspbench-<version>-py3-none-any.whl, test.sh
    OUT/<slug>/solution/solve.sh       the reference program, handed in as an agent would
    OUT/registry.json, OUT/dataset.toml, OUT/README.md

OUT must be empty or absent; with `force`, an earlier export there (task folders with a task.toml and the
three set files, nothing else) is removed first, so OUT holds exactly the exported tasks.

Why it looks like this: the agent must not see the reference programs, the scripted players or the
grader, and nothing the agent writes may run inside the verifier. So the agent's image holds Python
only and has no network (`[environment] network_mode = "no-network"`); the verifier runs in Harbor's
separate mode in an image built from `tests/` (Harbor then builds that folder and does not upload it), and
sees only the answer file the agent declared as an artifact
(/app/answer.md). `tests/test.sh` runs Python isolated (`-I`, a fresh empty folder, a clean
environment). Exports are reproducible: the wheel is normalised (sorted entries, fixed dates and
permissions), the pins come from a committed lock file (harbor_constraints.txt, not this machine's venv)
and the timeouts from a committed table. See docs/exports.md.

Everything is read from the registry's `Task` (src/wspbench/tasks/spec.py): its public id, game and description
(`Task.public`: a reading task's answer is never in a name, a description, a keyword or the metadata), prompt,
answer format, held-out episodes and offline reference answer; each file carries the suite.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from importlib import metadata
from pathlib import Path

from wspbench.evaluation import ONE_WORKER
from wspbench.files import clear_earlier, write_atomic
from wspbench.protocols import OneShot
from wspbench.tasks import PRIVATE_SETS, grading_file
from wspbench.tasks import suite as registry_suite
from wspbench.tasks.spec import Public, Task, prompt_hash

HARBOR_ORG = "wspbench"
ANSWER_FILE = "/app/answer.md"
LICENSE = "GPL-3.0-or-later"
SCHEMA_VERSION = "1.4"
MIN_VERIFIER_S = 300
STARTUP_S = 120  # container start, imports, process pool
SAFETY = 2.0  # measured time is on the measuring machine; Harbor's may be slower
AGENT_TIMEOUT_S = 1800  # the model's own time to think and write the answer (it cannot grade in its image)
IMAGE_SETS = "/opt/wspbench/sets"  # where a private set's task finds its set in the verifier's image
KEYWORDS = ["weight-space-programming", "neural-networks", "games", "reinforcement-learning"]
TIMEOUTS_TABLE = Path(__file__).with_name("harbor_timeouts.json")
LOCK_FILE = Path(__file__).with_name("harbor_constraints.txt")  # the verifier image's pins (lock_from_venv)
LOCK_PYTHON = "3.11"  # the Python the lock's pins were resolved on: the default base images use it
SET_FILES = ("registry.json", "dataset.toml", "README.md")
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip file can hold: the wheel carries no build time
SOURCE_DATE_EPOCH = "315532800"  # the same date, for the build tools


@dataclass(frozen=True)
class Resources:
    cpus: int = 4
    memory_mb: int = 4096
    storage_mb: int = 10240


# --- one exported task ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Exported:
    """A registry task as exported: the task and its held-out episodes (the first `count` the export asks for)."""

    task: Task
    episodes: tuple[int, ...]

    @property
    def harbor_name(self) -> str:
        return f"{HARBOR_ORG}/{self.public.slug}"

    @cached_property
    def public(self) -> Public:
        return self.task.public()

    @cached_property
    def messages(self) -> list[dict]:
        """The one-shot conversation opening for the exported episodes: a system and a user message that
        state the episode count the verifier grades (and any returns they quote are over those episodes)."""
        return self.task.messages(OneShot(episodes=len(self.episodes)))

    @property
    def prompt_sha256(self) -> str:
        return prompt_hash(self.messages)

    def verifier_env(self) -> dict[str, str]:
        """The variables of tests/test.sh (the task id is on its command line); a private set's task also names
        the copy of its set in the verifier's image (`write_task`)."""
        found = {"WEIGHT_SPACE_EPISODES": str(len(self.episodes))}
        if self.task.private_set is not None:
            found[PRIVATE_SETS] = f"{IMAGE_SETS}/{self.task.private_set.name}"
        return found

    def description(self) -> str:
        shown, network = self.public, self.task.network
        game = f" for {shown.game}" if shown.game else ""
        return (
            f"Weight-space programming, {self.task.family} task on the {network.describe()} network{game}: "
            f"{shown.description} Scored by {self.task.scoring_rule(len(self.episodes))}."
        )


def exported(tasks: list[Task], count: int) -> list[Exported]:
    """The tasks with their first `count` held-out episodes (a task with fewer gives all of its own)."""
    return [Exported(task, tuple(task.scoring_episodes(count))) for task in tasks]


# --- what a task costs to grade -------------------------------------------------------------------


def measure_grading(task: Task, episodes: int = 2) -> float:
    """Seconds one scoring episode can take in the worst case (every episode at its step limit),
    measured on this machine with one process by grading the reference (or zero) answer, after one
    episode graded first so that loading and compiling the game is not counted."""
    answer = task.offline_answer("reference") or task.offline_answer("zero") or ""
    task.grade(answer, task.scoring_episodes(1), ONE_WORKER)
    score = task.grade(answer, task.scoring_episodes(episodes), ONE_WORKER)
    steps = max(1.0, len(score.episodes) * score.mean_length)
    return max(score.seconds, 1e-4) / steps * task.facts.max_steps


def measured_table(path: Path = TIMEOUTS_TABLE) -> dict[str, float]:
    """The committed worst-episode seconds per task id (benchmarks/harbor_timeouts.py writes them)."""
    return {task: float(seconds) for task, seconds in json.loads(path.read_text())["worst_episode_s"].items()}


def episode_seconds(item: Exported, table: dict[str, float] | None, measure_episodes: int = 2) -> float:
    """The task's worst-episode seconds: measured now when `table` is None, else the table's value
    (a task the table does not know yet gets the table's largest value, so its timeout is not too short)."""
    if table is None:
        return measure_grading(item.task, measure_episodes)
    return table.get(item.task.id, max(table.values(), default=1.0))


def timeouts(item: Exported, episode_s: float, cpus: int) -> tuple[int, int]:
    """(verifier, agent) timeouts in seconds, rounded up to whole minutes."""
    worst = len(item.episodes) * episode_s / max(1, cpus)
    verifier = max(MIN_VERIFIER_S, 60 * math.ceil((SAFETY * worst + STARTUP_S) / 60))
    return verifier, AGENT_TIMEOUT_S


# --- the verifier's wheel and pins ----------------------------------------------------------------


def source_tree() -> Path | None:
    """The project folder (with pyproject.toml) this wspbench runs from, if it is a source checkout."""
    root = Path(__file__).resolve().parents[3]  # src/wspbench/export/harbor.py
    return root if (root / "pyproject.toml").is_file() and (root / "src" / "wspbench").is_dir() else None


def _clean_copy(root: Path, target: Path) -> None:
    """Copy the files a wheel is built from, without caches and old build output (which setuptools would
    otherwise pick up from an in-tree build/ folder)."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*")
    for name in ("pyproject.toml", "README.md", "LICENSE", "COPYING", "setup.cfg", "setup.py", "MANIFEST.in"):
        if (root / name).is_file():
            shutil.copy2(root / name, target / name)
    shutil.copytree(root / "src", target / "src", ignore=skip)


def build_wheel(folder: Path) -> Path:
    """Build this project's wheel (no dependencies) into `folder` with pip, from a clean copy of the
    source, and normalise it so that two builds of the same source are byte-identical."""
    root = source_tree()
    if root is None:
        raise RuntimeError("wspbench is not running from a source checkout; pass --wheel or --install pypi")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="wsp-wheel-") as scratch:
        source, built = Path(scratch) / "source", Path(scratch) / "built"
        source.mkdir()
        _clean_copy(root, source)
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(built), str(source)],
            check=False,
            capture_output=True,
            text=True,
            env={**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH, "PYTHONHASHSEED": "0"},
        )
        wheels = sorted(built.glob("wspbench-*.whl"))
        if done.returncode != 0 or not wheels:
            raise RuntimeError(f"building the wspbench wheel failed: {done.stderr.strip()[-400:]}")
        return normalize_wheel(wheels[-1], folder / wheels[-1].name, keep=grading_file)


def normalize_wheel(wheel: Path, target: Path, keep=None) -> Path:
    """Rewrite a wheel with sorted entries (the .dist-info folder last, RECORD at the very end, as the
    wheel format asks), one fixed date, fixed permissions and fixed compression. The files, and so
    RECORD's hashes, are unchanged; `keep(name)` False leaves a file out (and its line out of RECORD)."""
    write_atomic(target, normalized_wheel(wheel, keep))
    return target


@lru_cache(maxsize=1)  # the tasks come in registry order: every writing task's wheel in a row
def verifier_wheel(wheel: Path, stamp: tuple[int, int], networks: tuple[str, ...]) -> bytes:
    """A task's verifier wheel: `wheel` (as it is at `stamp`: its mtime and size) with the one reading network its
    grader loads, if any. Made once for a run of tasks that load the same networks (0.3 s each; every task but a
    repair task loads none)."""
    return normalized_wheel(wheel, partial(grading_file, networks=networks))


def normalized_wheel(wheel: Path, keep=None) -> bytes:
    """The bytes `normalize_wheel` writes."""
    with zipfile.ZipFile(wheel) as archive:
        entries = [(info.filename, archive.read(info)) for info in archive.infolist() if not info.is_dir()]
    if keep is not None:
        entries = [(name, data) for name, data in entries if keep(name) or name.endswith(".dist-info/RECORD")]
        entries = [
            (name, _record_of(data, keep) if name.endswith(".dist-info/RECORD") else data) for name, data in entries
        ]

    def order(entry: tuple[str, bytes]) -> tuple[bool, bool, str]:
        top = entry[0].split("/", 1)[0]
        return top.endswith(".dist-info"), entry[0].endswith(".dist-info/RECORD"), entry[0]

    wheel = io.BytesIO()
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in sorted(entries, key=order):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.create_system = 3  # unix, so that the permissions below are read
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data, compresslevel=9)
    return wheel.getvalue()


def _record_of(record: bytes, keep) -> bytes:
    """RECORD without the lines of the files `keep` leaves out (its path is the first CSV field)."""
    lines = record.decode().splitlines(keepends=True)
    return "".join(line for line in lines if keep(line.split(",", 1)[0])).encode()


def constraints() -> str:
    """The verifier image's pins: the committed lock file, the same on every machine (the local venv's
    versions would make two exports differ)."""
    return LOCK_FILE.read_text()


def lock_from_venv(top: list[str] | None = None) -> str:
    """Exact installed versions of the dependency closure of `top` (default: wspbench's requirements): how
    harbor_constraints.txt is made, in a venv with wspbench installed and no extras (docs/exports.md)."""
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


def pinned(pins: str, name: str) -> str | None:
    """`name==version` from a constraints text, or None."""
    return next((line for line in pins.splitlines() if line.lower().startswith(f"{name.lower()}==")), None)


def default_base_image() -> str:
    """The Python the lock was made for (not the exporting one, so that every machine writes the same)."""
    return f"python:{LOCK_PYTHON}-slim"


def agent_dockerfile(pins: str, base_image: str | None = None) -> str:
    """The agent's image: Python, numpy (pinned) and an empty /app owned by the non-root user `agent`.
    Nothing of this project is in it: no reference answers, no scripted players, no grader."""
    numpy = pinned(pins, "numpy") or "numpy"
    return (
        f"# Agent environment: Python and numpy. Write the answer to {ANSWER_FILE}.\n"
        f"FROM {base_image or default_base_image()}\n"
        f"RUN pip install --no-cache-dir --only-binary=:all: {numpy} \\\n"
        f"    && useradd --create-home agent && mkdir -p /app && chown agent /app\n"
        f"WORKDIR /app\n"
    )


def verifier_dockerfile(
    wheel_name: str | None, version: str, base_image: str | None = None, private_set: bool = False
) -> str:
    """The verifier's image, built by Harbor from tests/: this project and its pinned dependencies are
    installed at build time (the only time it uses the network), and test.sh is baked in as /tests/test.sh;
    with `private_set`, tests/sets/ (the task's private set) as IMAGE_SETS."""
    if wheel_name:
        install = (
            f"COPY {wheel_name} constraints.txt /opt/wspbench/\n"
            f"RUN pip install --no-cache-dir --only-binary=:all: -c /opt/wspbench/constraints.txt "
            f"/opt/wspbench/{wheel_name}\n"
        )
    else:
        install = (
            "COPY constraints.txt /opt/wspbench/\n"
            f"RUN pip install --no-cache-dir --only-binary=:all: -c /opt/wspbench/constraints.txt "
            f"wspbench=={version}\n"
        )
    return (
        f"# Verifier environment (Harbor's separate mode): grading runs offline with what is installed here.\n"
        f"FROM {base_image or default_base_image()}\n{install}"
        + (f"COPY sets {IMAGE_SETS}\n" if private_set else "")
        + "COPY test.sh /tests/test.sh\n"
        "RUN chmod 755 /tests/test.sh\n"
    )


# --- the files of one task ------------------------------------------------------------------------


def instruction(item: Exported) -> str:
    block = f"```{item.task.answer_format}"
    system, user = (message["content"] for message in item.messages)
    first, last = item.episodes[0], item.episodes[-1]
    return (
        f"{system}\n\n{user.rstrip()}\n\n---\n\n## Handing in your answer\n\n"
        f"Write your complete final reply (your reasoning, then the {block} block) to the file "
        f"`{ANSWER_FILE}`. Only that file is graded, as a reply: the grader reads the last {block} "
        f"block in it and scores it by {item.task.scoring_rule(len(item.episodes))} (held-out episodes "
        f"{first}..{last}). Nothing else you do in this environment is scored.\n"
    )


def test_script(item: Exported) -> str:
    exports = "".join(f'export {key}="${{{key}:-{value}}}"\n' for key, value in item.verifier_env().items())
    passed = "".join(f'  {key}="${key}" \\\n' for key in item.verifier_env())
    return f"""#!/bin/bash
# Verifier of {item.harbor_name}: grades the agent's answer and writes $LOGS/verifier/reward.json
# (numbers only; reward = normalised score in [0, 1]) and the full result to details.json.
# The answer is {ANSWER_FILE} (the agent's artifact) or else $LOGS/agent/trajectory.json.
# Python runs isolated: -I keeps the current folder, PYTHONPATH and the user's site-packages off
# sys.path, it starts in a fresh empty folder with only the variables below, so nothing the agent
# wrote can be imported. Exit status: 0 graded, 1 answer rejected, 2 bad WEIGHT_SPACE_* settings,
# 3 no reward could be written (one line on stderr says why).
# WSP_LOGS_DIR and WSP_ANSWER_FILE override the paths, for running this script outside Harbor.
set -u
LOGS="${{WSP_LOGS_DIR:-/logs}}"
ANSWER_FILE="${{WSP_ANSWER_FILE:-{ANSWER_FILE}}}"
case "$LOGS" in /*) ;; *) LOGS="$PWD/$LOGS" ;; esac
case "$ANSWER_FILE" in /*) ;; *) ANSWER_FILE="$PWD/$ANSWER_FILE" ;; esac
{exports}WORK="$(mktemp -d)" || WORK=""
cd "${{WORK:-/}}" || exit 3
env -i PATH="$PATH" HOME="${{WORK:-/}}" \\
{passed}  python -I -m wspbench.verifier {item.public.id} "$ANSWER_FILE" "$LOGS"
status=$?
cd / && [ -n "$WORK" ] && rm -rf "$WORK"
cat "$LOGS/verifier/reward.json" 2>/dev/null && echo
exit $status
"""


def solve_script(item: Exported, answer: str) -> str:
    delimiter = "WSP_REFERENCE_ANSWER"
    while delimiter in answer.splitlines():
        delimiter += "_"
    return f"""#!/bin/bash
# Oracle for {item.harbor_name}: hands in the shipped reference program as an agent would, by
# writing the reply to {ANSWER_FILE} (WSP_ANSWER_FILE overrides the path).
set -euo pipefail
ANSWER_FILE="${{WSP_ANSWER_FILE:-{ANSWER_FILE}}}"
mkdir -p "$(dirname "$ANSWER_FILE")"
cat > "$ANSWER_FILE" <<'{delimiter}'
{answer.rstrip(chr(10))}
{delimiter}
"""


def task_toml(
    item: Exported, verifier_s: int, agent_s: int, resources: Resources, version: str, episode_s: float, suite: dict
) -> str:
    q = json.dumps  # a JSON string is a valid TOML basic string
    task = item.task
    keywords = KEYWORDS + [task.family] + ([item.public.game] if item.public.game else [])
    env = "".join(f"{key} = {q(value)}\n" for key, value in item.verifier_env().items())
    limits = f"cpus = {resources.cpus}\nmemory_mb = {resources.memory_mb}\nstorage_mb = {resources.storage_mb}\n"
    suite_table = ", ".join(f"{key} = {q(value)}" for key, value in suite.items())
    return f"""schema_version = {q(SCHEMA_VERSION)}
artifacts = [{q(ANSWER_FILE)}]

[task]
name = {q(item.harbor_name)}
version = {q(version)}
description = {q(item.description())}
keywords = [{", ".join(q(k) for k in dict.fromkeys(keywords))}]

[metadata]
category = "weight-space-programming"
license = {q(LICENSE)}
wspbench_task = {q(item.public.id)}
family = {q(task.family)}
game = {q(item.public.game)}
episodes = {len(item.episodes)}
score_cap = {float(task.facts.score_cap)!r}
answer_format = {q(task.answer_format)}
answer_file = {q(ANSWER_FILE)}
protocol = {q(OneShot.name)}
prompt_version = {q(task.prompt_version)}
prompt_sha256 = {q(item.prompt_sha256)}
measured_worst_episode_s = {round(episode_s, 4)!r}
suite = {{ {suite_table} }}

[verifier]
timeout_sec = {float(verifier_s)!r}
environment_mode = "separate"
network_mode = "no-network"

[verifier.env]
{env}
[verifier.environment]
build_timeout_sec = 900.0
network_mode = "no-network"
{limits}
[agent]
timeout_sec = {float(agent_s)!r}
user = "agent"

[environment]
build_timeout_sec = 900.0
network_mode = "no-network"
{limits}"""


def write_task(
    item: Exported,
    out: Path,
    wheel: Path | None,
    pins: str,
    resources: Resources,
    table: dict[str, float] | None,
    suite: dict,
    measure_episodes: int = 2,
    base_image: str | None = None,
) -> Path:
    """Write one task folder (replacing an old one) and return it. `table` None: measure the timeouts."""
    version = metadata.version("wspbench")
    folder = out / item.public.slug
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    (folder / "environment").mkdir(parents=True)
    (folder / "tests").mkdir()
    episode_s = episode_seconds(item, table, measure_episodes)
    verifier_s, agent_s = timeouts(item, episode_s, resources.cpus)
    _write(folder / "task.toml", task_toml(item, verifier_s, agent_s, resources, version, episode_s, suite))
    _write(folder / "instruction.md", instruction(item))
    _write(folder / "environment" / "Dockerfile", agent_dockerfile(pins, base_image))
    private = item.task.private_set
    dockerfile = verifier_dockerfile(wheel.name if wheel else None, version, base_image, private is not None)
    _write(folder / "tests" / "Dockerfile", dockerfile)
    if private is not None:  # the grader's copy of the set: the verifier's image only, never the agent's
        shutil.copytree(private, folder / "tests" / "sets" / private.name)
    _write(folder / "tests" / "constraints.txt", pins)
    if wheel:  # with the one reading network its grader loads, if any (all of them would be ~10 MB per task)
        stat = wheel.stat()
        write_atomic(
            folder / "tests" / wheel.name,
            verifier_wheel(wheel, (stat.st_mtime_ns, stat.st_size), item.task.graded_networks),
        )
        (folder / "tests" / wheel.name).chmod(0o644)
    _write(folder / "tests" / "test.sh", test_script(item), 0o755)
    answer = item.task.offline_answer("reference")
    if answer is not None:
        (folder / "solution").mkdir()
        _write(folder / "solution" / "solve.sh", solve_script(item, answer), 0o755)
    return folder


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.write_text(text)
    path.chmod(mode)


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
        outer.update(
            f"{path.relative_to(folder).as_posix()}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode()
        )
    return f"sha256:{outer.hexdigest()}"


def write_dataset(out: Path, items: list[Exported], folders: list[Path], name: str, suite: dict) -> None:
    """registry.json (Harbor's local registry format), dataset.toml (its dataset manifest) and README.md."""
    version = metadata.version("wspbench")
    description = "wspbench: language models write the weights of small networks that play games."
    registry = [
        {
            "name": name,
            "version": version,
            "description": description,
            "suite": suite,
            "tasks": [{"name": f.name, "path": f.name} for f in folders],
            "metrics": [{"type": "mean"}],
        }
    ]
    _write(out / "registry.json", json.dumps(registry, indent=2) + "\n")
    q = json.dumps
    tasks = "".join(
        f"\n[[tasks]]\nname = {q(i.harbor_name)}\ndigest = {q(content_digest(f))}\n"
        for i, f in zip(items, folders, strict=True)
    )
    suite_table = "".join(f"{key} = {q(value)}\n" for key, value in suite.items())
    _write(
        out / "dataset.toml",
        f"[dataset]\nname = {q(f'{HARBOR_ORG}/{name}')}\nversion = {q(version)}\ndescription = {q(description)}\n"
        f"keywords = [{', '.join(q(k) for k in KEYWORDS)}]\n\n[dataset.metadata.suite]\n{suite_table}{tasks}",
    )
    oracle = next((f.name for f in folders if (f / "solution").is_dir()), None)
    oracle_line = f"harbor run -p {oracle} -a oracle   # the reference program through Harbor\n" if oracle else ""
    rows = "".join(
        f"| `{i.harbor_name}` | {i.task.family} | {len(i.episodes)} | "
        f"{'yes' if (f / 'solution').is_dir() else 'no'} |\n"
        for i, f in zip(items, folders, strict=True)
    )
    _write(
        out / "README.md",
        f"# {HARBOR_ORG}/{name}: weight-space programming tasks for Harbor\n\n{description}\n"
        f"Licence: {LICENSE}. Suite {suite['name']} version {suite['version']}, digest {suite['digest']}.\n\n"
        "Each folder is a Harbor task. The agent writes its reply (reasoning and the answer block) to\n"
        f"`{ANSWER_FILE}`; `tests/test.sh` grades it in the verifier's own image (built from `tests/`)\n"
        "and writes `/logs/verifier/reward.json`. The agent's image holds Python and numpy only.\n\n"
        "```bash\nharbor lint */             # static checks\n"
        f"{oracle_line}"
        f"harbor run --registry-path registry.json -d {name}@{version} -a <agent> -m <model>   # from this folder\n"
        "```\n\n| task | family | episodes | reference solution |\n|---|---|---|---|\n" + rows,
    )


def earlier_export(entry: Path) -> bool:
    """An entry of an earlier export: a task folder (with its task.toml) or one of the set's files."""
    return (entry.name in SET_FILES and entry.is_file()) or (entry.is_dir() and (entry / "task.toml").is_file())


def export_harbor(
    out: Path,
    items: list[Exported],
    wheel: Path | None = None,
    install: str = "wheel",
    resources: Resources = Resources(),
    measure: bool = False,
    measure_episodes: int = 2,
    name: str = "wspbench",
    base_image: str | None = None,
    progress=None,
    force: bool = False,
) -> list[Path]:
    """Write every task folder and the dataset files; returns the task folders.
    install "wheel" copies a wheel of this project into each verifier image (built with pip unless
    `wheel` is given); "pypi" installs the same version from PyPI when the image is built. Timeouts
    come from harbor_timeouts.json unless `measure`. `base_image` replaces the default python:3.11-slim
    (the lock's Python; e.g. pinned to a digest). A non-empty `out` is `files.NotEmpty` unless `force` and it holds
    an earlier export only, which is then removed."""
    if install not in ("wheel", "pypi"):
        raise ValueError("install must be wheel or pypi")
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} exists and is not a folder")
    clear_earlier(out, force, earlier_export, "export")
    out.mkdir(parents=True, exist_ok=True)
    table = None if measure else measured_table()
    suite = registry_suite().to_json()
    with tempfile.TemporaryDirectory(prefix="wsp-export-") as scratch:
        if install == "wheel" and wheel is None:
            wheel = build_wheel(Path(scratch))
        pins = constraints()
        folders = []
        for item in items:
            folders.append(
                write_task(
                    item,
                    out,
                    wheel if install == "wheel" else None,
                    pins,
                    resources,
                    table,
                    suite,
                    measure_episodes,
                    base_image,
                )
            )
            if progress:
                progress(item)
    write_dataset(out, items, folders, name, suite)
    return folders
