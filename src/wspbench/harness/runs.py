"""The run directory: everything a run produced, written so that a killed run resumes without losing or
repeating graded work. Every file is a typed record of `record.py`, read by its one reader.

    DIR/manifest.json                 the Manifest: RunConfig, tasks, suite, package versions, seeds
    DIR/tasks/<task.slug>.json        one complete TaskRecord per finished task (`original-breakout.json`)
    DIR/tasks/<task.slug>.partial.json  the record of a task in progress, rewritten after every reply
    DIR/attempts/                     partial records of interrupted tasks and records of failed ones, kept
                                      when the task is run again (no paid-for reply is thrown away)
    DIR/summary.json, summary.md      the table of results
    DIR/held-out.secret               the secret that draws the held-out episodes (feedback and agent runs:
                                      `tasks/held_out.py`), readable by its owner only; each graded record
                                      publishes its task's key
    DIR/.lock                         held (flock) by the one `wsp run` using the directory

Files are replaced atomically (write, then rename). Re-running with the same directory skips tasks whose
record has status "ok", re-runs the rest from their start (replaying the replies an earlier attempt
already paid for), and refuses a different RunConfig or suite. A second run on a directory in use is
refused (RunDirLocked). A file that cannot be written stops the run (RunWriteError, naming the path) with
no temporary file left and no finished record lost. A manifest that cannot be read is renamed to
`*.corrupt`, named in `notes`, and started again. A task record that cannot be read is left where it is and
counted as "corrupt" (score 0) by every reader (`read`: `wsp runs show/compare`, `wsp report`) and by a resumed
run, which names it in `notes` and does not run its task again (its replies may have been paid for; move the file
away to run it again). The run itself never writes a record its reader refuses (`record.fit`). A directory
written by another version of wspbench (another record schema) is refused and left exactly as it is.

Every file is written through the run's Redactor (the client's, `harness/redaction.py`), and so is every
record the display shows: no credential of the request reaches the directory or the console, while the
protocol grades the replies as they were sent. A reply replayed on resume is the stored one, scrubbed.

Every file of the directory is read through `wspbench.files.read_bounded`: regular files only (a FIFO, a
device or a folder in a record's place is a corrupt record, never waited on), at most MAX_RECORD_BYTES
(a larger file is refused by its size, unread); a `.lock` that is not a regular file is a RunDirError.
"""

from __future__ import annotations

import contextvars
import fcntl
import hashlib
import json
import logging
import os
import platform
import queue
import reprlib
import stat
import threading
import time
import warnings
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from wspbench.evaluation import Grading
from wspbench.evaluation.executors import LocalExecutor, RayExecutor, current_executor, use_executor
from wspbench.files import InputFileError, read_bounded, write_atomic
from wspbench.harness.protocols import StopRun, run_task
from wspbench.harness.record import (
    CORRUPT,
    MAX_RECORD_BYTES,
    Manifest,
    OtherSchema,
    RecordError,
    Reply,
    RunConfig,
    TaskRecord,
    current_suite,
    encode,
    fit,
    slug,
)
from wspbench.harness.redaction import Redactor
from wspbench.harness.settings import RunSettings
from wspbench.harness.summary import audit_markdown, run_scores, summary_markdown, summary_rows
from wspbench.protocols import Protocol
from wspbench.tasks import held_out
from wspbench.tasks.held_out import SECRET_FILE, new_secret
from wspbench.tasks.spec import SKILLS, Task, safe_message
from wspbench.words import count

PACKAGES = ("wspbench", "MinAtar", "numpy", "openai")
log = logging.getLogger(__name__)
CORRUPT_NOTE = f"counted as {CORRUPT} (score 0) and not run again; move the file away to run its task again"


class RunDirError(ValueError):
    """The directory holds a run that this command cannot continue."""


class RunDirLocked(RunDirError):
    """Another `wsp run` is using the directory."""


class CorruptFile(RunDirError):
    """A record or manifest of the run that cannot be read."""


class RunWriteError(RunDirError, StopRun):
    """A file of the run directory could not be written (disk full, read-only...): the run stops."""


