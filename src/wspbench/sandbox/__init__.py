"""A persistent Python kernel for a model's code, in a bubblewrap sandbox (docs/agent.md: the threat model).

What it guarantees: the code sees a private working folder (a size-limited tmpfs holding the files it was given)
and a private /tmp, both in memory and gone with the kernel, the standard library and numpy, read-only (the rest
of its root is read-only too), and nothing else of the host: new user, pid, network, IPC and UTS namespaces, no
host environment variables, no home, no repository, no wspbench (whose package ships reference answers). It runs
without capabilities, as an unprivileged host user of its own when the host runs as root (`sandbox_uid`), and
behind a syscall filter (`syscalls.py`). Each block has CPU-time, wall-clock, memory, file-size and output limits;
processes by RLIMIT_NPROC (which binds because the code never runs as host root, and counts per sandbox since each
has its own user namespace), every process a block starts is killed when it ends, and between requests the whole
sandbox is frozen (its cgroup's freezer, as root), so nothing a block left behind runs until the next one. Every
request carries an id that its reply must echo, in the shape its kind has; a kernel that stops answering, or
answers anything else, is killed and started again (its variables and files lost, and the result says so).
Without a usable sandbox nothing runs: `check` and `Kernel` raise SandboxUnavailable, saying how to get one.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import secrets
import select
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from wspbench.sandbox import syscalls

KERNEL = Path(__file__).with_name("kernel.py")  # the sandbox's side, bound read-only into it
FOLDER = "/work"  # the working folder inside the sandbox
SITE = "/sandbox/site"  # numpy's folder is bound here, the only package on sys.path
START_S = 30.0  # for the sandbox to start and load its files
GRACE_S = 5.0  # past a block's wall limit, the host kills the sandbox
CPU_GRACE_S = 2.0  # past a block's CPU limit, counted over the whole sandbox (its cgroup), the host kills it
WATCH_S = 0.25  # how often the host reads that count while a block runs
IDLE_CPU_S = 2.0  # of CPU a file request may use (a thread a block left running included), past CPU_GRACE_S
FREEZE_S = 5.0  # for the sandbox's processes to stop when the host freezes them
SANDBOX_UIDS = 2**30  # as root, a kernel runs as host user SANDBOX_UIDS + 256 * pid + slot (`sandbox_uid`)
SLOTS = 256  # kernels of one host process with uids of their own (more at once share them)
INSTALL = (
    "install bubblewrap and libseccomp (Debian and Ubuntu: apt-get install bubblewrap libseccomp2) on a Linux "
    "kernel that allows user namespaces (sysctl user.max_user_namespaces > 0)"
)
STATUSES = ("ok", "error", "cpu limit", "wall limit", "memory limit", "output limit", "killed")


class SandboxUnavailable(RuntimeError):
    """No sandbox can start here; the message says why and how to get one."""


class KernelLost(Exception):
    """The kernel stopped answering or answered garbage."""


class CpuSpent(KernelLost):
    """The sandbox's processes used the block's CPU time, by the host's count: it is killed."""


@dataclass(frozen=True)
class Limits:
    cpu_s: float = 30.0  # CPU seconds per block
    wall_s: float = 60.0  # wall-clock seconds per block
    memory_bytes: int = 2 * 2**30  # address space of each process
    processes: int = 32  # processes and threads at once
    output_chars: int = 10_000  # of a block's stdout and stderr returned; the rest is cut, with a note
    file_bytes: int = 64 * 2**20  # the largest file a block may write
    folder_bytes: int = 256 * 2**20  # the working folder
    total_memory_bytes: int = 3 * 2**30  # the whole sandbox: every process, memfd, shm, tmpfs file, pipe, inode
    kernel_cpu_s: float = 1800.0  # CPU seconds of a kernel's whole life (a hard limit the code cannot raise)
    open_files: int = 256  # file descriptors per process
    inodes: int = 10_000  # files and folders in each writable mount (the working folder, /tmp)


