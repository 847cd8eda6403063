"""Grading in worker processes with a time limit, for the OpenEnv server (wspbench/export/openenv_server.py).

Why processes: a grade is CPU work (and a regular expression holds the GIL), so grading in the server's
own process could stall its event loop and every other request, `/health` included. Each worker is a
plain `python -m wspbench.export.grade_pool` child (not a multiprocessing child, which would re-import
the server and openenv-core) speaking JSON lines on its stdin/stdout: it loads the task registry once, says
it is ready, then answers one request per line with the task's `Score.to_json()`. A grade that runs past
the time limit has its worker killed and replaced; the request gets a rejected Score that says so.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time

from wspbench.evaluation import ONE_WORKER
from wspbench.tasks.spec import Task, safe_message

START_TIMEOUT_S = 120.0  # importing the graders, once per worker; not counted in a grade's time limit


class GraderBusy(RuntimeError):
    """Every worker stayed busy for a whole time limit: the request should be retried later."""


def failed(task: Task, error: str) -> dict:
    """The result of a reply that could not be graded: a score of 0 with the reason."""
    return task.rejected(error).to_json()


class _Worker:
    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "wspbench.export.grade_pool"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        if self.read(START_TIMEOUT_S) != {"ready": True}:
            self.kill()
            raise RuntimeError("the grading process did not start")

    def read(self, timeout_s: float) -> dict | None:
        """The next line of the worker as JSON, or None when it gave none within `timeout_s`."""
        ready, _, _ = select.select([self.process.stdout], [], [], max(timeout_s, 0.0))
        if not ready:
            return None
        line = self.process.stdout.readline()
        if not line:
            raise EOFError("the grading process ended")
        return json.loads(line)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


class GradePool:
    """At most `size` grades at once, each in a worker process and within `timeout_s` seconds."""

    def __init__(self, size: int, timeout_s: float):
        self.size, self.timeout_s = max(1, size), timeout_s
        self._slots = threading.BoundedSemaphore(self.size)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()

    def grade(self, task: Task, episodes: int, answer: str, training: bool = False, key: str | None = None) -> dict:
        """`answer` graded on the task's first `episodes` held-out episodes, or as many drawn by `key`
        (`Task.held_out_episodes`; `training`: on its first training episodes, an agent's play), as
        `Score.to_json()` (a rejected Score when it cannot be graded)."""
        if len(answer) > task.max_answer_chars:
            limit = task.max_answer_chars
            return failed(task, f"the reply is {len(answer):,} characters long, over the limit of {limit:,}")
        if not self._slots.acquire(timeout=self.timeout_s):
            raise GraderBusy(f"every grader stayed busy for {self.timeout_s:g} s; try again later")
        try:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None:
                worker = _Worker()
            try:
                request = {"task": task.id, "episodes": episodes, "answer": answer, "training": training, "key": key}
                line = json.dumps(request) + "\n"
                worker.process.stdin.write(line.encode())
                worker.process.stdin.flush()
                started = time.monotonic()
                result = worker.read(self.timeout_s)
            except (OSError, ValueError, EOFError) as error:
                worker.kill()
                return failed(task, f"grading failed: the grading process broke ({type(error).__name__})")
            if result is None:
                worker.kill()
                return failed(
                    task,
                    f"grading took longer than the server's limit of {self.timeout_s:g} s "
                    f"(stopped after {time.monotonic() - started:.1f} s)",
                )
            with self._lock:
                self._idle.append(worker)
            return failed(task, str(result["failed"])) if "failed" in result else result
        finally:
            self._slots.release()

    def close(self) -> None:
        """Stop the idle workers (busy ones end when their grade does and find their input closed)."""
        with self._lock:
            workers, self._idle = self._idle, []
        for worker in workers:
            worker.kill()


def _grade(task_id: str, episodes: int, answer: str, training: bool = False, key: str | None = None) -> dict:
    """The held-out (or training) result, through the registry, in one process (the pool runs one grade per
    worker)."""
    from wspbench.tasks import get_task

    task = get_task(task_id)
    try:
        chosen = task.training_episodes(episodes) if training else task.held_out_episodes(episodes, key)
    except ValueError as error:
        return failed(task, f"grading failed: {safe_message(error, 500)}")
    return task.grade(answer, chosen, ONE_WORKER).to_json()


def serve() -> None:
    """The worker: one JSON request per line in, one JSON result per line out. Anything the graders print
    goes to stderr, so stdout carries only results."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    from wspbench.tasks import all_tasks

    # each family's code and engines load once, before saying ready: grade one task's zero answer per family
    for task in {task.family: task for task in all_tasks()}.values():
        task.grade(task.offline_answer("zero") or "", task.scoring_episodes(1), ONE_WORKER)

    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
            training = request.get("training") is True
            result = _grade(request["task"], request["episodes"], request["answer"], training, request.get("key"))
        except Exception as error:  # noqa: BLE001 - a grader's failure is this reply's result, not the worker's end
            result = {"failed": f"grading failed: {safe_message(error, 500)}"}
        out.write(json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