def run_config(client, settings: RunSettings) -> RunConfig:
    """The RunConfig of a run of `client`: what the client says it is (kind, endpoint, request parameters) and
    what of the run's settings decides its results (its protocol, engine and samples)."""
    about = client.describe()
    return RunConfig(
        model=about["model"],
        kind=about["kind"],
        endpoint=about["endpoint"],
        request_params=about["request_params"],
        protocol=settings.protocol,
        engine=settings.engine,
        samples=settings.samples,
    )


def prepare_run(tasks: list[Task], model: str, settings: RunSettings, base_url: str | None, api_key_env: str) -> tuple:
    """The client of `model` and the RunConfig of a run of `tasks` with `settings`, checked before anything is paid
    for: ModelError for a client that cannot be made (no key), ValueError for a setting a task cannot take."""
    from wspbench.harness.clients import make_client

    client = make_client(model, base_url, api_key_env, **settings.client_options())
    config = run_config(client, settings)
    check_episodes(tasks, config)
    return client, config


def open_run_dir(out: str | Path | None, tasks: list[Task], client, config: RunConfig) -> tuple[RunDir, Manifest]:
    """The run directory `out` opened for this run (`RunDir.open`), and its manifest; RunDirError when it holds
    another run or is in use. Without `out`, the run's own default directory (`default_dir_for`), named in the
    run directory's `notes` when it is not runs/<model>-<protocol>."""
    manifest = build_manifest(config, tasks, client.describe()["api_key_env"])
    notes = []
    if out is None:
        out, notes = default_dir_for(manifest)
    run_dir = RunDir(out, client.redactor)
    run_dir.notes += notes
    return run_dir, run_dir.open(manifest)


def default_dir_for(manifest: Manifest) -> tuple[Path, list[str]]:
    """Where a run goes without --out: runs/<model>-<protocol>, unless that holds a run of other settings, tasks
    or suite; then runs/<model>-<protocol>-<8 hex of them>, so that the same command finds its run again and
    resumes it, and a changed --episodes starts a run of its own instead of being refused. With the notes to
    show."""
    base = default_run_dir(manifest.config.model, manifest.config.protocol.name)
    existing = _manifest_at(base)
    if existing is None or _same_run(existing, manifest):
        return base, []
    key = json.dumps([manifest.config.to_json(), sorted(manifest.tasks), manifest.suite.get("digest")], sort_keys=True)
    path = base.with_name(f"{base.name}-{hashlib.sha256(key.encode()).hexdigest()[:8]}")
    why = "; ".join(manifest.config.differences(existing.config)) or (
        "other tasks" if set(existing.tasks) != set(manifest.tasks) else "another suite"
    )
    return path, [f"{base} holds a run with other settings ({why}); this run's directory is {path}"]


def _manifest_at(path: Path) -> Manifest | None:
    """The manifest of the run at `path`, or None (no run, or one that cannot be read: `open` says why)."""
    try:
        return RunDir(path).manifest()
    except (RunDirError, OSError):
        return None


def _same_run(existing: Manifest, manifest: Manifest) -> bool:
    return (
        not existing.config.differences(manifest.config)
        and existing.suite == manifest.suite
        and set(existing.tasks) == set(manifest.tasks)
    )


def runnable(tasks: list[Task], protocol: Protocol) -> tuple[list[Task], list[str]]:
    """The tasks that can run under `protocol`, and the ids of those that cannot (a run skips them)."""
    offered = [t for t in tasks if protocol.name in t.protocols]
    return offered, [t.id for t in tasks if t not in offered]


def check_episodes(tasks: list[Task], config: RunConfig) -> None:
    """ValueError naming the first task that cannot play the run's held-out episodes: found before any request is
    paid for."""
    for task in tasks:
        try:
            task.scoring_episodes(config.protocol.episodes)
        except ValueError as error:
            raise ValueError(f"{task.id}: {error}") from None


def default_run_dir(model: str, protocol: str) -> Path:
    """runs/<model>-<protocol>, the model's name made safe for a file name: where a run goes without --out."""
    safe_model = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
    return Path("runs") / f"{safe_model}-{protocol}"