@dataclass(frozen=True)
class BlockResult:
    output: str  # stdout and stderr, as written, cut to Limits.output_chars with a note
    seconds: float  # wall seconds
    status: str  # one of STATUSES ("killed": the host stopped the kernel; see `restarted`)
    restarted: bool = False  # the kernel was started again: its variables and files are lost


def check() -> None:
    """SandboxUnavailable unless a sandbox can start here (a real one is tried once per process)."""
    failure = _failure()
    if failure:
        raise SandboxUnavailable(failure)


@functools.cache
def _failure() -> str | None:
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not on the PATH: {INSTALL}"
    try:
        with Kernel({}, Limits(wall_s=10.0)) as kernel:
            result = kernel.run("import numpy")
    except SandboxUnavailable as error:
        return str(error)
    return None if result.status == "ok" else f"the sandbox's Python cannot import numpy: {result.output[-300:]}"


class Kernel:
    """One persistent kernel; `files` (relative names) are its working folder at the start and after a restart."""

    def __init__(self, files: Mapping[str, bytes], limits: Limits = Limits()):
        self.files = {_relative(name): bytes(data) for name, data in files.items()}
        self.limits = limits
        self.process: subprocess.Popen | None = None
        self.group: SandboxGroup | None = None
        self.uid: int | None = None  # the host user the code runs as (as root; `sandbox_uid`)
        self._start()

    def __enter__(self) -> Kernel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, code: str) -> BlockResult:
        started = time.perf_counter()
        used = None if self.group is None else self.group.cpu_seconds()
        try:
            reply = self._ask({"op": "run", "code": code}, self.limits.wall_s + GRACE_S, watch=self._cpu_watch(used))
            status, output, size = reply.get("status"), reply.get("output"), reply.get("bytes")
            if status not in STATUSES or not isinstance(output, str) or not _count(size):
                raise KernelLost(f"a reply of the wrong shape (status {str(status)!r:.40})")
        except KernelLost as lost:
            full = self.group is not None and self.group.full()
            self._restart()
            seconds = time.perf_counter() - started
            if full:
                output = (
                    f"stopped: the sandbox reached its memory total of {self.limits.total_memory_bytes:,} bytes "
                    f"(all its processes, memfds, shared memory, files and pipes together) after {seconds:.0f} s; "
                    "the kernel was started again"
                )
                return BlockResult(output, seconds, "memory limit", restarted=True)
            if isinstance(lost, CpuSpent):
                output = (
                    f"stopped: the sandbox's processes used the block's {self.limits.cpu_s:g} s of CPU time (counted "
                    f"by the host, all processes together) after {seconds:.0f} s; the kernel was started again"
                )
                return BlockResult(output, seconds, "cpu limit", restarted=True)
            output = f"stopped: the kernel was killed after {seconds:.0f} s ({lost}) and started again"
            return BlockResult(output, seconds, "killed", restarted=True)
        if len(output) > self.limits.output_chars or size > len(output.encode()):  # the host cuts it itself: the
            size = max(size, len(output.encode()))  # kernel's account of the output is the code's to forge
            output = output[: self.limits.output_chars]
            output += f"\n[output cut: {size:,} bytes in all, the first {self.limits.output_chars:,} characters shown]"
        return BlockResult(output, time.perf_counter() - started, status)

    def read_file(self, name: str, limit: int, cut: bool = False) -> bytes:
        """A file of the working folder, at most `limit` bytes (`cut`: its first `limit` bytes; else ValueError
        when it is larger); FileNotFoundError when there is none; OSError when the kernel was lost (it is started
        again)."""
        reply = self._request({"op": "read", "name": _relative(name), "limit": int(limit), "cut": cut}, limit)
        try:
            data = base64.b64decode(reply["data"], validate=True)
            if len(data) > limit:
                raise ValueError("more than was asked")
        except (KeyError, TypeError, ValueError) as bad:
            self._restart()
            raise OSError(f"the kernel answered a read with {safe(bad)} and was started again") from None
        return data

    def write_file(self, name: str, data: bytes) -> None:
        """Write a file of the working folder; OSError when the kernel was lost (it is started again)."""
        self._request({"op": "write", "name": _relative(name), "data": base64.b64encode(data).decode()}, 0)

    def close(self) -> None:
        """Kill the sandbox and everything in it; idempotent."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, 9)
            except ProcessLookupError:
                pass
            if self.group is not None:
                self.group.thaw()  # a frozen process (cgroup v1) dies only once thawed
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(OSError):  # a write the dead kernel never read cannot be flushed
                    stream.close()
            self.process = None
        if self.group is not None:
            self.group.remove()
            self.group = None
        if self.uid is not None:
            _UIDS.discard(self.uid)
            self.uid = None

    # --- the host's side of the conversation ------------------------------------------------------------
    def _start(self) -> None:
        if shutil.which("bwrap") is None:
            raise SandboxUnavailable(f"bubblewrap (bwrap) is not on the PATH: {INSTALL}")
        try:
            rules = syscalls.program()
        except (ImportError, OSError, RuntimeError) as error:
            raise SandboxUnavailable(f"the syscall filter cannot be built ({safe(error)}): {INSTALL}") from None
        root = os.geteuid() == 0
        self.uid = sandbox_uid() if root else None
        map_read, map_write = os.pipe()  # as root, bubblewrap waits on this until the host wrote its user map
        info_read, info_write = os.pipe()  # where bubblewrap names its child (for that map)
        command = _bwrap(self.limits, map_read, info_write) if root else _bwrap(self.limits)
        self.group = SandboxGroup.make(self.limits.total_memory_bytes)
        if self.group is not None:  # bubblewrap starts inside them, so everything the sandbox does is counted
            joins = " && ".join(f"echo $$ > {shlex.quote(str(procs))}" for procs in self.group.procs)
            command = ["/bin/sh", "-c", f'{joins} && exec "$@"', "sh", *command]
        errors = tempfile.TemporaryFile()  # noqa: SIM115 - bwrap's own errors, for the message
        try:
            try:
                self.process = subprocess.Popen(
                    command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                    start_new_session=True,
                    pass_fds=(map_read, info_write) if root else (),
                )
            finally:
                os.close(map_read)  # bubblewrap's ends
                os.close(info_write)
            if root:
                _map_users(info_read, self.uid, time.monotonic() + START_S)
                os.write(map_write, b"1")
            self._send(
                {
                    "limits": asdict(self.limits),
                    "files": {name: base64.b64encode(data).decode() for name, data in self.files.items()},
                    "user": self.uid,
                    "filter": base64.b64encode(rules).decode(),
                }
            )
            ready = self._receive(START_S, 4096)
        except (KernelLost, OSError, ValueError, KeyError) as lost:
            self.close()
            errors.seek(0)
            said = errors.read(2000).decode(errors="replace").strip()
            raise SandboxUnavailable(f"the sandbox did not start ({lost}; {said or 'no message'}): {INSTALL}") from None
        finally:
            errors.close()
            for end in (info_read, map_write):
                os.close(end)
        if ready != {"ready": True}:
            self.close()
            raise SandboxUnavailable("the sandbox's kernel did not say it was ready")
        if self.group is not None and not self.group.freeze():
            self.close()
            raise SandboxUnavailable("the sandbox could not be frozen between requests (its cgroup's freezer)")

    def _restart(self) -> None:
        self.close()
        self._start()

    def _request(self, message: dict, size: int) -> dict:
        """A file request: its reply, or the error it names raised here (OSError when the kernel was lost)."""
        used = None if self.group is None else self.group.cpu_seconds()
        try:
            reply = self._ask(message, self.limits.wall_s, 2 * size, self._cpu_watch(used, IDLE_CPU_S))
            if "error" in reply and not (isinstance(reply["error"], str) and isinstance(reply.get("message"), str)):
                raise KernelLost("an error reply of the wrong shape")
        except KernelLost as lost:
            self._restart()
            raise OSError(f"the kernel was lost ({lost}) and started again") from None
        if "error" in reply:
            error = FileNotFoundError if reply["error"] == "FileNotFoundError" else ValueError
            raise error(reply["message"][:500])
        return reply

    def _cpu_watch(self, used: float | None, budget: float | None = None):
        """While a request runs: CpuSpent once the sandbox's processes together used more than `budget` (default:
        the block's CPU limit) and CPU_GRACE_S (the host's own count, which no code inside can change), or None
        where there is no count."""
        if used is None:
            return None
        most = used + (self.limits.cpu_s if budget is None else budget) + CPU_GRACE_S

        def watch() -> None:
            now = self.group.cpu_seconds()
            if now is not None and now > most:
                raise CpuSpent(f"the sandbox used {now - used:.1f} s of CPU")

        return watch

    def _ask(self, message: dict, timeout_s: float, extra: int = 0, watch=None) -> dict:
        """Send a request with a fresh id and read its reply: KernelLost for a message nobody asked for (anything
        waiting on the channel before the request), a reply that is not an object or does not echo the id. The
        sandbox runs only meanwhile: it is thawed before the request and frozen after the reply."""
        if self.process is None:
            raise KernelLost("no kernel")
        if select.select([self.process.stdout], [], [], 0)[0]:
            raise KernelLost("a message on the channel that answered no request")
        ask = secrets.token_hex(8)
        self._thaw()
        try:
            self._send({**message, "id": ask})
            reply = self._receive(timeout_s, 8 * self.limits.output_chars + extra + 4096, watch)
        finally:
            self._freeze()
        if not isinstance(reply, dict) or reply.get("id") != ask:
            raise KernelLost("a reply that does not answer the request")
        return reply

    def _freeze(self) -> None:
        if self.group is not None and not self.group.freeze():
            raise KernelLost("the sandbox could not be frozen")

    def _thaw(self) -> None:
        if self.group is not None:
            self.group.thaw()

    def _send(self, message: dict) -> None:
        data = json.dumps(message).encode()
        try:
            self.process.stdin.write(struct.pack(">I", len(data)) + data)
            self.process.stdin.flush()
        except (OSError, ValueError) as error:
            raise KernelLost(f"it cannot be written to ({type(error).__name__})") from None

    def _receive(self, timeout_s: float, most: int, watch=None):
        deadline = time.monotonic() + timeout_s
        header = self._read(4, deadline, watch)
        (size,) = struct.unpack(">I", header)
        if size > most:
            raise KernelLost(f"a reply of {size:,} bytes")
        try:
            return json.loads(self._read(size, deadline, watch))
        except (ValueError, RecursionError):
            raise KernelLost("a reply that is not JSON") from None

    def _read(self, size: int, deadline: float, watch=None) -> bytes:
        data, stream = b"", self.process.stdout
        while len(data) < size:
            left = deadline - time.monotonic()
            if left <= 0:
                raise KernelLost("no answer in time")
            if not select.select([stream], [], [], min(left, WATCH_S) if watch else left)[0]:
                if watch is not None:
                    watch()
                continue
            chunk = os.read(stream.fileno(), size - len(data))
            if not chunk:
                raise KernelLost("it ended")
            data += chunk
        return data


_UIDS: set[int] = set()  # the uids of this process's live kernels


def sandbox_uid() -> int:
    """A host user for one kernel, unused by the host and by this process's other live kernels (up to SLOTS at once;
    then they share): SANDBOX_UIDS + SLOTS * pid + slot, so that other processes' kernels differ too. Sandboxes that
    run as users of their own cannot see each other's keys, processes or files, and count their processes apart."""
    base = SANDBOX_UIDS + SLOTS * (os.getpid() % (2**30 // SLOTS))
    slot = next((slot for slot in range(SLOTS) if base + slot not in _UIDS), len(_UIDS) % SLOTS)
    _UIDS.add(base + slot)
    return base + slot


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def safe(error: BaseException) -> str:
    """`Type: message`, short (an error raised while reading what the sandbox sent)."""
    text = f"{type(error).__name__}: {error}"
    return text[:200]


class SandboxGroup:
    """The cgroups of one sandbox (as root, where the host has the controllers), made before it starts as children
    of the host process's own groups, so that every process in it is counted and the host's own limits cover it.
    Memory: its limit bounds the sandbox as a whole, whatever holds the memory (anonymous maps of all its
    processes, memfds, /dev/shm and tmpfs files, pipe buffers, the kernel memory of its inodes); past it the
    kernel's OOM killer ends a process of the sandbox. CPU: the host reads the time all its processes used
    (`cpu_seconds`), a count no code inside can change. Freezer: the host stops every process of the sandbox
    between requests (`freeze`, `thaw`). cgroup v2 (one folder: memory.max, cpu.stat, cgroup.freeze) or v1 (the
    memory, cpuacct and freezer hierarchies)."""

    def __init__(self, folders: list[Path], cpu: Path | None, freezer: Path | None, memory: bool):
        self.folders, self.cpu, self.freezer, self.memory = folders, cpu, freezer, memory
        self.procs = [folder / "cgroup.procs" for folder in folders]

    @classmethod
    def make(cls, limit: int) -> SandboxGroup | None:
        """New groups with this memory limit (where the host can set one: `memory`), or None where none can be made
        (not root, no cgroups to write)."""
        if os.geteuid() != 0:
            return None
        name = f"wspbench-{os.getpid()}-{time.monotonic_ns()}"
        root = Path("/sys/fs/cgroup")
        own = _own_groups()
        if (root / "cgroup.controllers").exists():  # v2: one folder under the host's own group
            parent = root / own.get("", "/").lstrip("/")
            folder = _group(parent / name, {})
            if folder is None:
                return None
            memory = "memory" in _controllers(parent) and _settings(
                folder, {"memory.max": str(limit), "memory.swap.max": "0"}
            )
            return cls([folder], folder / "cpu.stat", folder / "cgroup.freeze", memory)
        folders, cpu, freezer, memory = [], None, None, False
        for controller, settings in (
            ("memory", {"memory.limit_in_bytes": str(limit), "memory.swappiness": "0"}),
            ("cpuacct", {}),
            ("freezer", {}),
        ):
            parent = root / controller / own.get(controller, "/").lstrip("/")
            folder = _group(parent / name, settings) if (parent / "cgroup.procs").exists() else None
            if folder is None:
                continue
            folders.append(folder)
            if controller == "memory":
                memory = True
            elif controller == "cpuacct":
                cpu = folder / "cpuacct.usage"
            else:
                freezer = folder / "freezer.state"
        return cls(folders, cpu, freezer, memory) if folders else None

    def full(self) -> bool:
        """Whether the group reached its memory limit (its OOM killer ran, or v1 counted a failed charge)."""
        if not self.memory:
            return False
        for name in ("memory.events", "memory.failcnt"):
            with contextlib.suppress(OSError, ValueError):
                text = (self.folders[0] / name).read_text()
                if name == "memory.failcnt":
                    return int(text) > 0
                return any(int(line.split()[1]) > 0 for line in text.splitlines() if line.startswith("oom_kill"))
        return False

    def cpu_seconds(self) -> float | None:
        """The CPU time the sandbox's processes used so far, all together, or None where it is not counted."""
        if self.cpu is None:
            return None
        try:
            text = self.cpu.read_text()
            if self.cpu.name == "cpu.stat":
                return next(int(line.split()[1]) for line in text.splitlines() if line.startswith("usage_usec")) / 1e6
            return int(text) / 1e9
        except (OSError, ValueError, StopIteration):
            return None

    def freeze(self) -> bool:
        """Stop every process of the sandbox (until `thaw`); whether they stopped (True where there is no freezer:
        nothing to wait for)."""
        if self.freezer is None:
            return True
        v2 = self.freezer.name == "cgroup.freeze"
        try:
            self.freezer.write_text("1" if v2 else "FROZEN")
            deadline = time.monotonic() + FREEZE_S
            while time.monotonic() < deadline:
                if v2 and "frozen 1" in (self.freezer.parent / "cgroup.events").read_text().splitlines():
                    return True
                if not v2 and self.freezer.read_text().strip() == "FROZEN":
                    return True
                time.sleep(0.001)
        except OSError:
            pass
        return False

    def thaw(self) -> None:
        if self.freezer is not None:
            with contextlib.suppress(OSError):
                self.freezer.write_text("0" if self.freezer.name == "cgroup.freeze" else "THAWED")

    def remove(self) -> None:
        """Remove the groups once their processes are gone (a killed sandbox's take a moment to end)."""
        deadline = time.monotonic() + 2.0
        for folder in self.folders:
            while True:
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left behind, empty soon; named wspbench-<pid>-<ns>
                    time.sleep(0.02)


def _own_groups() -> dict[str, str]:
    """The host process's own cgroups, by controller ("" for v2's single hierarchy): /proc/self/cgroup."""
    found = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                found[controller] = path
    return found


def _controllers(parent: Path) -> set[str]:
    """The v2 controllers that `parent` gives its children, enabling memory where the host may (it cannot in a group
    that holds processes itself, unless that group is the root)."""
    with contextlib.suppress(OSError):
        given = set((parent / "cgroup.subtree_control").read_text().split())
        if "memory" not in given and "memory" in (parent / "cgroup.controllers").read_text().split():
            (parent / "cgroup.subtree_control").write_text("+memory")
            given.add("memory")
        return given
    return set()


def _settings(folder: Path, settings: dict[str, str]) -> bool:
    """Write a group's settings: whether the first (the one that matters) was written (optional ones, such as swap
    settings, may be missing)."""
    first, *rest = settings.items()
    try:
        (folder / first[0]).write_text(first[1])
    except OSError:
        return False
    for key, value in rest:
        with contextlib.suppress(OSError):
            (folder / key).write_text(value)
    return True


def _group(folder: Path, settings: dict[str, str]) -> Path | None:
    """A new cgroup folder with these settings written (`_settings`), or None."""
    try:
        folder.mkdir()
    except OSError:
        return None
    if settings and not _settings(folder, settings):
        with contextlib.suppress(OSError):
            folder.rmdir()
        return None
    return folder


def memory_route() -> str:
    """How this host bounds a sandbox's memory as a whole (docs/agent.md): "cgroup", or "none" (per process only)."""
    group = SandboxGroup.make(2**30)
    if group is None:
        return "none"
    group.remove()
    return "cgroup" if group.memory else "none"


def _map_users(info: int, uid: int, deadline: float) -> None:
    """As root, give the sandbox's user namespace the map "0 -> 0, uid -> uid" (bubblewrap waits for it):
    bubblewrap sets up its mounts as root, then the kernel drops to `uid` for good before it reads any code, so
    the model's code runs as an unprivileged host user. (bubblewrap's own map, "0 -> 0", would leave it host
    root: no capabilities, but the owner of /proc/sys, whose global settings root may write.)"""
    text = b""
    while not text.rstrip().endswith(b"}"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([info], [], [], left)[0] or len(text) > 4096:
            raise KernelLost("bubblewrap did not name its child")
        chunk = os.read(info, 4096)
        if not chunk:
            raise KernelLost("bubblewrap ended before its child started")
        text += chunk
    child = int(json.loads(text)["child-pid"])
    for kind in ("uid", "gid"):
        Path(f"/proc/{child}/{kind}_map").write_text(f"0 0 1\n{uid} {uid} 1\n")


def _bwrap(limits: Limits, map_fd: int | None = None, info_fd: int | None = None) -> list[str]:
    """The bubblewrap command of a kernel: the system's libraries, the interpreter and numpy read-only, a private
    working folder and /tmp, new namespaces, no host environment, no capabilities and no nested user namespaces
    (as root: the kernel keeps the capabilities it needs to drop to NOBODY and forbid those, and does it first)."""
    import numpy

    prefix = Path(sys.base_prefix).resolve()
    python = Path(sys.executable).resolve()
    numpy_dir = Path(numpy.__file__).resolve().parent
    command = ["bwrap", "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if map_fd is None:
        command += ["--disable-userns"]  # (bubblewrap cannot combine it with a map written by the host)
    else:
        command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SYS_RESOURCE"]
        command += ["--cap-add", "CAP_SYS_ADMIN"]  # to bound the inodes of its tmpfs mounts, then dropped
        command += ["--userns-block-fd", str(map_fd), "--info-fd", str(info_fd)]

    def bind(source: Path | str, target: Path | str) -> None:
        """Bind read-only, its new parent folders readable by all (bubblewrap makes them for root alone)."""
        for parent in reversed(PurePosixPath(target).parents[:-1]):
            command.extend(["--perms", "0755", "--dir", str(parent)])
        command.extend(["--ro-bind", str(source), str(target)])

    for system in ("/usr", "/bin", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/alternatives"):
        if os.path.exists(system):
            bind(system, system)
    bind(prefix, prefix)
    for packages in _package_folders(prefix):
        command += ["--tmpfs", str(packages)]  # hidden: numpy alone is bound, below
    if not python.is_relative_to(prefix):
        bind(python, python)
    bind(numpy_dir, f"{SITE}/numpy")
    libs = numpy_dir.with_name("numpy.libs")
    if libs.is_dir():
        bind(libs, f"{SITE}/numpy.libs")
    bind(KERNEL, "/sandbox/kernel.py")
    command += ["--proc", "/proc", "--dev", "/dev"]
    command += ["--perms", "0555", "--size", "4096", "--tmpfs", "/dev/pts"]  # no ptys: not even a private pool
    command += ["--perms", "0555", "--size", "4096", "--tmpfs", "/dev/shm"]  # no POSIX shared memory
    command += ["--perms", "1777", "--size", str(limits.file_bytes + 2**20), "--tmpfs", "/tmp"]
    command += ["--perms", "0777", "--size", str(limits.folder_bytes), "--tmpfs", FOLDER]
    command += ["--chdir", FOLDER, "--remount-ro", "/"]
    environment = {"PATH": "/usr/bin:/bin", "HOME": FOLDER, "LANG": "C.UTF-8", "PYTHONPATH": SITE}
    environment |= {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    command += ["--clearenv"] + [part for name, value in environment.items() for part in ("--setenv", name, value)]
    return command + [str(python), "-I", "-S", "-u", "/sandbox/kernel.py"]  # sys.path: kernel.py sets it


def _package_folders(prefix: Path) -> list[Path]:
    """The host's folders of installed Python packages that the sandbox's /usr and prefix would show (wspbench, with
    its reference answers, may be installed in one)."""
    patterns = ["lib/python3*/site-packages", "local/lib/python3*/*-packages", "lib/python3*/dist-packages"]
    found = {path.resolve() for root in {prefix, Path("/usr")} for pattern in patterns for path in root.glob(pattern)}
    return sorted(
        path for path in found if path.is_dir() and (path.is_relative_to(prefix) or path.is_relative_to("/usr"))
    )


def _relative(name: str) -> str:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\x00" in name:
        raise ValueError(f"{name!r:.80} is not a file of the working folder")
    return str(path)
