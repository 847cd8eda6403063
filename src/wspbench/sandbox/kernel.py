"""The sandbox's side of a kernel: run by the sandboxed Python (standard library and numpy only; it never sees
wspbench), it executes a model's blocks in one persistent namespace. `wspbench/sandbox/__init__.py` starts it
and is the only thing it talks to: one message at a time, each a 4-byte length and a JSON object, on the file
descriptors that were its stdin and stdout, moved to high numbers (a block's own output goes to a capture file
instead). Started by a host running as root, it first drops to an unprivileged user; then it loads the host's syscall
filter; only then does it read any code. Each reply echoes its request's id (the host refuses any other).

Per block (its signal handlers, sys.stdout and sys.stderr set again, whatever the last block did): the CPU
limit is the soft RLIMIT_CPU moved forward (SIGXCPU stops the block, every second until it ends), the wall limit
a timer (SIGALRM), both raised as exceptions that `except Exception` does not catch; memory is RLIMIT_AS, file
size RLIMIT_FSIZE (a write past it fails); after the block every other process in the sandbox's pid namespace is
killed.
"""

import base64
import errno
import fcntl
import json
import os
import resource
import signal
import struct
import sys
import traceback

CAPTURE = "/tmp/.block-output"  # a block's stdout and stderr (outside the working folder)
SITE = "/sandbox/site"  # numpy, bound here by the host
CHANNEL_FD = 200  # the host's pipes are moved to this file descriptor and the next
MAX_REQUEST = 64 * 2**20
IDLE_CPU_S = 2  # of CPU between blocks (see idle)
KERNEL_LIMITS = {}  # the limits the host sent (main)


class CpuLimit(BaseException):
    """The block used its CPU time."""


class WallLimit(BaseException):
    """The block used its wall time."""


def read_exact(fd, size):
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def receive(fd):
    (size,) = struct.unpack(">I", read_exact(fd, 4))
    if size > MAX_REQUEST:
        raise ValueError("request too large")
    return json.loads(read_exact(fd, size))


def send(fd, message):
    data = json.dumps(message).encode()
    data = struct.pack(">I", len(data)) + data
    while data:
        data = data[os.write(fd, data) :]


def raiser(error):
    def handler(signum, frame):
        raise error

    return handler


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(code, namespace, limits):
    """One block, its output captured; (status, output, output size in bytes)."""
    capture = os.open(CAPTURE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(capture, 1)
    os.dup2(capture, 2)
    os.close(capture)
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    signal.signal(signal.SIGXCPU, raiser(CpuLimit))
    signal.signal(signal.SIGALRM, raiser(WallLimit))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the file limit fails instead
    status = "ok"
    try:
        set_cpu_limit(cpu_seconds() + limits["cpu_s"], limits)
        signal.setitimer(signal.ITIMER_REAL, limits["wall_s"])
        exec(compile(code, "<block>", "exec"), namespace)
    except CpuLimit:
        status = report("cpu limit", f"stopped: the block used its {limits['cpu_s']:g} s of CPU time")
    except WallLimit:
        status = report("wall limit", f"stopped: the block ran for its {limits['wall_s']:g} s of wall time")
    except MemoryError:
        status = report("memory limit", f"stopped: MemoryError (each process has {limits['memory_bytes']:,} bytes)")
    except OSError as error:
        if error.errno != errno.EFBIG:
            status = report("error", error)
        else:
            status = report("output limit", f"stopped: a file reached the limit of {limits['file_bytes']:,} bytes")
    except BaseException as error:  # noqa: BLE001 - the block's error is its output; SystemExit included
        status = report("error", error)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        idle()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - the block may have put anything there
            pass
    end_other_processes()
    return status, *captured(limits["output_chars"])


def idle():
    """Between blocks, a thread a block left running may use IDLE_CPU_S of CPU (per request), then SIGXCPU's
    default action ends the kernel, whatever thread it reaches (the host starts a new one)."""
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    set_cpu_limit(cpu_seconds() + IDLE_CPU_S, KERNEL_LIMITS)


def set_cpu_limit(seconds, limits):
    """The soft CPU limit at `seconds`, under the hard one (the kernel's whole life, set once in `main`: no block
    can raise it). A block may raise its own soft limit up to that hard one; the host's wall limit still ends it."""
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    soft = int(seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))


def report(status, what):
    """Write why the block stopped (a message, or an exception's traceback without this file's frame) to its
    output, as far as the file limit lets it; the status."""
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    try:
        if isinstance(what, BaseException):
            traceback.print_exception(type(what), what, what.__traceback__.tb_next)
        else:
            print(what, file=sys.stderr)
    except Exception:  # noqa: BLE001 - a full capture file, or an exception whose str() raises
        pass
    return status


def end_other_processes():
    """Kill every process the block left in the sandbox (kill(-1) reaches only this pid namespace), and reap them."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:  # every child is dying: wait for each (orphans of theirs are bubblewrap's init's to reap)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break


def captured(chars):
    """The block's output: its first `chars` characters, and the size of all of it in bytes."""
    size = os.path.getsize(CAPTURE)
    with open(CAPTURE, "rb") as file:
        text = file.read(4 * chars).decode("utf-8", "replace")
    return text[:chars], size