def build_manifest(config: RunConfig, tasks: list[Task], api_key_env: str | None = None) -> Manifest:
    """A new run's manifest: its config, the tasks with their seeds and prompt versions, the suite, packages."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    protocol = config.protocol
    return Manifest(
        config,
        [t.id for t in tasks],
        current_suite(),
        {**versions, "python": platform.python_version()},
        {t.id: t.seeds(protocol) for t in tasks},
        {t.id: t.prompt_version for t in tasks},
        api_key_env,
        datetime.now(UTC).isoformat(timespec="seconds"),
    )


class RunDir:
    """A run's directory. Opened by a run (`open`), it keeps the manifest and the finished records it wrote or
    found in memory, as stored (scrubbed), so the summary and `evaluate` do not read them back; otherwise
    (`wsp runs show`, `wsp report`) every read goes to the files."""

    def __init__(self, path: str | Path, redactor: Redactor | None = None):
        self.path = Path(path)
        self.redactor = redactor or Redactor()  # the client's: what is written is scrubbed of its secrets
        self.tasks = self.path / "tasks"
        self.notes: list[str] = []  # what open() found and set aside, for the command to show
        self.summarised: tuple[set[str], dict] | None = None  # `write_summary`'s tasks and scores
        self._lock = None
        self._opened: tuple[Manifest, dict[tuple[str, int], TaskRecord]] | None = None  # a run's, once open
        self.secret: str | None = None  # a run's that draws its held-out episodes, once open (`held_out_secret`)

    def open(self, manifest: Manifest) -> Manifest:
        """Lock the directory, create it or check that it holds the same run, add new task ids to it, and set
        aside what a killed or broken run left (partial records, temporary and corrupt files)."""
        self.lock()
        try:
            return self._open(manifest)
        except BaseException:
            self.close()  # refused: the next command may use the directory
            raise

    def _open(self, manifest: Manifest) -> Manifest:
        try:
            existing = self.manifest()
        except CorruptFile as error:
            existing = None
            self.notes.append(
                f"{error}; set aside as {self._set_aside_corrupt(self.path / 'manifest.json').name}, "
                "starting the run's manifest again"
            )
        except RunDirError as error:
            raise RunDirError(f"{error}; choose another --out") from None
        if existing is not None:
            self._check_same_run(existing, manifest)
            added = [t for t in manifest.tasks if t not in existing.tasks]
            existing.tasks += added
            existing.seeds.update({t: manifest.seeds[t] for t in added if t in manifest.seeds})
            existing.prompt_versions.update(
                {t: manifest.prompt_versions[t] for t in added if t in manifest.prompt_versions}
            )
            manifest = existing
        _make_dir(self.tasks)
        for stale in [*self.path.glob(".*.tmp"), *self.tasks.glob(".*.tmp")]:  # a write cut short by a kill
            try:
                stale.unlink(missing_ok=True)
            except OSError:  # a folder of that name: not ours, left as it is
                pass
        self._write_json(self.path / "manifest.json", manifest.to_json())
        if manifest.config.held_out == "secret":
            self.secret = self.held_out_secret()
        for partial in self.tasks.glob("*.partial.json"):  # left by a killed run: keep it aside
            self._set_aside(partial)
        finished = {}
        for (task_id, sample), path in self._files(manifest).items():
            if not os.path.lexists(path):
                continue
            try:
                finished[task_id, sample] = self._finished(path, task_id, sample)
            except CorruptFile as error:  # counted as 0, never asked again: its replies may have been paid for
                finished[task_id, sample] = TaskRecord.corrupt(task_id, sample, str(error))
                self.notes.append(f"{error}; {CORRUPT_NOTE}")
        self._opened = (manifest, finished)
        return manifest

    def _check_same_run(self, existing: Manifest, manifest: Manifest) -> None:
        differences = existing.config.differences(manifest.config)
        if differences:
            raise RunDirError(
                f"{self.path} holds a run with {'; '.join(differences)}; choose another --out to start a new run"
            )
        if existing.suite != manifest.suite:
            raise RunDirError(
                f"{self.path} holds a run of suite {_suite_name(existing.suite)}, not this wspbench's "
                f"{_suite_name(manifest.suite)} (a prompt, game or episode set changed); choose "
                "another --out to start a new run"
            )

    def held_out_secret(self) -> str:
        """The run's secret (`tasks/held_out.py`): read from its file, or made and written there (mode 0600) when
        the run has none yet. RunDirError for a file that holds no secret."""
        path = self.path / SECRET_FILE
        if not os.path.lexists(path):
            secret = new_secret()
            try:
                write_atomic(path, secret.encode() + b"\n", private=True)
            except OSError as error:
                raise RunWriteError(f"cannot write {path}: {error.strerror or error}") from None
            return secret
        try:
            return held_out.checked(read_bounded(path, 1024, "held-out secret").decode("ascii").strip())
        except (InputFileError, OSError, ValueError) as error:
            raise RunDirError(
                f"{path} holds no usable secret ({safe_message(error, 200)}); the run's held-out episodes cannot be "
                "drawn again: restore the file, or choose another --out"
            ) from None

    def lock(self) -> None:
        """Hold the directory's lock until close() or the end of the process; refuse if another run holds it."""
        if self._lock is not None:
            return
        _make_dir(self.path)
        path = self.path / ".lock"
        try:  # without blocking (a FIFO would wait for a reader), then only a regular file is a lock
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as error:
            raise RunDirError(
                f"cannot use {path} as the run's lock file ({error.strerror or error}); remove it or choose "
                "another --out"
            ) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise RunDirError(
                    f"{path} is not a regular file, so it cannot be the run's lock file; remove it or choose "
                    "another --out"
                )
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise RunDirLocked(
                f"{self.path} is in use by another `wsp run` (its lock file {path} "
                "is held); wait for it to finish or choose another --out"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        self._lock = fd

    def close(self) -> None:
        """Release the lock."""
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def manifest(self) -> Manifest | None:
        """The run's manifest; None when there is none yet. RunDirError for the file of another tool or of
        another wspbench version (left as it is), CorruptFile for a damaged one."""
        if self._opened is not None:
            return self._opened[0]
        path = self.path / "manifest.json"
        if not os.path.lexists(path):
            return None
        data = _read_json(path)
        try:
            return Manifest.from_json(data)
        except OtherSchema as error:
            raise RunDirError(f"{path} was {error}") from None
        except RecordError as error:
            if isinstance(data, dict) and str(data.get("format", "")).startswith("wspbench."):
                raise CorruptFile(f"{path} is not a usable run manifest ({error})") from None
            raise RunDirError(f"{path} is not the manifest of a wspbench run") from None

    def record(self, task_id: str, sample: int = 0) -> TaskRecord | None:
        """The finished record (status "ok" or "error") of the task's reply `sample`, or None; CorruptFile for
        a file in its place that is not one."""
        if self._opened is not None:
            return self._opened[1].get((task_id, sample))
        path = self.tasks / f"{slug(task_id, sample)}.json"
        if not os.path.lexists(path):
            return None
        return self._finished(path, task_id, sample)

    def _finished(self, path: Path, task_id: str, sample: int) -> TaskRecord:
        record = self._read(path)
        if (record.task, record.sample) != (task_id, sample):
            raise CorruptFile(f"{path} holds the record of {record.task!r:.80} ({record.sample}), not {task_id!r}")
        if record.status == "running":
            raise CorruptFile(f"{path} is an unfinished task record")
        return record

    def _files(self, manifest: Manifest) -> dict[tuple[str, int], Path]:
        """Where the record of each of the manifest's tasks and replies is."""
        return {
            (task_id, sample): self.tasks / f"{slug(task_id, sample)}.json"
            for task_id in manifest.tasks
            for sample in range(manifest.config.samples)
        }

    def finished(self, task_id: str, sample: int = 0) -> bool:
        """Whether the task's reply `sample` is done: graded ("ok"), or its record is there but cannot be read
        ("corrupt": counted as 0, not asked again)."""
        try:
            record = self.record(task_id, sample)
        except CorruptFile:
            return True
        return record is not None and record.counted

    def paid_replies(self, task_id: str, sample: int = 0) -> list[Reply]:
        """The replies of the earlier attempt that got furthest (its failed record or a killed run's partial
        record), to replay instead of paying for them again."""
        name = slug(task_id, sample)
        best: list[Reply] = []
        for path in [self.tasks / f"{name}.json", *(self.path / "attempts").glob(f"{name}.*json")]:
            try:
                record = self._read(path)
            except (RunDirError, OSError):
                continue
            replies = [entry.reply for entry in record.rounds]
            mine = (record.task, record.sample) == (task_id, sample)
            if mine and record.status != "ok" and len(replies) > len(best):
                best = replies
        return best

    def save_partial(self, record: TaskRecord) -> None:
        self._write_record(self.tasks / f"{slug(record.task, record.sample)}.partial.json", record)

    def save(self, record: TaskRecord) -> None:
        final = self.tasks / f"{slug(record.task, record.sample)}.json"
        if final.is_file():  # a failed earlier try: keep it
            self._set_aside(final)
        stored = self._write_record(final, record)
        (self.tasks / f"{slug(record.task, record.sample)}.partial.json").unlink(missing_ok=True)
        if self._opened is not None:
            self._opened[1][record.task, record.sample] = stored

    def _write_record(self, path: Path, record: TaskRecord) -> TaskRecord:
        """Write the record as stored (scrubbed, and within MAX_WRITE_BYTES: `record.fit`); returns it so."""
        stored = self.shown(record)
        _write_bytes(path, fit(stored))
        return stored

    def records(self) -> list[TaskRecord]:
        """The finished records of the manifest's tasks (each of its replies), in its order. A record that
        cannot be used is skipped and named in `notes` (another wspbench's record is a RunDirError)."""
        manifest = self.manifest()
        if manifest is None:
            return []
        found = []
        for task_id in manifest.tasks:
            for sample in range(manifest.config.samples):
                try:
                    record = self.record(task_id, sample)
                except CorruptFile as error:
                    self._note(f"{error}; {CORRUPT_NOTE}")
                    record = TaskRecord.corrupt(task_id, sample, str(error))
                if record is not None:
                    found.append(record)
        return found

    def write_summary(self) -> list[dict]:
        """summary.json and summary.md from every finished record; the scores are kept as `summarised` (the tasks
        they cover, and the scores), so that `wsp run` shows them without a second bootstrap (seconds at 286 tasks)."""
        manifest, records = self.manifest(), self.records()
        rows, scores = summary_rows(records, manifest), run_scores(manifest, records)
        self.summarised = ({record.task for record in records}, scores)
        headlines = {skill: scores[skill] for skill in SKILLS}  # the two headlines first, never one mean over both
        summary = {"manifest": manifest.to_json(), **headlines, "scores": scores, "rows": rows}
        self._write_json(self.path / "summary.json", summary)
        audit = audit_markdown(records)
        text = summary_markdown(manifest, rows, scores) + (f"\n{audit}" if audit else "")
        _write_text(self.path / "summary.md", self.redactor.text(text))
        return rows

    def read(self) -> tuple[Manifest, list[TaskRecord]]:
        """The manifest and every finished record (`wsp runs show/compare`, `wsp report`); RunDirError naming
        the file when the directory is not a run of this wspbench or a record cannot be read."""
        manifest = self.manifest()
        if manifest is None:
            raise RunDirError(f"{self.path} is not a run directory (no manifest.json)")
        return manifest, self.records()

    def summary(self) -> tuple[Manifest, list[dict]]:
        """The manifest and the summary rows, read from the records."""
        manifest, records = self.read()
        return manifest, summary_rows(records, manifest)

    def _write_json(self, path: Path, data: dict) -> None:
        _write_bytes(path, encode(self.redactor.tree(data)))

    def shown(self, record: TaskRecord) -> TaskRecord:
        """The record as it is stored (scrubbed of the run's secrets): what the console shows and a run keeps."""
        return TaskRecord.from_json(self.redactor.tree(record.to_json()))

    def _read(self, path: Path) -> TaskRecord:
        """A task record (finished or partial): RunDirError for another wspbench's record (left as it is),
        CorruptFile for anything else that is not a record."""
        try:
            return TaskRecord.from_json(_read_json(path))
        except OtherSchema as error:
            raise RunDirError(f"{path} was {error}") from None
        except RecordError as error:
            raise CorruptFile(f"{path} is not a usable task record: {error}") from None

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

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


def _suite_name(suite: dict) -> str:
    """`name version (digest)`, short and on one line whatever the (untrusted) manifest holds."""
    name, version, digest = (suite.get(key) for key in ("name", "version", "digest"))
    text = f"{_brief(name, 40)} {_brief(version, 20)} ({_brief(digest, 12)})"
    return " ".join(text.split())


def _brief(value, length: int) -> str:
    return value[:length] if isinstance(value, str) else reprlib.repr(value)[:length]


class Display:
    """What a batch reports while it runs (the CLI shows it with rich; tests use this silent one)."""

    def status(self, task_id: str, text: str) -> None:
        pass

    def done(self, task_id: str, record: TaskRecord) -> None:
        pass


def prepare(tasks, config: RunConfig, workers: int | None) -> None:
    """Load, or the first time on a machine compile, what the tasks' grades need (`Task.prepare`) before any
    task's clock starts, so that no task's seconds hold the compile. A failure is left to the grade to report."""
    grading = Grading(config.engine, workers)
    for task in tasks:
        try:
            task.prepare(len(task.scoring_episodes(config.protocol.episodes)), grading)
        except Exception as error:  # noqa: BLE001 - the task's grade fails with its own message
            log.warning("%s: its engine could not be prepared: %s", task.id, safe_message(error))


def run_batch(
    run_dir: RunDir,
    tasks: list[Task],
    client,
    config: RunConfig,
    concurrency: int = 1,
    display: Display | None = None,
    workers: int | None = None,
    executor: LocalExecutor | RayExecutor | None = None,
) -> list[str]:
    """Run every task of `tasks` (each of its `config.samples` replies) without an "ok" record, `concurrency`
    at a time; returns the ids run.

    Model requests, saving replies and writing records stay in this process's threads (so resume works the
    same everywhere); each grading spreads its episode chunks over `executor` (default: the one in use, see
    `wspbench/evaluation/executors.py`), which the threads inherit.

    Workers are daemon threads, so Ctrl-C ends the process at once; the partial records stay on disk and
    the next run sets them aside and starts those tasks again. A worker that fails (a file that cannot be
    written, a broken display) stops the others from taking new tasks, and the run raises RunDirError
    once they are done. The directory's lock is released at the end."""
    display = display or Display()
    failures: list[BaseException] = []
    suite = current_suite()
    try:
        (executor or current_executor()).connect()  # here, not in a thread; no cluster: the run stops now
        todo = [(t, k) for t in tasks for k in range(config.samples) if not run_dir.finished(t.id, k)]
        prepare({t.id: t for t, _ in todo}.values(), config, workers)
        work: queue.Queue[tuple[Task, int]] = queue.Queue()
        for unit in todo:
            work.put(unit)

        def run_one(task: Task, sample: int) -> None:
            label = task.id + (f" @{sample}" if sample else "")
            with use_executor(executor):
                record = run_task(
                    task,
                    client,
                    config,
                    status=lambda text: display.status(label, text),
                    on_update=run_dir.save_partial,
                    paid=run_dir.paid_replies(task.id, sample),
                    suite=suite,
                    workers=workers,
                    sample=sample,
                    secret=run_dir.secret,
                )
            run_dir.save(record)
            display.done(label, run_dir.shown(record))

        def worker() -> None:
            while not failures:
                try:
                    task, sample = work.get_nowait()
                except queue.Empty:
                    return
                try:
                    run_one(task, sample)
                except BaseException as error:  # noqa: BLE001 - reported by run_batch, never lost with the thread
                    failures.append(error)

        threads = [  # each with a copy of this context: the executor in use
            threading.Thread(target=contextvars.copy_context().run, args=(worker,), daemon=True, name=f"wsp-run-{i}")
            for i in range(max(1, min(concurrency, len(todo))))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            while thread.is_alive():
                thread.join(0.2)
        if failures:
            error = failures[0]
            if isinstance(error, RunDirError):
                raise error
            raise RunDirError(f"the run stopped: {run_dir.redactor.text(safe_message(error))}") from error
        run_dir.write_summary()
        return list(dict.fromkeys(t.id for t, _ in todo))
    finally:
        run_dir.close()


def start_run(
    model: str,
    tasks: list[Task],
    settings: RunSettings,
    out: str | Path | None = None,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
) -> tuple[RunDir, Manifest, object, RunConfig]:
    """What `wsp run` and `evaluate` both do before the first request: the client of `model` (ModelError when it
    cannot be made), the run's config from `settings` (ValueError for a count a task cannot play), and its run
    directory opened (RunDirError when it holds another run or is in use)."""
    client, config = prepare_run(tasks, model, settings, base_url, api_key_env)
    run_dir, manifest = open_run_dir(out, tasks, client, config)
    return run_dir, manifest, client, config


def evaluate(
    model: str,
    tasks: str | Task | list[Task] = "original/*",
    *,
    out: str | Path | None = None,
    base_url: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    settings: RunSettings | None = None,
    **given,
) -> list[TaskRecord]:
    """`wsp run` as a function (`wspbench.evaluate`): run `model` on `tasks`, grade every reply, and return the
    finished records of those tasks (TaskRecord: `record.test` is the held-out Score), in the tasks' order.

    `model` is an offline model (reference, zero, trained) or a model at the OpenAI-compatible `base_url` with
    its key in the environment variable `api_key_env`. The settings are `wsp run`'s, with the same names and
    defaults (`harness/settings.py` RunSettings: protocol, rounds, passes, handoff, task_timeout, concurrency,
    episodes, train_episodes, samples, engine, workers, and each request's timeout, max_tries, backoff, max_tokens,
    temperature, top_p, seed, reasoning_effort, extra_body, headers), given as keywords or as `settings`; an
    unknown name is a ValueError. `tasks` is a selector as `wsp run --tasks` takes ("synth/*",
    "original/breakout,superbeam"), a Task or a list of them; those without the protocol are skipped with a
    warning, as `wsp run` skips them. The run directory `out` (default as `wsp run`'s, a warning naming it when
    it is not runs/<model>-<protocol>) keeps every prompt, reply and score; calling again with the same `out`
    resumes the run, and different settings are refused (RunDirError).
    """
    from wspbench.tasks.registry import select

    if settings is not None and given:
        raise ValueError("give the settings as `settings` or as keywords, not both")
    settings = settings or RunSettings.of(**given)
    chosen = select(tasks) if isinstance(tasks, str) else [tasks] if isinstance(tasks, Task) else list(tasks)
    chosen, skipped = runnable(chosen, settings.protocol)
    name = settings.protocol.name
    if skipped:
        warnings.warn(f"skipped {count(len(skipped), 'task')} that have no {name} protocol", stacklevel=2)
    if not chosen:
        raise ValueError(f"no selected task has the {name} protocol")
    run_dir, _, client, config = start_run(model, chosen, settings, out, base_url, api_key_env)
    for note in run_dir.notes:  # its own default directory, or what `open` set aside: as `wsp run` says it
        warnings.warn(note, stacklevel=2)
    run_batch(run_dir, chosen, client, config, settings.concurrency, workers=settings.workers)
    records = (run_dir.record(task.id, sample) for task in chosen for sample in range(settings.samples))
    return [record for record in records if record is not None]


def _read_json(path: Path):
    """A JSON file's data, or CorruptFile naming the file (read bounded: a regular file of at most
    MAX_RECORD_BYTES)."""
    try:
        data = read_bounded(path, MAX_RECORD_BYTES, "run file")
    except InputFileError as error:
        raise CorruptFile(str(error)) from None
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as error:
        raise CorruptFile(f"{path} cannot be read ({type(error).__name__})") from None


def _write_text(path: Path, text: str) -> None:
    _write_bytes(path, text.encode("utf-8", "backslashreplace"))


def _write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` atomically, or raise RunWriteError naming it."""
    try:
        write_atomic(path, data)
    except OSError as error:
        raise RunWriteError(
            f"cannot write {path}: {error.strerror or error}; the run stopped "
            "(finished records are kept; run the same command again to resume)"
        ) from None


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
