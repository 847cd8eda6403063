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
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import Executor, Future, InvalidStateError, ProcessPoolExecutor
from contextlib import contextmanager

# A forked worker inherits every lock as it was at the fork: a module that another thread of the parent (a run's
# other tasks) was importing at that moment can never be imported in the worker, which then waits for ever. The
# games create numpy's RandomState, and numpy imports numpy.random on first use: so it is imported here, before
# any pool forks (a one-shot `wsp run` of several tasks hung on it; CHANGELOG).
import numpy.random  # noqa: F401

EXECUTORS = ("local", "ray")


class ExecutorError(ValueError):
    """An executor that cannot be used (ray not installed, a cluster that cannot be reached or that failed while
    grading): an infrastructure error, exit 2, never a rejected answer."""


CONNECT_S = 5.0  # the deadline for finding a Ray cluster at an address
LOST_S = 5.0  # a cluster whose head has not answered for this long while chunks are pending is gone
TOKEN_HINT = (
    "a cluster started with token authentication (RAY_AUTH_MODE=token) needs its token on this machine: "
    "RAY_AUTH_TOKEN or ~/.ray/auth_token"
)
# For a driver joining a cluster: a refused token gives up after 5 tries of a second each, with a warning line
# each (not 20). (RAY_BACKEND_LOG_LEVEL would hide those, but then Ray prints a line on every connection.)
QUIET_DRIVER = {"RAY_gcs_server_port_wait_time_s": "5"}
# An HTTP/2 client's first bytes: the connection preface and an empty SETTINGS frame. Ray's head (its GCS) is
# a gRPC server, which answers with a SETTINGS frame (frame type 4, the fourth byte).
HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


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
                options = {"include_dashboard": False} if address == "local" else {}
                if address != "local":
                    _check_reachable(address)
                    for name, value in QUIET_DRIVER.items():  # the user's own settings win
                        os.environ.setdefault(name, value)
                try:
                    ray.init(address=address, logging_level="warning", log_to_driver=False, **options)
                except (ConnectionError, RuntimeError, ValueError) as error:
                    hint = f"; {TOKEN_HINT}" if isinstance(error, ConnectionError) else ""
                    raise ExecutorError(f"cannot connect to the Ray cluster at {address}: {error}{hint}") from None
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


def _check_reachable(address: str, seconds: float = CONNECT_S) -> None:
    """A `host:port` that nothing answers on, or whose server is not a Ray head (an HTTP server, a silent
    socket): a clear error within `seconds` (ray.init would retry for many minutes)."""
    host, colon, port = address.rpartition(":")
    if not colon or "://" in address or not port.isdigit():
        return  # "auto" or a ray:// client address: left to Ray
    not_ray = f"{address} answers, but not as a Ray cluster's head (its GCS port) does"
    try:
        with socket.create_connection((host, int(port)), timeout=seconds) as connection:
            if os.environ.get("RAY_USE_TLS", "0") in ("0", ""):  # a TLS head answers only after a handshake
                connection.sendall(HTTP2_HELLO)
                answer = connection.recv(9)
                if len(answer) < 4 or answer[3] != 4:
                    raise ExecutorError(not_ray)
    except ExecutorError:
        raise
    except TimeoutError:
        raise ExecutorError(f"{not_ray} (no answer within {seconds:g} s)") from None
    except (OSError, ValueError) as error:
        raise ExecutorError(f"no Ray cluster answers at {address} ({error})") from None


def _head_answers(address: str, seconds: float = 1.0) -> bool:
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except (OSError, ValueError):
        return False
    return True


@functools.cache
def _play_chunk():
    import ray

    @ray.remote(num_cpus=1)
    def play_chunk(play, args):
        return ray.get_runtime_context().get_node_id(), play(*args)

    return play_chunk


class _RayPool(Executor):
    """`submit(play, *args)` runs `play(*args)` as a Ray task; its Future gets the result (the node id that
    played it goes to the executor's `nodes`). Leaving the pool early (an error, Ctrl-C) cancels the rest.

    A chunk that fails in Ray itself (a worker or node lost) fails with ExecutorError; an error that `play`
    raised stays what it is (a broken game). While chunks are pending, a watchdog knocks on the head's port each
    second: a head that does not answer for LOST_S fails them all with ExecutorError, well before Ray itself
    would end this process (with status 1, once its head has been gone for 60 s)."""

    def __init__(self, executor: RayExecutor):
        self.executor = executor
        self.ray = executor.connect()
        self.pending: dict = {}
        self.head = self.ray.get_runtime_context().gcs_address
        self.watching = threading.Lock()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        if kwargs:
            raise TypeError("the Ray pool takes positional arguments only")
        try:
            ref = _play_chunk().remote(fn, args)
        except Exception as error:  # noqa: BLE001 - a head gone while chunks are sent is the cluster's failure
            if self.cluster_failed(error):
                raise self.lost(f"{type(error).__name__}: {str(error).strip()[:200]}") from None
            raise
        result: Future = Future()
        self.pending[ref] = result

        def done(finished: Future) -> None:
            self.pending.pop(ref, None)
            try:
                node, value = finished.result()
            except BaseException as error:  # noqa: BLE001 - handed to whoever waits on the chunk
                if self.cluster_failed(error):
                    error = self.lost(f"{type(error).__name__}: {str(error).strip()[:200]}")
                _settle(result, error=error)
                return
            self.executor.nodes[node] += 1
            _settle(result, value)

        ref.future().add_done_callback(done)
        if self.watching.acquire(blocking=False):
            threading.Thread(target=self.watch, daemon=True, name="wsp-ray-watchdog").start()
        return result

    def cluster_failed(self, error: BaseException) -> bool:
        """Whether a chunk's error is the cluster's, not the game's: an error of Ray itself (a worker or node
        lost), a worker stopped by a signal while it played (SystemExit inside a task error), a task that failed
        in Ray (a RayError inside it), or any error while the head does not answer. Only an Exception that
        `play` raised on a live cluster is the game's."""
        ray_failure = (self.ray.exceptions.RayError, ConnectionError)
        if isinstance(error, self.ray.exceptions.RayTaskError):
            cause = error.cause
            return not isinstance(cause, Exception) or isinstance(cause, ray_failure) or not _head_answers(self.head)
        return isinstance(error, ray_failure) or not _head_answers(self.head)

    def lost(self, why: str) -> ExecutorError:
        why = " ".join(why.split())
        return ExecutorError(f"the Ray cluster at {self.head} failed while grading ({why}); the grading stopped")

    def watch(self) -> None:
        """Fail every pending chunk once the head has not answered for LOST_S."""
        since = None
        try:
            while self.pending:
                if _head_answers(self.head):
                    since = None
                elif since is None:
                    since = time.monotonic()
                elif time.monotonic() - since >= LOST_S:
                    error = self.lost(f"its head has not answered for {LOST_S:g} s")
                    for ref in list(self.pending):
                        _settle(self.pending.pop(ref, Future()), error=error)
                    return
                time.sleep(0.5)
        finally:
            self.watching.release()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        for ref in list(self.pending):
            try:
                self.ray.cancel(ref)
            except Exception:  # noqa: BLE001 - a cluster that is gone has nothing left to cancel
                pass


def _settle(result: Future, value=None, error: BaseException | None = None) -> None:
    """Set a Future once (the watchdog and Ray may both answer for a chunk)."""
    try:
        if error is not None:
            result.set_exception(error)
        else:
            result.set_result(value)
    except InvalidStateError:
        pass


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
