"""The sandbox's syscall filter (docs/agent.md, the threat model): what a model's code may not ask the Linux
kernel for, built on the host with libseccomp (through `pyseccomp`) as a classic BPF program that the sandbox's
kernel loads for good (`kernel.py` `install_filter`) before it reads any code. Everything not listed is allowed:
the namespaces, the dropped privileges and the limits of `__init__.py` are the main walls; this filter takes away
the kernel interfaces that those walls leave reachable and that no numpy program needs, each one a door that has
let code out of containers before, or that reaches past the sandbox's namespaces (vsock, key rings).

Where the host's libseccomp cannot build it, no sandbox starts (SandboxUnavailable): there is no unfiltered mode.
`tests/sandbox/test_kernel.py` calls each denied syscall from a block and expects its error.
"""

from __future__ import annotations

import errno
import functools
import socket
import tempfile

DENIED = {  # syscall -> why (each answers EPERM)
    "io_uring_setup": "io_uring: a second syscall interface, with its own history of kernel bugs",
    "io_uring_enter": "io_uring",
    "io_uring_register": "io_uring",
    "userfaultfd": "stalls the kernel at will inside a page fault (a tool of many exploits)",
    "perf_event_open": "performance counters: side channels and kernel bugs",
    "bpf": "loads programs into the kernel",
    "add_key": "key rings: the kernel's keys are shared across namespaces",
    "keyctl": "key rings",
    "request_key": "key rings",
    "memfd_secret": "memory hidden from the kernel's own accounting and inspection",
    "modify_ldt": "x86 segment tables: old exploits' entry point",
    "personality": "turns off address-space randomisation and other protections",
    "ptrace": "reads and writes other processes",
    "process_vm_readv": "reads other processes",
    "process_vm_writev": "writes other processes",
    "pidfd_getfd": "takes another process's file descriptors",
    "kcmp": "compares kernel objects of other processes",
    "mount": "file systems: the sandbox's mounts are fixed when its code starts",
    "umount2": "file systems",
    "pivot_root": "file systems",
    "move_mount": "file systems",
    "open_tree": "file systems",
    "fsopen": "file systems",
    "fsconfig": "file systems",
    "fsmount": "file systems",
    "fspick": "file systems",
    "mount_setattr": "file systems",
    "chroot": "file systems",
    "name_to_handle_at": "opens files by handle, past the mounts",
    "open_by_handle_at": "opens files by handle, past the mounts",
    "fanotify_init": "watches file systems",
    "unshare": "new namespaces",
    "setns": "other namespaces",
    "kexec_load": "replaces the running Linux kernel",
    "kexec_file_load": "replaces the running Linux kernel",
    "init_module": "loads kernel modules",
    "finit_module": "loads kernel modules",
    "delete_module": "unloads kernel modules",
    "shmget": "System V shared memory: large segments outside the process's address-space limit",
    "acct": "host administration",
    "swapon": "host administration",
    "swapoff": "host administration",
    "reboot": "host administration",
    "syslog": "the kernel's log",
    "settimeofday": "the host's clock",
    "clock_settime": "the host's clock",
    "clock_adjtime": "the host's clock",
    "adjtimex": "the host's clock",
    "quotactl": "host administration",
    "iopl": "hardware ports",
    "ioperm": "hardware ports",
    "uselib": "obsolete loader interface",
    "lookup_dcookie": "kernel profiling",
}
# clone: any flag that makes a namespace (what unshare would do at fork). clone3 passes its flags in memory, which
# a filter cannot read: it answers ENOSYS, so that the C library falls back to clone.
NAMESPACE_FLAGS = {
    "CLONE_NEWTIME": 0x00000080,
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
SOCKET_FAMILIES = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6)  # the rest answer EAFNOSUPPORT (vsock above
# all: it has no network namespace and reaches the hypervisor); the network namespace leaves these a private loopback
MAX_FAMILY = 64  # socket families are below this (AF_MAX is 46 on Linux 6.x); any larger one is refused too


@functools.cache
def program() -> bytes:
    """The filter as a classic BPF program (`struct sock_filter` entries, 8 bytes each) for this machine's
    architecture; other architectures' syscalls (the 32-bit ABI of a 64-bit machine) kill the process.
    ImportError, RuntimeError or OSError where libseccomp is missing (no sandbox starts then)."""
    return _exported("export_bpf")


def text() -> str:
    """The filter as libseccomp prints it (its pseudo-filter code), for review:
    `python -c "from wspbench.sandbox import syscalls; print(syscalls.text())"`."""
    return _exported("export_pfc").decode()


def _exported(how: str) -> bytes:
    import pyseccomp as seccomp

    denied = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED:
        if seccomp.resolve_syscall(seccomp.system_arch(), name) >= 0:  # a syscall this architecture has
            rules.add_rule(denied, name)
    for flag in NAMESPACE_FLAGS.values():
        rules.add_rule(denied, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    refused = seccomp.ERRNO(errno.EAFNOSUPPORT)
    for domain in range(MAX_FAMILY):
        if domain not in SOCKET_FAMILIES:
            for call in ("socket", "socketpair"):
                rules.add_rule(refused, call, seccomp.Arg(0, seccomp.EQ, domain))
    for call in ("socket", "socketpair"):
        rules.add_rule(refused, call, seccomp.Arg(0, seccomp.GE, MAX_FAMILY))
    with tempfile.TemporaryFile() as file:
        getattr(rules, how)(file)
        file.seek(0)
        return file.read()


def number(name: str) -> int:
    """The syscall's number on this machine (negative where it has none), for tests that call it by hand."""
    import pyseccomp as seccomp

    return seccomp.resolve_syscall(seccomp.system_arch(), name)
