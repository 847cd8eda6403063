"""The agent protocol's sandbox (`wspbench/sandbox/`), each guarantee proved by a hostile block in a real
bubblewrap sandbox: no network, no host environment or files, no writes outside its folder, and a fork bomb, a
memory bomb, an endless loop, a sleep and a flood of output each stopped within its limit, after which the
kernel still serves the next block (with its variables, unless it had to be started again)."""

from __future__ import annotations

import glob
import json
import os
import site
import socket
import sys
import time
from pathlib import Path

import numpy
import pytest

import wspbench
from tests import conftest
from tests.conftest import need_sandbox
from wspbench import sandbox
from wspbench.sandbox import Kernel, Limits, SandboxUnavailable, _failure

LIMITS = Limits(cpu_s=2.0, wall_s=3.0, memory_bytes=768 * 2**20, output_chars=2000, file_bytes=8 * 2**20)


@pytest.fixture
def kernel():
    need_sandbox()
    with Kernel({"task.md": b"the task", "data/w.npy": b"\x93NUMPY"}, LIMITS) as started:
        assert started.run("marker = 41 + 1").status == "ok"
        yield started


def still_serves(kernel: Kernel, restarted: bool = False) -> None:
    """The next block runs, and the variable set before the hostile one is there (gone after a restart)."""
    result = kernel.run("print(marker)")
    if restarted:
        assert result.status == "error" and "NameError" in result.output
    else:
        assert (result.status, result.output) == ("ok", "42\n")


def test_state_files_and_numpy(kernel):
    result = kernel.run("import numpy as np, os\nprint(sorted(os.listdir('.')), os.getcwd(), np.arange(3).sum())")
    assert result.output == "['data', 'task.md'] /work 3\n" and result.status == "ok"
    assert kernel.run("open('notes.txt', 'w').write('x' * 100)").status == "ok"
    assert kernel.read_file("notes.txt", 100) == b"x" * 100 and kernel.read_file("task.md", 4, cut=True) == b"the "
    with pytest.raises(ValueError, match="over the limit"):
        kernel.read_file("notes.txt", 99)
    with pytest.raises(FileNotFoundError):
        kernel.read_file("missing.txt", 10)
    for name in ("/etc/hostname", "../outside", ""):
        with pytest.raises(ValueError, match="not a file of the working folder"):
            kernel.read_file(name, 10)
    kernel.write_file("candidate.txt", b"y")
    assert kernel.run("print(open('candidate.txt').read())").output == "y\n"
    still_serves(kernel)


NETWORK = """
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2)
    print("connected")
except OSError as error:
    print("refused", type(error).__name__)
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    print("reached the internet")
except OSError as error:
    print("no route", type(error).__name__)
try:
    socket.getaddrinfo("example.com", 80)
    print("resolved")
except OSError as error:
    print("no name service", type(error).__name__)
"""


def test_no_network(kernel):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        result = kernel.run(NETWORK.format(port=port))
        server.settimeout(0.5)
        with pytest.raises(TimeoutError):
            server.accept()  # nothing reached the host's socket
    assert result.output.startswith("refused") and "no route" in result.output and "no name service" in result.output
    assert kernel.run("import os; print(sorted(os.listdir('/sys/class/net')) if os.path.exists('/sys') else '-')")
    still_serves(kernel)