def inside(name):
    """A path of the working folder (a plain relative name), else ValueError."""
    path = os.path.normpath(name)
    if os.path.isabs(path) or path.startswith(".."):
        raise ValueError(f"{name!r} is not a file of the working folder")
    return path


def write(name, data):
    path = inside(name)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as file:
        file.write(data)


def serve(requests, replies, namespace, limits):
    """Answer the host's requests, one at a time, each reply echoing its request's id."""
    while True:
        request = receive(requests)
        answer = {"id": request.get("id")}
        try:
            if request["op"] == "run":
                status, output, size = run(request["code"], namespace, limits)
                answer.update(status=status, output=output, bytes=size)
            elif request["op"] == "read":
                path = inside(request["name"])
                if not os.path.isfile(path):
                    raise FileNotFoundError(f"no file {request['name']!r} in the working folder")
                if os.path.getsize(path) > request["limit"] and not request["cut"]:
                    raise ValueError(f"{request['name']!r} is over the limit of {request['limit']:,} bytes")
                with open(path, "rb") as file:
                    data = file.read(request["limit"])
                answer["data"] = base64.b64encode(data).decode()
            elif request["op"] == "write":
                write(request["name"], base64.b64decode(request["data"]))
        except (OSError, ValueError) as error:
            answer.update(error=type(error).__name__, message=str(error)[:500])
        send(replies, answer)
        idle()


def bound_inodes(limits):
    """Remount the writable tmpfs mounts with an inode limit as well as their size (bubblewrap sets only the
    size): a flood of empty files stops at INODES instead of growing the host's kernel memory."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    remount, nosuid, nodev = 32, 2, 4  # MS_REMOUNT, MS_NOSUID, MS_NODEV
    for path, size, mode in (("/tmp", limits["file_bytes"] + 2**20, "1777"), ("/work", limits["folder_bytes"], "777")):
        options = f"size={size},nr_inodes={limits.get('inodes', 10000)},mode={mode}".encode()
        if libc.mount(b"none", path.encode(), b"tmpfs", remount | nosuid | nodev, options) != 0:
            raise SystemExit(f"the kernel could not bound the inodes of {path}: errno {ctypes.get_errno()}")


def drop_privileges(user):
    """As root (a host that runs as root), become `user` for good: no capabilities, no way back, and no new user
    namespace (what bubblewrap's --disable-userns does, which it cannot do with a map the host wrote)."""
    with open("/proc/sys/user/max_user_namespaces", "w") as limit:
        limit.write("0")
    os.setgroups([])
    os.setresgid(user, user, user)
    os.setresuid(user, user, user)
    with open("/proc/self/status") as file:
        status = dict(line.split(":", 1) for line in file.read().splitlines() if ":" in line)
    if os.getuid() != user or int(status["CapEff"], 16) or int(status["CapPrm"], 16):
        raise SystemExit("the kernel could not drop its privileges")


def install_filter(program):
    """Load the host's syscall filter (a classic BPF program built by `wspbench/sandbox/syscalls.py`) for good: it
    holds for this process and every process it starts, and no code can lift it."""
    import ctypes

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    buffer = ctypes.create_string_buffer(program, len(program))
    rules = Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    zero = ctypes.c_ulong(0)
    no_new_privs, set_seccomp, filter_mode = 38, 22, 2  # PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER
    if libc.prctl(no_new_privs, ctypes.c_ulong(1), zero, zero, zero) != 0:
        raise SystemExit(f"the kernel could not set no_new_privs: errno {ctypes.get_errno()}")
    if libc.prctl(set_seccomp, ctypes.c_ulong(filter_mode), ctypes.byref(rules), zero, zero) != 0:
        raise SystemExit(f"the kernel could not load its syscall filter: errno {ctypes.get_errno()}")


def main():
    requests = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, CHANNEL_FD)
    replies = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, CHANNEL_FD)
    os.closerange(3, CHANNEL_FD)  # bubblewrap's own pipes to the host
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.path.append(SITE)
    start = receive(requests)
    with open("/proc/self/oom_score_adj", "w") as oom:  # inherited: when memory runs out, the sandbox goes first
        oom.write("1000")
    limits = start["limits"]
    if start["user"] is not None:
        bound_inodes(limits)
        drop_privileges(start["user"])
    install_filter(base64.b64decode(start["filter"]))
    for name, data in start["files"].items():
        write(name, base64.b64decode(data))
    KERNEL_LIMITS.update(limits)
    memory, size = limits["memory_bytes"], limits["file_bytes"]
    cpu, files = int(limits.get("kernel_cpu_s", 1800)), int(limits.get("open_files", 256))
    # every limit soft == hard: without CAP_SYS_RESOURCE (dropped above, or never held) no block can raise one
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    idle()
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    send(replies, {"ready": True})
    serve(requests, replies, namespace, limits)


if __name__ == "__main__":
    main()
