"""The run directory: everything a run produced, written so that a killed run resumes without losing or
repeating graded work.

    DIR/manifest.json             model, endpoint (no credentials), key variable NAME, protocol, rounds,
                                  episodes, prompt versions, package versions, seeds, task ids
    DIR/tasks/<id>.json           one complete record per finished task (`original__breakout.json`)
    DIR/tasks/<id>.partial.json   the record of a task in progress, rewritten after every round
    DIR/attempts/                 partial records of interrupted tasks and records of failed ones, kept
                                  when the task is run again (no paid-for reply is thrown away)
    DIR/summary.json, summary.md  the table of results

Files are replaced atomically (write, then rename). Re-running with the same directory skips tasks whose
record has status "ok", re-runs the rest from their start, and refuses settings that would change results.
"""

from __future__ import annotations

import json
import os
import platform
import queue
import threading
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Callable

from wspbench.harness import minatar_family, superbeam_family
from wspbench.harness.prompts import MINATAR_PROMPT_VERSION
from wspbench.harness.protocols import run_task
from wspbench.harness.summary import summary_markdown, summary_rows

MANIFEST_FORMAT = "wspbench.harness.run/1"
RESULT_SETTINGS = ("model", "kind", "endpoint", "request_params", "protocol", "rounds", "episodes",
                   "train_episodes", "engine", "prompt_versions")
PACKAGES = ("wspbench", "MinAtar", "numpy", "openai")


class RunDirError(ValueError):
    """The directory holds a run that this command cannot continue."""


def slug(task_id: str) -> str:
    return task_id.replace("/", "__")


def build_manifest(client_info: dict, protocol: str, rounds: int, episodes: int, train_episodes: int,
                   engine: str, task_ids: list[str]) -> dict:
    """The run's settings; everything in RESULT_SETTINGS must match for a run to be resumed."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    seeds = {"minatar": {"scoring_episodes": [0, episodes - 1],
                         "training_episodes": [minatar_family.TRAIN_EPISODE_OFFSET,
                                               minatar_family.TRAIN_EPISODE_OFFSET + train_episodes - 1],
                         "episode_seed": "game 1729 + e, actions RandomState(7919 + e)"}}
    if superbeam_family.TASK_ID in task_ids:
        seeds["superbeam"] = superbeam_family.SuperbeamHarnessTask().seeds()
    return {"format": MANIFEST_FORMAT, **client_info, "protocol": protocol,
            "rounds": rounds if protocol == "feedback" else 1, "episodes": episodes,
            "train_episodes": train_episodes if protocol == "feedback" else 0, "engine": engine,
            "prompt_versions": {"minatar": MINATAR_PROMPT_VERSION, "superbeam": superbeam_family.PROMPT_VERSION},
            "packages": {**versions, "python": platform.python_version()}, "seeds": seeds,
            "tasks": list(task_ids), "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.tasks = self.path / "tasks"

    def open(self, manifest: dict) -> dict:
        """Create the directory, or check that it holds the same run and add new task ids to it."""
        existing = self.manifest()
        if existing is not None:
            for key in RESULT_SETTINGS:
                if existing.get(key) != manifest.get(key):
                    raise RunDirError(f"{self.path} holds a run with {key}={existing.get(key)!r}, not "
                                      f"{manifest.get(key)!r}; choose another --out to start a new run")
            added = [t for t in manifest["tasks"] if t not in existing["tasks"]]
            manifest = {**existing, "tasks": existing["tasks"] + added}
        self.tasks.mkdir(parents=True, exist_ok=True)
        _write_json(self.path / "manifest.json", manifest)
        for partial in self.tasks.glob("*.partial.json"):  # left by a killed run: keep it aside
            self._set_aside(partial)
        return manifest

    def manifest(self) -> dict | None:
        path = self.path / "manifest.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def record(self, task_id: str) -> dict | None:
        path = self.tasks / f"{slug(task_id)}.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def finished(self, task_id: str) -> bool:
        record = self.record(task_id)
        return record is not None and record.get("status") == "ok"

    def save_partial(self, record: dict) -> None:
        _write_json(self.tasks / f"{slug(record['task'])}.partial.json", record)

    def save(self, record: dict) -> None:
        final = self.tasks / f"{slug(record['task'])}.json"
        if final.is_file():  # a failed earlier try: keep it
            self._set_aside(final)
        _write_json(final, record)
        (self.tasks / f"{slug(record['task'])}.partial.json").unlink(missing_ok=True)

    def records(self) -> list[dict]:
        manifest = self.manifest() or {"tasks": []}
        return [r for r in (self.record(t) for t in manifest["tasks"]) if r is not None]

    def write_summary(self) -> list[dict]:
        records = self.records()
        rows = summary_rows(records, self.manifest()["tasks"])
        _write_json(self.path / "summary.json", {"manifest": self.manifest(), "rows": rows})
        (self.path / "summary.md").write_text(summary_markdown(self.manifest(), rows))
        return rows

    def summary(self) -> tuple[dict, list[dict]]:
        """The manifest and the summary rows, read from the records (for `runs show/compare`)."""
        manifest = self.manifest()
        if manifest is None:
            raise RunDirError(f"{self.path} is not a run directory (no manifest.json)")
        return manifest, summary_rows(self.records(), manifest["tasks"])

    def _set_aside(self, path: Path) -> None:
        aside = self.path / "attempts"
        aside.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        name = path.name.removesuffix(".json")
        target = aside / f"{name}.{stamp}.json"
        count = 1
        while target.exists():
            count += 1
            target = aside / f"{name}.{stamp}-{count}.json"
        os.replace(path, target)


class Display:
    """What a batch reports while it runs (the CLI shows it with rich; tests use this silent one)."""

    def status(self, task_id: str, text: str) -> None:
        pass

    def done(self, task_id: str, record: dict) -> None:
        pass


def run_batch(run_dir: RunDir, task_ids: list[str], make_task: Callable, client, protocol: str, rounds: int,
              concurrency: int = 1, display: Display | None = None) -> list[str]:
    """Run every task of `task_ids` without an "ok" record, `concurrency` at a time; returns the ids run.

    Workers are daemon threads, so Ctrl-C ends the process at once; the partial records stay on disk and
    the next run sets them aside and starts those tasks again."""
    display = display or Display()
    todo = [t for t in task_ids if not run_dir.finished(t)]
    work: queue.Queue[str] = queue.Queue()
    for task_id in todo:
        work.put(task_id)

    def worker() -> None:
        while True:
            try:
                task_id = work.get_nowait()
            except queue.Empty:
                return
            record = run_task(task_id, make_task, client, protocol, rounds,
                              status=lambda text, t=task_id: display.status(t, text),
                              on_update=run_dir.save_partial)
            run_dir.save(record)
            display.done(task_id, record)

    threads = [threading.Thread(target=worker, daemon=True, name=f"wsp-run-{i}")
               for i in range(max(1, min(concurrency, len(todo))))]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():
            thread.join(0.2)
    run_dir.write_summary()
    return todo


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, default=_jsonable))
    os.replace(tmp, path)


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