def test_no_host_environment_or_files(tmp_path, monkeypatch):
    need_sandbox()
    secret = "sk-test-secret-1234"
    home = tmp_path / "home"
    home.mkdir()
    (home / "credentials").write_text(secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("HOME", str(home))
    repository = Path(wspbench.__file__).resolve().parents[2]
    folders = ["/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages", f"{sys.base_prefix}/lib/*/*-pa*"]
    packages = [path for pattern in folders for path in glob.glob(pattern)] + site.getsitepackages()
    probe = f"""
import os, glob
found = [key for key, value in os.environ.items() if {secret!r} in value or key == "OPENAI_API_KEY"]
for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline"):
    try:
        if {secret!r}.encode() in open(path, "rb").read():
            found.append(path)
    except OSError:
        pass
for path in ({str(home / "credentials")!r}, {str(repository)!r}, {str(Path(wspbench.__file__))!r}, "/root/.bashrc"):
    found += [path] if os.path.exists(path) else []
for path in {packages!r}:
    found += [path] if os.path.isdir(path) and os.listdir(path) else []
try:
    import wspbench
    found.append("wspbench")
except ImportError:
    pass
print(found, os.environ["HOME"])
"""
    with Kernel({}, LIMITS) as kernel:
        assert kernel.run(probe).output == "[] /work\n"
        assert kernel.run("print(40 + 2)").output == "42\n"


UNDO_THE_SANDBOX = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
tried = {{"uid": os.getuid(), "capabilities": [int(status[name], 16) for name in ("CapEff", "CapPrm")]}}
tried["no new privileges"] = status["NoNewPrivs"].strip() == "1"
tried["init"] = open("/proc/1/status").read().count("CapEff:\\t0000000000000000")
for name, call in [
    ("unhide site-packages", lambda: libc.umount2({site!r}.encode(), 2)),
    ("remount /usr writable", lambda: libc.mount(b"none", b"/usr", None, 32 | 4096, None)),
    ("new user namespace", lambda: libc.unshare(0x10000000)),
]:
    tried[name] = call() == 0
tried["global sysctls writable"] = os.access("/proc/sys/kernel/core_pattern", os.W_OK)
print(json.dumps(tried))
"""


def test_the_code_runs_without_privileges_and_cannot_undo_its_sandbox(kernel):
    """As root on the host, bubblewrap keeps every capability in its user namespace and maps its user to host
    root: the kernel drops to an unprivileged user first, so it can neither remount nor write global sysctls."""
    result = kernel.run(UNDO_THE_SANDBOX.format(site=str(Path(os.__file__).parent / "site-packages")))
    tried = json.loads(result.output)
    assert tried["capabilities"] == [0, 0] and tried["uid"] != 0 and tried["no new privileges"] and tried["init"]
    assert not tried["unhide site-packages"] and not tried["remount /usr writable"]
    assert not tried["global sysctls writable"] and not tried["new user namespace"]
    still_serves(kernel)


def test_a_block_cannot_take_the_next_ones_limits_or_output(kernel):
    changed = "import signal, sys\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nsys.stdout = sys.stderr = 5"
    assert kernel.run(changed).status == "ok"
    result = kernel.run("import time\nprint('sleeping')\ntime.sleep(10**6)")
    assert (result.status, result.restarted) == ("wall limit", False) and result.output.startswith("sleeping\n")
    still_serves(kernel)


def test_a_thread_left_spinning_after_its_block_runs_no_more_until_the_next_block(kernel):
    """As root the host freezes the sandbox between requests (its cgroup's freezer): a thread a block left spinning
    stops with it, its CPU time counted in the blocks that follow. Without a freezer the kernel lets it use
    IDLE_CPU_S between blocks, then SIGXCPU ends the kernel."""
    spin = "import threading\ndef spin():\n    while True:\n        pass\nthreading.Thread(target=spin).start()"
    assert kernel.run(spin).status == "ok"
    if kernel.group is not None and kernel.group.freezer is not None:
        before = kernel.group.cpu_seconds()
        time.sleep(2)
        assert kernel.group.cpu_seconds() - before < 0.05
        still_serves(kernel)
        return
    ended = time.monotonic() + 20  # IDLE_CPU_S (2 s of CPU), a second of rounding, and a loaded machine's share
    while kernel.process.poll() is None and time.monotonic() < ended:
        time.sleep(0.1)
    assert kernel.process.poll() is not None
    result = kernel.run("print(1)")
    assert result.status == "killed" and result.restarted
    still_serves(kernel, restarted=True)


def test_garbage_on_the_kernels_channel_restarts_it(kernel):
    result = kernel.run("import os\nos.write(max(int(fd) for fd in os.listdir('/proc/self/fd')), b'\\xff' * 64)")
    assert result.status == "killed" and result.restarted
    still_serves(kernel, restarted=True)


def test_nothing_is_written_outside_the_working_folder(kernel, tmp_path):
    name = f"wspbench-escape-{os.getpid()}-{time.time_ns()}"
    targets = ["/tmp", "/", "/usr", str(Path(os.__file__).parent), str(Path(numpy.__file__).parent), str(tmp_path)]
    attempt = "try:\n    open({path!r}, 'w').write('x')\n    print('wrote', {target!r})\nexcept OSError:\n    pass"
    code = "\n".join(attempt.format(path=f"{target}/{name}", target=target) for target in targets)
    result = kernel.run(code)
    assert result.output == "wrote /tmp\n"  # the sandbox's own /tmp, a private tmpfs (its root is read-only)
    assert not [target for target in targets if Path(target, name).exists()]
    still_serves(kernel)


FORK_BOMBS = [
    "import os, time\nwhile True:\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)",
    "import subprocess, sys\nwhile True:\n    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])",
]
MEMORY_BOMBS = [  # allocations the limit refuses at once (touching pages runs at ~125 MB/s on this VM)
    "import numpy\nx = numpy.ones(10**10)",
    "import numpy\nx = []\nwhile True:\n    x.append(numpy.empty(10**7))",
    "x = 'x' * 10**10",
]
FLOODS = ["while True:\n    print('y' * 1000)", "import os\nwhile True:\n    os.write(1, b'z' * 10**6)"]


@pytest.mark.parametrize("bomb", FORK_BOMBS)
def test_a_fork_bomb_stops_at_the_process_limit_and_its_processes_end_with_the_block(kernel, bomb):
    result = kernel.run(bomb)
    assert result.status == "error" and "Resource temporarily unavailable" in result.output
    assert result.seconds < LIMITS.wall_s + 1
    count = kernel.run("import os\nprint(len([p for p in os.listdir('/proc') if p.isdigit()]))")
    assert int(count.output) <= 3  # bubblewrap's init, the kernel (and the listing's own process at most)
    still_serves(kernel)


@pytest.mark.parametrize("bomb", MEMORY_BOMBS)
def test_a_memory_bomb_stops_at_the_memory_limit(kernel, bomb):
    result = kernel.run(bomb)
    assert result.status == "memory limit" and "MemoryError" in result.output
    still_serves(kernel)


def test_when_the_host_runs_out_of_memory_the_sandbox_goes_first(kernel):
    """RLIMIT_AS bounds each process, not their sum (up to 32 of them): the host's OOM killer picks these first."""
    code = "import subprocess\nprint(subprocess.run(['cat', '/proc/self/oom_score_adj'], capture_output=True).stdout)"
    assert kernel.run(code).output == "b'1000\\n'\n"
    still_serves(kernel)


def test_an_endless_loop_stops_at_the_cpu_limit():
    need_sandbox()
    limits = Limits(cpu_s=1.0, wall_s=60.0)  # a loaded machine gives the loop less than a core: CPU time decides
    with Kernel({}, limits) as kernel:
        kernel.run("marker = 42")
        result = kernel.run("while True:\n    pass")
        assert result.status == "cpu limit" and result.seconds < limits.wall_s
        assert result.output == "stopped: the block used its 1 s of CPU time\n"
        still_serves(kernel)


def test_a_sleep_stops_at_the_wall_limit(kernel):
    result = kernel.run("import time\ntime.sleep(10**6)")
    assert result.status == "wall limit" and LIMITS.wall_s <= result.seconds <= LIMITS.wall_s + 1
    still_serves(kernel)


@pytest.mark.parametrize("flood", FLOODS)
def test_a_flood_of_output_stops_at_the_file_limit_and_comes_back_cut(kernel, flood):
    result = kernel.run(flood)
    assert result.status == "output limit" and result.seconds < LIMITS.wall_s
    body, note = result.output.rsplit("\n", 1)
    assert len(body) <= LIMITS.output_chars and note.startswith(f"[output cut: {LIMITS.file_bytes:,} bytes in all")
    still_serves(kernel)


def test_a_block_that_ignores_its_limits_is_killed_and_the_kernel_starts_again(kernel):
    result = kernel.run(
        "import signal\nfor number in (signal.SIGXCPU, signal.SIGALRM):\n    signal.signal(number, signal.SIG_IGN)\n"
        "while True:\n    pass"
    )
    counted = kernel.group is not None and kernel.group.cpu_seconds() is not None  # then the host's CPU count ends it
    assert result.status == ("cpu limit" if counted else "killed") and result.restarted, result
    assert "started again" in result.output
    assert kernel.read_file("task.md", 100) == b"the task"  # the starting files are back
    still_serves(kernel, restarted=True)


def test_without_bubblewrap_nothing_runs_and_the_message_says_how_to_get_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    _failure.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
            Kernel({}, LIMITS)
        from wspbench.sandbox import check

        with pytest.raises(SandboxUnavailable, match="bubblewrap .bwrap. is not on the PATH"):
            check()
    finally:
        _failure.cache_clear()


def test_a_sandbox_that_does_not_start_fails_its_tests_where_bubblewrap_is_installed(monkeypatch):
    need_sandbox()  # bubblewrap is here and works: now make it fail to start
    monkeypatch.setattr(sandbox, "_failure", lambda: "the sandbox did not start (a test's failure)")
    monkeypatch.delenv("WSP_SANDBOX_OPTIONAL", raising=False)
    with pytest.raises(pytest.fail.Exception, match="bubblewrap is installed but no sandbox starts"):
        need_sandbox()
    monkeypatch.setenv("WSP_SANDBOX_OPTIONAL", "1")
    monkeypatch.setattr(conftest, "REQUIRED_PARTS", set())
    with pytest.raises(pytest.skip.Exception, match="bubblewrap: the sandbox did not start"):
        need_sandbox()


# --- one memory total per sandbox, bounded inodes, limits the code cannot raise (issue 38) -----------------------

TOTAL = 640 * 2**20  # the sandbox's memory total in these tests, below one process's 768 MiB of address space
HOLDERS = {
    "memfd": "import os, mmap\nkept = []\nfor i in range(40):\n    fd = os.memfd_create('x')\n"
    "    os.ftruncate(fd, 48 * 2**20)\n    m = mmap.mmap(fd, 48 * 2**20)\n    m.write(b'x' * 48 * 2**20)\n"
    "    m.close()\n    kept.append(fd)",
    "tmpfs files": "for i in range(40):\n    open(f'/tmp/f{i}', 'wb').write(b'x' * 7 * 2**20)\n"
    "    open(f'f{i}', 'wb').write(b'x' * 7 * 2**20)",
    "children": "import os, time\nfor i in range(8):\n    if os.fork() == 0:\n        b = bytearray(200 * 2**20)\n"
    "        time.sleep(3)\n        os._exit(0)\nends = [os.waitstatus_to_exitcode(os.wait()[1]) for i in range(8)]\n"
    "print(ends.count(-9), 'killed')",
    "pipes": "import os, fcntl\nkept = []\nfor i in range(120):\n    r, w = os.pipe()\n"
    "    fcntl.fcntl(w, 1031, 2**20)\n    os.set_blocking(w, False)\n    try:\n        os.write(w, b'x' * 2**20)\n"
    "    except BlockingIOError:\n        pass\n    kept += [r, w]",
}


@pytest.fixture
def bounded():
    need_sandbox()
    if sandbox.memory_route() != "cgroup":
        pytest.skip("this host gives the sandbox no memory cgroup (not root, or no memory controller): docs/agent.md")
    limits = Limits(cpu_s=10.0, wall_s=20.0, memory_bytes=768 * 2**20, total_memory_bytes=TOTAL, inodes=2000)
    with Kernel({}, limits) as started:
        assert started.run("marker = 41 + 1").status == "ok"
        yield started


@pytest.mark.parametrize("route", list(HOLDERS))
def test_every_way_to_hold_memory_stops_at_the_sandboxs_total(bounded, route):
    """memfds (48 MiB each, under the file limit, kept open), tmpfs files, forked children and pipe buffers all
    count in one total per sandbox (a memory cgroup): the flood ends the sandbox, the host starts a new one."""
    result = bounded.run(HOLDERS[route])
    if route == "pipes":  # a pipe's buffer is at most 1 MiB and 256 descriptors fit: under the total, so it runs
        assert result.status in ("ok", "error", "memory limit"), result.output
        still_serves(bounded, restarted=result.restarted)
        return
    if route == "tmpfs files":  # the working folder (256 MiB) and /tmp (65 MiB) are full below the total
        assert result.status in ("error", "output limit") and not result.restarted, result.output
        return
    if route == "children":  # 8 x 200 MiB: the kernel's OOM killer ends children (oom_score_adj 1000) at the total
        assert result.status == "ok" and int(result.output.split()[0]) >= 1, result.output
        still_serves(bounded)
        return
    assert result.status == "memory limit" and result.restarted, (result.status, result.output)
    assert f"{TOTAL:,} bytes" in result.output
    still_serves(bounded, restarted=True)


def test_a_flood_of_empty_files_stops_at_the_inode_limit(bounded):
    result = bounded.run("n = 0\ntry:\n    while True:\n        open(f'f{n}', 'w').close()\n        n += 1\n"
                         "except OSError as error:\n    print(n, error.errno)")  # fmt: skip
    count, code = result.output.split()
    assert result.status == "ok" and int(count) < 2000 and int(code) == 28  # ENOSPC: no inode left
    assert bounded.run("open('/tmp/x', 'w').close(); print('tmp ok')").output == "tmp ok\n"
    still_serves(bounded)


@pytest.mark.parametrize("limit", ["RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_NOFILE"])
def test_no_block_can_raise_a_limit(kernel, limit):
    """Every limit the sandbox relies on is hard (soft == hard, or the CPU's hard one for the kernel's life)."""
    result = kernel.run(
        f"import resource\nsoft, hard = resource.getrlimit(resource.{limit})\nprint(hard != resource.RLIM_INFINITY)\n"
        f"try:\n    resource.setrlimit(resource.{limit}, (hard, resource.RLIM_INFINITY))\nexcept ValueError as e:\n"
        f"    print('refused', e)\nelse:\n    print('raised')"
    )
    assert result.output.splitlines() == ["True", "refused not allowed to raise maximum limit"], result.output
    still_serves(kernel)


FORGE = """
import json, os, struct, sys
def forge(message):
    data = json.dumps(message).encode()
    os.write(201, struct.pack(">I", len(data)) + data)
frame = sys._getframe()
while frame is not None and "request" not in frame.f_locals:
    frame = frame.f_back
asked = frame.f_locals["request"].get("id")  # the request this block answers, found in the kernel's own frames
"""


def test_the_host_cuts_the_output_whatever_the_kernel_says_of_it(kernel):
    """A block that forges the kernel's reply to its own request (its output longer than the limit, its size
    understated) still comes back cut to the limit by the host."""
    result = kernel.run(FORGE + "forge({'id': asked, 'status': 'ok', 'output': 'y' * 15000, 'bytes': 1})")
    assert len(result.output) <= LIMITS.output_chars + 100 and "output cut" in result.output
    kernel.close()


@pytest.mark.parametrize(
    "forged",
    [
        "forge({'status': 'ok', 'output': 'forged', 'bytes': 6})",  # the finding as written: no id
        "forge({'id': asked, 'status': 'ok', 'output': 'forged', 'bytes': 6})",  # its own request's id, found
        "forge({'id': asked, 'status': 'ok', 'output': 'x', 'bytes': 1}); forge({'data': 5})",  # a read's answer too
        "forge({'id': asked, 'status': 'ok', 'output': 'x', 'bytes': 1}); forge({'id': 'next', 'data': 'eA=='})",
    ],
    ids=["no id", "its own id", "a read's answer", "a guessed id"],
)
def test_a_forged_reply_never_answers_a_later_request(kernel, forged):
    """issue 53.2: a block that writes replies on the kernel's channel may at most forge its own result; the
    reply left over (the kernel's real one, or a forged answer to the next request) is a lost kernel: the next
    request fails cleanly (OSError for a file, a restarted kernel for a block), never with the wrong answer or an
    exception of another kind."""
    kernel.write_file("answer.txt", b"mine")
    result = kernel.run(FORGE + forged)
    if result.status == "killed":  # the forged reply was read first and answered nothing: the kernel started again
        assert result.restarted and "does not answer the request" in result.output
        with pytest.raises(FileNotFoundError):  # a file written since the start is lost with the kernel
            kernel.read_file("answer.txt", 10)
        still_serves(kernel, restarted=True)
        return
    assert result.status == "ok" and result.output in ("forged", "x")  # the block's own result, forged
    with pytest.raises(OSError, match="the kernel was lost"):
        kernel.read_file("answer.txt", 10)
    still_serves(kernel, restarted=True)


def test_no_ptys_and_no_shared_memory(kernel):
    result = kernel.run(
        "import os\nfor path in ('/dev/ptmx', '/dev/shm/x'):\n    try:\n        os.open(path, os.O_RDWR | os.O_CREAT)\n"
        "    except OSError as error:\n        print(path, error.errno)"
    )
    found = result.output.split()
    assert found[0::2] == ["/dev/ptmx", "/dev/shm/x"] and found[1] in ("2", "13") and found[3] == "13", found
    still_serves(kernel)


@pytest.mark.parametrize(
    "spin",
    [
        "import resource, signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
        "hard = resource.getrlimit(resource.RLIMIT_CPU)[1]\n"
        "resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))\nwhile True:\n    pass",
        "import os, time\nfor i in range(2):\n    if os.fork() == 0:\n        while True:\n            pass\n"
        "time.sleep(50)",
    ],
    ids=["raised soft limit", "spinning children"],
)
def test_the_host_ends_a_block_that_uses_more_cpu_than_its_limit_however_it_does(spin):
    """issue 38.4: a block that raises its own soft CPU limit (up to the hard one) and ignores SIGXCPU, or whose
    children spin, is ended by the host's own count of the sandbox's CPU time (its cgroup), long before the wall
    limit."""
    need_sandbox()
    if sandbox.memory_route() != "cgroup":
        pytest.skip("this host gives the sandbox no cgroup (not root, or no controllers): docs/agent.md")
    with Kernel({}, Limits(cpu_s=1.0, wall_s=60.0)) as kernel:
        if kernel.group.cpu_seconds() is None:
            pytest.skip("this host does not count a cgroup's CPU time")
        result = kernel.run(spin)
        assert result.status == "cpu limit" and result.restarted and result.seconds < 20, result
        assert kernel.run("print(6 * 7)").output == "42\n"


# --- issue 53: nothing runs between blocks, a syscall filter, cgroups under the host's, a user per sandbox -------

SPINNERS = """
import os, resource, signal, threading, time
def fork_spinners():
    time.sleep(0.3)  # after the block has returned
    for i in range(12):
        if os.fork() == 0:
            signal.signal(signal.SIGXCPU, signal.SIG_IGN)
            hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
            resource.setrlimit(resource.RLIMIT_CPU, (hard, hard))
            while True:
                pass
threading.Thread(target=fork_spinners, daemon=True).start()
print("left behind")
"""


def test_processes_a_leftover_thread_starts_never_run_between_blocks(kernel):
    """issue 53.3, the finding as written: a thread that outlives its block forks 12 spinners that raise their soft
    CPU limit and ignore SIGXCPU. The sandbox is frozen from the block's reply to the next request, so nothing of
    it runs while the host waits for the model (on 37e7731 they took both cores); what they use in a later block
    counts against that block's CPU limit, and its end kills them."""
    if kernel.group is None or kernel.group.cpu_seconds() is None:
        pytest.skip("this host gives the sandbox no cgroup (not root): docs/agent.md says what is left")
    assert kernel.run(SPINNERS).output == "left behind\n"
    before = kernel.group.cpu_seconds()
    time.sleep(3)
    assert kernel.group.cpu_seconds() - before < 0.05
    result = kernel.run(
        "import time\ntime.sleep(1)\nprint(len([p for p in __import__('os').listdir('/proc') if p.isdigit()]))"
    )
    assert result.status in ("ok", "cpu limit"), result
    processes = kernel.run("import os\nprint(len([p for p in os.listdir('/proc') if p.isdigit()]))")
    assert int(processes.output) <= 2  # bubblewrap's init and the kernel: the spinners ended with their block
    before = kernel.group.cpu_seconds()
    time.sleep(1)
    assert kernel.group.cpu_seconds() - before < 0.05


VSOCK = """
import socket
try:
    server = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
    server.bind((socket.VMADDR_CID_ANY, 9999))
    print("bound")
except OSError as error:
    print(error.errno)
"""


def test_no_vsock_and_no_socket_family_but_local_ones(kernel):
    """issue 53.4: AF_VSOCK has no network namespace (it reaches the hypervisor); it and every family but unix,
    inet and inet6 (a private loopback) are refused with EAFNOSUPPORT."""
    import errno
    import socket

    assert kernel.run(VSOCK).output == f"{errno.EAFNOSUPPORT}\n"
    families = [int(family) for family in (socket.AF_NETLINK, socket.AF_PACKET, 40, 45, 63, 64, 1000)]
    probe = (
        "import socket\nfor family in {families!r}:\n    try:\n        socket.socket(family, socket.SOCK_DGRAM)\n"
        "        print('made')\n    except OSError as error:\n        print(error.errno)"
    )
    assert kernel.run(probe.format(families=families)).output.split() == [str(errno.EAFNOSUPPORT)] * len(families)
    local = "import socket\nfor f in (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6):\n    socket.socket(f).close()"
    local += "\nprint('ok')"
    assert kernel.run(local).output == "ok\n"
    still_serves(kernel)


CALL = """
import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
def call(number, *args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_ulong(a) if isinstance(a, int) else a for a in args])
    return result, ctypes.get_errno()
buffer = ctypes.create_string_buffer(4096)
attributes = ctypes.create_string_buffer(bytes([1, 0, 0, 0, 128, 0, 0, 0]) + bytes(120))
"""
# The calls the finding saw succeed in the sandbox, with arguments that succeed without a filter.
WORKED_ON_37E7731 = {
    "io_uring_setup": "call(n, 8, ctypes.addressof(buffer))",
    "userfaultfd": "call(n, 1)",  # UFFD_USER_MODE_ONLY
    # a software clock of this process (type 1, size 128), any CPU
    "perf_event_open": "call(n, ctypes.addressof(attributes), 0, 2**64 - 1, 2**64 - 1, 0)",
    "memfd_secret": "call(n, 0)",
    "add_key": "call(n, ctypes.c_char_p(b'user'), ctypes.c_char_p(b'wsp'), ctypes.c_char_p(b'x'), 1, 0xFFFFFFFE)",
    "keyctl": "call(n, 0, 0xFFFFFFFD, 1)",  # KEYCTL_GET_KEYRING_ID of the session keyring, creating it
    "shmget": "call(n, 0, 2**30, 0o1600)",  # IPC_PRIVATE, 1 GiB, IPC_CREAT | 0600
    "modify_ldt": "call(n, 0, ctypes.addressof(buffer), 16)",
    "personality": "call(n, 0xFFFFFFFF)",
}


def number(name: str) -> int:
    """A syscall's number on this machine, as libseccomp knows it (negative: none here)."""
    import pyseccomp

    return pyseccomp.resolve_syscall(pyseccomp.system_arch(), name)


def syscall_probe(calls: dict[str, str]) -> str:
    lines = [CALL, "found = {}"]
    for name, code in calls.items():
        if number(name) >= 0:
            lines.append(f"n = {number(name)}\nfound[{name!r}] = {code}")
    return "\n".join(lines) + "\nprint(json.dumps(found))"


def test_the_syscalls_that_worked_on_37e7731_are_denied(kernel):
    """issue 53.4, the finding as written: io_uring, userfaultfd, perf_event_open, memfd_secret, a key, a 1 GiB
    System V segment, modify_ldt and personality each answer EPERM."""
    import errno

    found = json.loads(kernel.run(syscall_probe(WORKED_ON_37E7731)).output)
    assert found and {name: tuple(got) for name, got in found.items()} == {name: (-1, errno.EPERM) for name in found}
    still_serves(kernel)


def test_every_denied_syscall_and_namespace_flag_is_refused(kernel):
    """Every syscall of `syscalls.DENIED` (called with harmless arguments) answers EPERM; clone with any flag that
    makes a namespace answers EPERM, clone3 ENOSYS (so the C library falls back to clone, whose flags a filter
    can read); threads, fork and subprocess still work; the kernel runs under one filter it cannot lift."""
    import errno

    from wspbench.sandbox.syscalls import DENIED, NAMESPACE_FLAGS

    calls = {name: "call(n, 0, 0, 0, 0, 0)" for name in DENIED}
    calls["personality"] = "call(n, 0xFFFFFFFF)"  # a query: it changes nothing
    calls["ptrace"] = "call(n, 0xFFFFFFFF, 0, 0, 0)"  # no request: EIO without a filter, whatever the privileges
    found = json.loads(kernel.run(syscall_probe(calls)).output)
    assert len(found) >= len(DENIED) - 5  # those this architecture has
    assert {name: tuple(got) for name, got in found.items()} == {name: (-1, errno.EPERM) for name in found}
    flags = (
        f"{CALL}\nflags = {list(NAMESPACE_FLAGS.values())!r}\n"
        f"out = [call({number('clone')}, flag | 17, 0, 0, 0, 0) for flag in flags]\n"
        f"out.append(call({number('clone3')}, 0, 0))\nprint(json.dumps(out))"
    )
    answers = [tuple(pair) for pair in json.loads(kernel.run(flags).output)]
    assert answers == [(-1, errno.EPERM)] * len(NAMESPACE_FLAGS) + [(-1, errno.ENOSYS)]
    works = (
        "import os, subprocess, threading, json\nthreading.Thread(target=print).start()\n"
        "pid = os.fork()\nif pid == 0:\n    os._exit(3)\nprint(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n"
        "print(subprocess.run(['/bin/true']).returncode)\n"
        "print([line.split()[1] for line in open('/proc/self/status') if line.startswith('Seccomp')])"
    )
    assert kernel.run(works).output.split("\n")[1:4] == ["3", "0", "['2', '1']"]
    still_serves(kernel)


def test_the_sandboxs_cgroups_are_children_of_the_hosts_own(kernel):
    """issue 53.5: a host whose own cgroup has a memory limit covers its sandboxes (on 37e7731 they were made at
    the root of each hierarchy)."""
    if kernel.group is None:
        pytest.skip("this host gives the sandbox no cgroup (not root): docs/agent.md")
    own = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    for folder in kernel.group.folders:
        relative = folder.relative_to("/sys/fs/cgroup")
        controller = relative.parts[0] if not (Path("/sys/fs/cgroup") / "cgroup.controllers").exists() else ""
        expected = Path("/sys/fs/cgroup", controller, own[controller].lstrip("/"))
        assert folder.parent == expected, (folder, own)


def test_concurrent_sandboxes_run_as_users_of_their_own(kernel):
    """issue 53.5: two sandboxes at once run as different host users (on 37e7731 both were nobody), neither root, and
    key rings are out of reach (add_key and keyctl are denied; /proc/keys shows none)."""
    if os.geteuid() != 0:
        pytest.skip("as a user, every sandbox runs as that user: docs/agent.md")
    with Kernel({}, LIMITS) as other:
        uids = [int(k.run("import os\nprint(os.getuid())").output) for k in (kernel, other)]
        keys = other.run("print(len(open('/proc/keys').read().splitlines()))").output
    assert len(set(uids)) == 2 and 0 not in uids and uids[0] != 65534
    assert keys == "0\n"
    still_serves(kernel)
