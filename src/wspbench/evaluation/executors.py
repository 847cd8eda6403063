"""Where a grading's episode chunks are played: this machine's process pool (`local`, the default) or a Ray
cluster (`ray`, the `wspbench[ray]` extra; ray is imported only when that executor is first used).

An executor gives `evaluate` (`wspbench/evaluation/engine.py`) two things: how many workers it has, and a
`concurrent.futures.Executor` to submit chunks to. The engine splits, submits and merges the chunks in
episode order exactly as before, so every executor gives the same results, episode by episode.

The executor in use is a context variable: `with use_executor(executor):` makes every grading inside it
(and in the threads that `wspbench/harness/runs.py` starts for it) spread its chunks there.
"""

from __future__ import annotations

import contextvars
import functools
import importlib.util
import multiprocessing
import os
import socket
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from contextlib import contextmanager

EXECUTORS = ("local", "ray")


class ExecutorError(ValueError):
    """An executor that cannot be used (ray not installed, a cluster that cannot be reached)."""


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class LocalExecutor:
    """A process pool on this machine, one per grading (fork where the platform has it: cheap to start)."""

    name = "local"

    def workers(self) -> int:
        return default_workers()

    def connect(self) -> None:
        pass

    def pool(self, workers: int) -> Executor:
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method))

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RayExecutor:
    """Each chunk is a Ray task needing one CPU. Connects on first use: to `address` when given, else to
    $RAY_ADDRESS when set (a job submitted to a cluster), else to a new local Ray instance. `close()` shuts
    down only a Ray that this executor started; for a cluster it only disconnects the driver. `nodes` counts
    the chunks each node id played."""

    name = "ray"

    def __init__(self, address: str | None = None):
        self.address = address
        self.nodes: Counter[str] = Counter()
        self._owned = False
        self._lock = threading.Lock()

    def connect(self):
        """Connect (once) and return the ray module. Call it from the main thread first: ray.init sets its
        signal handlers only there."""
        with self._lock:
            import ray

            if not ray.is_initialized():
                address = self.address or os.environ.get("RAY_ADDRESS") or "local"
                _check_reachable(address)
                options = {"include_dashboard": False} if address == "local" else {}
                try:
                    ray.init(address=address, logging_level="warning", log_to_driver=False, **options)
                except (ConnectionError, RuntimeError, ValueError) as error:
                    raise ExecutorError(f"cannot connect to the Ray cluster at {address}: {error}") from None
                self._owned = True
            return ray

    def workers(self) -> int:
        return max(1, int(self.connect().cluster_resources().get("CPU", 1)))

    def pool(self, workers: int) -> Executor:
        return _RayPool(self)

    def close(self) -> None:
        with self._lock:
            if self._owned:
                import ray

                ray.shutdown()  # a local instance stops; a cluster only loses this driver
                self._owned = False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _check_reachable(address: str, seconds: float = 5.0) -> None:
    """A `host:port` that nothing answers on: a clear error in seconds (ray.init would retry for minutes)."""
    host, colon, port = address.rpartition(":")
    if not colon or "://" in address or not port.isdigit():
        return  # "local", "auto" or a ray:// client address: left to Ray
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except (OSError, ValueError) as error:
        raise ExecutorError(f"no Ray cluster answers at {address} ({error})") from None


@functools.cache
def _play_chunk():
    import ray

    @ray.remote(num_cpus=1)
    def play_chunk(play, args):
        return ray.get_runtime_context().get_node_id(), play(*args)

    return play_chunk


class _RayPool(Executor):
    """`submit(play, *args)` runs `play(*args)` as a Ray task; its Future gets the result (the node id that
    played it goes to the executor's `nodes`). Leaving the pool early (an error, Ctrl-C) cancels the rest."""

    def __init__(self, executor: RayExecutor):
        self.executor = executor
        self.ray = executor.connect()
        self.pending: dict = {}

    def submit(self, fn, /, *args, **kwargs) -> Future:
        if kwargs:
            raise TypeError("the Ray pool takes positional arguments only")
        ref = _play_chunk().remote(fn, args)
        result: Future = Future()
        self.pending[ref] = result

        def done(finished: Future) -> None:
            self.pending.pop(ref, None)
            try:
                node, value = finished.result()
            except BaseException as error:  # noqa: BLE001 - handed to whoever waits on the chunk
                result.set_exception(error)
                return
            self.executor.nodes[node] += 1
            result.set_result(value)

        ref.future().add_done_callback(done)
        return result

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        for ref in list(self.pending):
            self.ray.cancel(ref)


_active: contextvars.ContextVar[LocalExecutor | RayExecutor | None] = contextvars.ContextVar(
    "wspbench_executor", default=None
)
LOCAL = LocalExecutor()


def current_executor() -> LocalExecutor | RayExecutor:
    return _active.get() or LOCAL


@contextmanager
def use_executor(executor: LocalExecutor | RayExecutor | None) -> Iterator[None]:
    """Gradings inside spread their chunks over `executor` (None: keep the one in use)."""
    if executor is None:
        yield
        return
    token = _active.set(executor)
    try:
        yield
    finally:
        _active.reset(token)


def resolve_executor(name: str = "local", address: str | None = None) -> LocalExecutor | RayExecutor:
    """The executor named by `wsp run/grade --executor NAME [--ray-address ADDR]`; ExecutorError (a usage
    error) for an unknown name, an address without `ray`, or `ray` without the ray package."""
    if name not in EXECUTORS:
        raise ExecutorError(f"unknown executor {name!r} (executors: {', '.join(EXECUTORS)})")
    if name == "local":
        if address:
            raise ExecutorError("--ray-address needs --executor ray")
        return LOCAL
    if importlib.util.find_spec("ray") is None:
        raise ExecutorError("the ray executor needs ray: pip install 'wspbench[ray]'")
    return RayExecutor(address)
