"""The run directory: everything a run produced, written so that a killed run resumes without losing or
repeating graded work.

    DIR/manifest.json             model, endpoint (no credentials), key variable NAME, protocol, rounds,
                                  episodes, prompt versions, package versions, seeds, task ids
    DIR/tasks/<id>.json           one complete record per finished task (`original__breakout.json`)
    DIR/tasks/<id>.partial.json   the record of a task in progress, rewritten after every round
    DIR/attempts/                 partial records of interrupted tasks and records of failed ones, kept
                                  when the task is run again (no paid-for reply is thrown away)
    DIR/summary.json, summary.md  the table of results
    DIR/.lock                     held (flock) by the one `wsp run` using the directory

Files are replaced atomically (write, then rename). Re-running with the same directory skips tasks whose
record has status "ok", re-runs the rest from their start (replaying the replies an earlier attempt
already paid for), and refuses settings that would change results. A second run on a directory in use
is refused (RunDirLocked). A file that cannot be written stops the run (RunWriteError, naming the path)
with no temporary file left and no finished record lost. A record or manifest that cannot be read is
renamed to `*.corrupt`, named in `notes`, and its task runs again.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import queue
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from wspbench.harness import minatar_family, superbeam_family
from wspbench.harness.prompts import MINATAR_PROMPT_VERSION
from wspbench.harness.protocols import StopRun, error_text, run_task
from wspbench.harness.summary import summary_markdown, summary_rows

MANIFEST_FORMAT = "wspbench.harness.run/1"
RESULT_SETTINGS = ("model", "kind", "endpoint", "request_params", "protocol", "rounds", "episodes",
                   "train_episodes", "engine", "prompt_versions")
PACKAGES = ("wspbench", "MinAtar", "numpy", "openai")


class RunDirError(ValueError):
    """The directory holds a run that this command cannot continue."""


class RunDirLocked(RunDirError):
    """Another `wsp run` is using the directory."""


class CorruptFile(RunDirError):
    """A record or manifest of the run that cannot be read."""


class RunWriteError(RunDirError, StopRun):
    """A file of the run directory could not be written (disk full, read-only...): the run stops."""


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
            "tasks": list(task_ids), "created_at": datetime.now(UTC).isoformat(timespec="seconds")}


class RunDir:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.tasks = self.path / "tasks"
        self.notes: list[str] = []  # what open() found and set aside, for the command to show
        self._lock = None

    def open(self, manifest: dict) -> dict:
        """Lock the directory, create it or check that it holds the same run, add new task ids to it, and set
        aside what a killed or broken run left (partial records, temporary and corrupt files)."""
        self.lock()
        try:
            existing = self.manifest()
        except CorruptFile as error:
            existing = None
            self.notes.append(f"{error}; set aside as {self._set_aside_corrupt(self.path / 'manifest.json').name}, "
                              "starting the run's manifest again")
        if existing is not None:
            for key in RESULT_SETTINGS:
                if existing.get(key) != manifest.get(key):
                    raise RunDirError(f"{self.path} holds a run with {key}={existing.get(key)!r}, not "
                                      f"{manifest.get(key)!r}; choose another --out to start a new run")
            added = [t for t in manifest["tasks"] if t not in existing["tasks"]]
            manifest = {**existing, "tasks": existing["tasks"] + added}
        _make_dir(self.tasks)
        for stale in [*self.path.glob(".*.tmp"), *self.tasks.glob(".*.tmp")]:  # a write cut short by a kill
            stale.unlink(missing_ok=True)
        _write_json(self.path / "manifest.json", manifest)
        for partial in self.tasks.glob("*.partial.json"):  # left by a killed run: keep it aside
            self._set_aside(partial)
        for path in sorted(self.tasks.glob("*.json")):
            try:
                if slug(_read_record(path)["task"]) != path.name.removesuffix(".json"):
                    raise CorruptFile(f"{path} holds the record of another task")
            except CorruptFile as error:
                self.notes.append(f"{error}; set aside as {self._set_aside_corrupt(path).name}, its task runs again")
        return manifest

    def lock(self) -> None:
        """Hold the directory's lock until close() or the end of the process; refuse if another run holds it."""
        if self._lock is not None:
            return
        _make_dir(self.path)
        handle = open(self.path / ".lock", "a")  # noqa: SIM115 - held open for the whole run
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise RunDirLocked(f"{self.path} is in use by another `wsp run` (its lock file {self.path / '.lock'} "
                               "is held); wait for it to finish or choose another --out") from None
        self._lock = handle

    def close(self) -> None:
        """Release the lock."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def manifest(self) -> dict | None:
        path = self.path / "manifest.json"
        if not path.is_file():
            return None
        data = _read_json(path)
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            raise RunDirError(f"{path} is not the manifest of a wspbench run; choose another --out")
        if not (isinstance(data.get("tasks"), list) and all(isinstance(t, str) for t in data["tasks"])):
            raise CorruptFile(f"{path} is an incomplete run manifest")
        return data

    def record(self, task_id: str) -> dict | None:
        path = self.tasks / f"{slug(task_id)}.json"
        return _read_record(path, task_id) if path.is_file() else None

    def finished(self, task_id: str) -> bool:
        record = self.record(task_id)
        return record is not None and record.get("status") == "ok"

    def paid_replies(self, task_id: str) -> list[dict]:
        """The replies of the earlier attempt that got furthest (its failed record or a killed run's partial
        record), to replay instead of paying for them again."""
        name = slug(task_id)
        best: list[dict] = []
        candidates = [self.tasks / f"{name}.json", *(self.path / "attempts").glob(f"{name}.*json")]
        for path in candidates:
            try:
                record = _read_record(path, task_id, complete=False)
            except (RunDirError, OSError):
                continue
            replies = [entry["reply"] for entry in record["rounds"]]
            if record.get("status") != "ok" and len(replies) > len(best):
                best = replies
        return best

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
        _write_text(self.path / "summary.md", summary_markdown(self.manifest(), rows))
        return rows

    def summary(self) -> tuple[dict, list[dict]]:
        """The manifest and the summary rows, read from the records (for `runs show/compare`)."""
        manifest = self.manifest()
        if manifest is None:
            raise RunDirError(f"{self.path} is not a run directory (no manifest.json)")
        return manifest, summary_rows(self.records(), manifest["tasks"])

    def _set_aside(self, path: Path) -> None:
        aside = self.path / "attempts"
        _make_dir(aside)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        name = path.name.removesuffix(".json")
        target = aside / f"{name}.{stamp}.json"
        count = 1
        while target.exists():
            count += 1
            target = aside / f"{name}.{stamp}-{count}.json"
        _move(path, target)

    def _set_aside_corrupt(self, path: Path) -> Path:
        target, count = path.with_name(f"{path.name}.corrupt"), 1
        while target.exists():
            count += 1
            target = path.with_name(f"{path.name}.{count}.corrupt")
        _move(path, target)
        return target


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
    the next run sets them aside and starts those tasks again. A worker that fails (a file that cannot be
    written, a broken display) stops the others from taking new tasks, and the run raises RunDirError
    once they are done. The directory's lock is released at the end."""
    display = display or Display()
    failures: list[BaseException] = []
    try:
        todo = [t for t in task_ids if not run_dir.finished(t)]
        work: queue.Queue[str] = queue.Queue()
        for task_id in todo:
            work.put(task_id)

        def run_one(task_id: str) -> None:
            record = run_task(task_id, make_task, client, protocol, rounds,
                              status=lambda text: display.status(task_id, text),
                              on_update=run_dir.save_partial, paid=run_dir.paid_replies(task_id))
            run_dir.save(record)
            display.done(task_id, record)

        def worker() -> None:
            while not failures:
                try:
                    task_id = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    run_one(task_id)
                except BaseException as error:  # noqa: BLE001 - reported by run_batch, never lost with the thread
                    failures.append(error)

        threads = [threading.Thread(target=worker, daemon=True, name=f"wsp-run-{i}")
                   for i in range(max(1, min(concurrency, len(todo))))]
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
        if failures:
            error = failures[0]
            if isinstance(error, RunDirError):
                raise error
            raise RunDirError(f"the run stopped: {type(error).__name__}: {error_text(error)}") from error
        run_dir.write_summary()
        return todo
    finally:
        run_dir.close()


