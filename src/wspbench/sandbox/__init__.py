"""A persistent Python kernel for a model's code, in a bubblewrap sandbox (docs/agent.md: the threat model).

What it guarantees: the code sees a private working folder (a size-limited tmpfs holding the files it was given)
and a private /tmp, both in memory and gone with the kernel, the standard library and numpy, read-only (the rest
of its root is read-only too), and nothing else of the host: new user, pid, network, IPC and UTS namespaces, no
host environment variables, no home, no repository, no wspbench (whose package ships reference answers). It runs
without capabilities, and as an unprivileged host user (nobody) when the host runs as root. Each block has
CPU-time, wall-clock, memory, file-size and output limits; processes by RLIMIT_NPROC (which binds because the
code never runs as host root, and counts per sandbox since each has its own user namespace), and every process a
block starts is killed when it ends. A kernel that stops answering, or answers garbage, is
killed and started again (its variables and files lost, and the result says so). Without a usable sandbox
nothing runs: `check` and `Kernel` raise SandboxUnavailable, saying how to get one.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
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

KERNEL = Path(__file__).with_name("kernel.py")  # the sandbox's side, bound read-only into it
FOLDER = "/work"  # the working folder inside the sandbox
SITE = "/sandbox/site"  # numpy's folder is bound here, the only package on sys.path
START_S = 30.0  # for the sandbox to start and load its files
GRACE_S = 5.0  # past a block's wall limit, the host kills the sandbox
CPU_GRACE_S = 2.0  # past a block's CPU limit, counted over the whole sandbox (its cgroup), the host kills it
WATCH_S = 0.25  # how often the host reads that count while a block runs
NOBODY = 65534  # as root, the kernel runs as this host user (see _map_users)
INSTALL = (
    "install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap) on a Linux kernel that allows user "
    "namespaces (sysctl user.max_user_namespaces > 0)"
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
            status, output, size = reply["status"], str(reply["output"]), int(reply["bytes"])
            if status not in STATUSES:
                raise KernelLost(f"an unknown status {status!r:.40}")
        except (KernelLost, KeyError, TypeError, ValueError) as lost:
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
        when it is larger); FileNotFoundError when there is none."""
        reply = self._request({"op": "read", "name": _relative(name), "limit": int(limit), "cut": cut}, limit)
        data = base64.b64decode(reply["data"])
        if len(data) > limit:
            self._restart()
            raise OSError("the kernel answered more than was asked and was started again")
        return data

    def write_file(self, name: str, data: bytes) -> None:
        self._request({"op": "write", "name": _relative(name), "data": base64.b64encode(data).decode()}, 0)

    def close(self) -> None:
        """Kill the sandbox and everything in it; idempotent."""
        if self.process is not None:
            try:
                os.killpg(self.process.pid, 9)
            except ProcessLookupError:
                pass
            self.process.wait()
            for stream in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(OSError):  # a write the dead kernel never read cannot be flushed
                    stream.close()
            self.process = None
        if self.group is not None:
            self.group.remove()
            self.group = None

    # --- the host's side of the conversation ------------------------------------------------------------
    def _start(self) -> None:
        if shutil.which("bwrap") is None:
            raise SandboxUnavailable(f"bubblewrap (bwrap) is not on the PATH: {INSTALL}")
        root = os.geteuid() == 0
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
                _map_users(info_read, time.monotonic() + START_S)
                os.write(map_write, b"1")
            self._send(
                {
                    "limits": asdict(self.limits),
                    "files": {name: base64.b64encode(data).decode() for name, data in self.files.items()},
                    "user": NOBODY if root else None,
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

    def _restart(self) -> None:
        self.close()
        self._start()

    def _request(self, message: dict, size: int) -> dict:
        """A file request: its reply, or the error it names raised here."""
        try:
            reply = self._ask(message, self.limits.wall_s, 2 * size)
        except KernelLost:
            self._restart()
            raise OSError("the kernel stopped answering and was started again") from None
        if "error" in reply:
            error = FileNotFoundError if reply["error"] == "FileNotFoundError" else ValueError
            raise error(str(reply.get("message", ""))[:500])
        return reply

    def _cpu_watch(self, used: float | None):
        """While a block runs: CpuSpent once the sandbox's processes together used more than the block's CPU limit
        (the host's own count, which no code inside can change), or None where there is no count."""
        if used is None:
            return None
        most = used + self.limits.cpu_s + CPU_GRACE_S

        def watch() -> None:
            now = self.group.cpu_seconds()
            if now is not None and now > most:
                raise CpuSpent(f"the sandbox used {now - used:.1f} s of CPU")

        return watch

    def _ask(self, message: dict, timeout_s: float, extra: int = 0, watch=None) -> dict:
        self._send(message)
        reply = self._receive(timeout_s, 8 * self.limits.output_chars + extra + 4096, watch)
        if not isinstance(reply, dict):
            raise KernelLost("a reply that is not an object")
        return reply

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
            return json.loads(self._read(size, deadline))
        except ValueError:
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


class SandboxGroup:
    """The cgroups of one sandbox (as root, where the host has the controllers), made before it starts, so that
    every process in it is counted. Memory: its limit bounds the sandbox as a whole, whatever holds the memory
    (anonymous maps of all its processes, memfds, /dev/shm and tmpfs files, pipe buffers, the kernel memory of
    its inodes); past it the kernel's OOM killer ends a process of the sandbox. CPU: the host reads the time all
    its processes used (`cpu_seconds`), a count no code inside can change. cgroup v2 (one folder: memory.max,
    cpu.stat) or v1 (the memory and cpuacct hierarchies)."""

    def __init__(self, folders: list[Path], cpu: Path | None):
        self.folders, self.cpu = folders, cpu
        self.procs = [folder / "cgroup.procs" for folder in folders]

    @classmethod
    def make(cls, limit: int) -> SandboxGroup | None:
        """New groups with this memory limit, or None where none can be made (not root, no memory controller)."""
        if os.geteuid() != 0:
            return None
        name = f"wspbench-{os.getpid()}-{time.monotonic_ns()}"
        v2, v1 = Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/memory")
        if (v2 / "cgroup.controllers").exists():
            memory = _group(v2 / name, {"memory.max": str(limit), "memory.swap.max": "0"})
            return None if memory is None else cls([memory], memory / "cpu.stat")
        if (v1 / "memory.limit_in_bytes").exists():
            memory = _group(v1 / name, {"memory.limit_in_bytes": str(limit), "memory.swappiness": "0"})
            if memory is None:
                return None
            cpu = _group(Path("/sys/fs/cgroup/cpuacct") / name, {})
            return cls([memory] + ([cpu] if cpu else []), None if cpu is None else cpu / "cpuacct.usage")
        return None

    def full(self) -> bool:
        """Whether the group reached its memory limit (its OOM killer ran, or v1 counted a failed charge)."""
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


def _group(folder: Path, settings: dict[str, str]) -> Path | None:
    """A new cgroup folder with these files written (optional ones, such as swap settings, may be missing)."""
    try:
        folder.mkdir()
        first, *rest = list(settings.items()) or [(None, None)]
        if first[0] is not None:
            (folder / first[0]).write_text(first[1])
        for key, value in rest:
            with contextlib.suppress(OSError):
                (folder / key).write_text(value)
        return folder
    except OSError:
        with contextlib.suppress(OSError):
            folder.rmdir()
        return None


def memory_route() -> str:
    """How this host bounds a sandbox's memory as a whole (docs/agent.md): "cgroup", or "none" (per process only)."""
    group = SandboxGroup.make(2**30)
    if group is None:
        return "none"
    group.remove()
    return "cgroup"


def _map_users(info: int, deadline: float) -> None:
    """As root, give the sandbox's user namespace the map "0 -> 0, NOBODY -> NOBODY" (bubblewrap waits for it):
    bubblewrap sets up its mounts as root, then the kernel drops to NOBODY for good before it reads any code, so
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
        Path(f"/proc/{child}/{kind}_map").write_text(f"0 0 1\n{NOBODY} {NOBODY} 1\n")


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
