"""Validate `wsp export harbor` folders with the real `harbor` package, which needs Python >= 3.12 and so
lives in its own virtual environment:

    /root/.pyenv/versions/3.12.1/bin/python -m venv /tmp/harbor-venv
    /tmp/harbor-venv/bin/pip install harbor

    python benchmarks/harbor_lint.py [EXPORT_DIR] [--harbor-venv DIR]

Without EXPORT_DIR it exports original/breakout, a synthetic game with a reference program and SUPERBEAM
(3 episodes) into a temporary folder first. Checks, all with Harbor's own code:
- `harbor lint` (its default rules) reports nothing on any task folder;
- every folder loads as a Harbor `Task` whose verifier runs in its own image, built from the folder's
  `tests/` (Harbor's separate mode with the tests baked in, so they are never uploaded to the agent);
- registry.json loads as a Harbor registry; dataset.toml as a dataset manifest;
- `harbor sync`, run on a copy, leaves dataset.toml's task digests unchanged (ours equal Harbor's).
Exit status 0 when everything passes, 1 otherwise; with no harbor venv (WSP_HARBOR_VENV, default
/tmp/harbor-venv) it prints "SKIP: ..." and exits 0.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

DEFAULT_VENV = Path(os.environ.get("WSP_HARBOR_VENV", "/tmp/harbor-venv"))
LOAD = """
import sys
from pathlib import Path
from harbor.models.task.task import Task
from harbor.models.registry import Registry
from harbor.models.dataset.manifest import DatasetManifest
from harbor.models.task.verifier_mode import resolve_verifier_environment_definition
root = Path(sys.argv[1])
for folder in sys.argv[2:]:
    task = Task(Path(folder))
    image = resolve_verifier_environment_definition(task.config, task.paths)
    print("task", task.config.task.name, "verifier", task.config.verifier.timeout_sec, "s, image built from",
          image.directory.name + "/" if image else "the agent's container",
          "(tests baked in)" if image and image.bundled_tests else "")
    if image is None or image.directory.name != "tests" or not image.bundled_tests:
        sys.exit(f"{folder}: the verifier does not run in its own image built from tests/")
registry = Registry.from_path(root / "registry.json")
print("registry", [(d.name, len(d.tasks)) for d in registry.datasets])
manifest = DatasetManifest.from_toml_file(root / "dataset.toml")
print("dataset", manifest.dataset.name, len(manifest.tasks), "tasks")
"""


def harbor_bin(venv: Path) -> Path | None:
    binary = venv / "bin" / "harbor"
    return binary if binary.is_file() else None


def default_export(folder: Path) -> Path:
    from wspbench.export.harbor import export_harbor, exported
    from wspbench.tasks import select

    synth = next((t.id for t in select("synth/*") if t.offline_answer("reference") is not None), None)
    selector = ",".join(t for t in ("original/breakout", synth, "superbeam") if t)
    export_harbor(folder, exported(select(selector), 3))
    return folder


def digests(dataset_toml: Path) -> dict[str, str]:
    return {t["name"]: t["digest"] for t in tomllib.loads(dataset_toml.read_text()).get("tasks", [])}


def check(export_dir: Path, venv: Path) -> list[str]:
    """Problems found (empty when the export passes)."""
    harbor = harbor_bin(venv)
    folders = sorted(p for p in export_dir.iterdir() if (p / "task.toml").is_file())
    problems = [] if folders else [f"no task folders in {export_dir}"]
    lint = subprocess.run([str(harbor), "lint", *map(str, folders)], check=False, capture_output=True, text=True)
    print(f"harbor lint on {len(folders)} folders: exit {lint.returncode}")
    if lint.returncode != 0:
        problems.append(f"harbor lint:\n{lint.stdout}{lint.stderr}")
    load = subprocess.run(
        [str(venv / "bin" / "python"), "-c", LOAD, str(export_dir), *map(str, folders)],
        check=False,
        capture_output=True,
        text=True,
    )
    print(load.stdout.strip())
    if load.returncode != 0:
        problems.append(f"loading with harbor's models failed:\n{load.stderr[-2000:]}")
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "export"
        shutil.copytree(export_dir, copy)
        sync = subprocess.run(
            [str(harbor), "sync", str(copy)],
            check=False,
            capture_output=True,
            text=True,
            env={**os.environ, "COLUMNS": "200"},
        )
        if sync.returncode != 0:
            problems.append(f"harbor sync failed:\n{sync.stdout}{sync.stderr}")
        elif digests(copy / "dataset.toml") != digests(export_dir / "dataset.toml"):
            problems.append("harbor sync changed task digests: ours differ from Harbor's")
        else:
            print(f"harbor sync: {len(digests(copy / 'dataset.toml'))} digests unchanged")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export_dir", nargs="?", type=Path)
    parser.add_argument("--harbor-venv", type=Path, default=DEFAULT_VENV)
    args = parser.parse_args()
    if harbor_bin(args.harbor_venv) is None:
        print(f"SKIP: no harbor in {args.harbor_venv}; create it with a Python >= 3.12 venv and `pip install harbor`")
        return 0
    version = subprocess.run(
        [str(harbor_bin(args.harbor_venv)), "--version"], check=False, capture_output=True, text=True
    )
    print(f"harbor {version.stdout.strip()}")
    with tempfile.TemporaryDirectory() as scratch:
        export_dir = args.export_dir or default_export(Path(scratch) / "export")
        problems = check(export_dir, args.harbor_venv)
    for problem in problems:
        print(f"FAIL: {problem}")
    print("OK: the exported folders pass Harbor's checks" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
