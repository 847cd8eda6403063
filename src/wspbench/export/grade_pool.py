"""Grading in worker processes with a time limit, for the OpenEnv server (wspbench/export/openenv_server.py).

Why processes: a grade is CPU work (and a regular expression holds the GIL), so grading in the server's
own process could stall its event loop and every other request, `/health` included. Each worker is a
plain `python -m wspbench.export.grade_pool` child (not a multiprocessing child, which would re-import
the server and openenv-core) speaking JSON lines on its stdin/stdout: it imports the graders once, says
it is ready, then answers one request per line. A grade that runs past the time limit has its worker
killed and replaced; the request gets a score of 0 with an error that says so.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time

MAX_ANSWER_CHARS = 1_000_000
START_TIMEOUT_S = 120.0  # importing the graders, once per worker; not counted in a grade's time limit


class GraderBusy(RuntimeError):
    """Every worker stayed busy for a whole time limit: the request should be retried later."""


def failed(error: str) -> dict:
    """The result of a reply that could not be graded: a score of 0 with the reason."""
    return {"normalized_score": 0.0, "parse_success": 0.0, "error": error}


class _Worker:
    def __init__(self):
        self.process = subprocess.Popen([sys.executable, "-m", "wspbench.export.grade_pool"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
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

    def grade(self, task_id: str, episodes: int, answer: str) -> dict:
        """The grader's result for `answer` on the task (a result with an error when it cannot be graded)."""
        if len(answer) > MAX_ANSWER_CHARS:
            return failed(f"the reply is {len(answer):,} characters long, over the limit of {MAX_ANSWER_CHARS:,}")
        if not self._slots.acquire(timeout=self.timeout_s):
            raise GraderBusy(f"every grader stayed busy for {self.timeout_s:g} s; try again later")
        try:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None:
                worker = _Worker()
            try:
                line = json.dumps({"task": task_id, "episodes": episodes, "answer": answer}) + "\n"
                worker.process.stdin.write(line.encode())
                worker.process.stdin.flush()
                started = time.monotonic()
                result = worker.read(self.timeout_s)
            except (OSError, ValueError, EOFError) as error:
                worker.kill()
                return failed(f"grading failed: the grading process broke ({type(error).__name__})")
            if result is None:
                worker.kill()
                return failed(f"grading took longer than the server's limit of {self.timeout_s:g} s "
                              f"(stopped after {time.monotonic() - started:.1f} s)")
            with self._lock:
                self._idle.append(worker)
            return result
        finally:
            self._slots.release()

    def close(self) -> None:
        """Stop the idle workers (busy ones end when their grade does and find their input closed)."""
        with self._lock:
            workers, self._idle = self._idle, []
        for worker in workers:
            worker.kill()


def _grade(task_id: str, episodes: int, answer: str) -> dict:
    """The held-out result: `grade_answer` (MinAtar) or `superbeam.task.grade` on the task's levels."""
    from wspbench.export.catalog import task_info

    info = task_info(task_id, episodes)
    if info.family == "superbeam":
        from superbeam.task import grade as grade_superbeam
        result = grade_superbeam(answer, info.levels)
        summary = {key: result[key] for key in ("won", "levels", "mean_progress", "error")}
        return {"normalized_score": float(result["score"]), "parse_success": 0.0 if result["error"] else 1.0,
                **summary}
    from wspbench.grading import grade_answer
    return grade_answer(info.minatar_task, answer, info.episodes, workers=1)


def _plain(value):
    return value.item() if hasattr(value, "item") else str(value)


def serve() -> None:
    """The worker: one JSON request per line in, one JSON result per line out. Anything the graders print
    goes to stderr, so stdout carries only results."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    import wspbench.export.catalog
    import wspbench.grading  # noqa: F401 - imported once, before saying ready

    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
            result = _grade(request["task"], request["episodes"], request["answer"])
        except Exception as error:  # noqa: BLE001 - a grader's failure is this reply's result, not the worker's end
            result = failed(f"grading failed: {type(error).__name__}: {str(error)[:500]}")
        out.write(json.dumps(result, default=_plain) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