def _read_json(path: Path):
    """A JSON file's data, or CorruptFile naming the file."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else type(error).__name__
        raise CorruptFile(f"{path} cannot be read ({reason})") from None


def _read_record(path: Path, task_id: str | None = None, complete: bool = True) -> dict:
    """A task record with the fields the summary reads (`complete`), or at least its rounds' replies (a
    partial record), or CorruptFile naming the file."""
    data = _read_json(path)
    if not (isinstance(data, dict) and isinstance(data.get("task"), str) and isinstance(data.get("rounds"), list)
            and all(isinstance(e, dict) and isinstance(e.get("reply"), dict) for e in data["rounds"])
            and (not complete or (data.get("status") in ("ok", "error") and isinstance(data.get("timings"), dict)))):
        raise CorruptFile(f"{path} is not a complete task record")
    if task_id is not None and data["task"] != task_id:
        raise CorruptFile(f"{path} holds the record of {data['task']!r}, not {task_id!r}")
    return data


def _write_json(path: Path, data: dict) -> None:
    _write_text(path, json.dumps(data, indent=1, default=_jsonable))


def _write_text(path: Path, text: str) -> None:
    """Replace `path` atomically; on failure remove the temporary file and raise RunWriteError naming `path`."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        _write_bytes(tmp, text.encode())
        os.replace(tmp, path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise RunWriteError(f"cannot write {path}: {error.strerror or error}; the run stopped "
                            "(finished records are kept; run the same command again to resume)") from None


def _write_bytes(path: Path, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)


def _make_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RunWriteError(f"cannot create {path}: {error.strerror or error}") from None


def _move(source: Path, target: Path) -> None:
    try:
        os.replace(source, target)
    except OSError as error:
        raise RunWriteError(f"cannot move {source} to {target}: {error.strerror or error}") from None


def _jsonable(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
