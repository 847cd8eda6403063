"""Files in and out, bounded and atomic.

Reading (`read_bounded`): a FIFO or a device could block the reader forever or never end, so a path is opened
without blocking and must be a regular file; `-` reads standard input. A file whose size is over the limit is
refused before any byte is read, and at most `limit` + 1 bytes are read, so a 10 GB file costs no more than a
small one. `follow=False` also refuses a symbolic link (an answer file an agent could have planted).

Writing (`write_atomic`): a temporary file in the same folder (created with O_EXCL, so never through a planted
link), then `os.replace`, which replaces a symlink at the path itself rather than the file it points to. A reader
never sees half a file, and a failed write leaves the old file and no temporary one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

_UMASK = os.umask(0o022)  # read once (it can only be read by setting it), then put back
os.umask(_UMASK)


class InputFileError(ValueError):
    """The file cannot be read (missing, not a regular file, unreadable); the message says why."""


class InputTooLarge(InputFileError):
    """The file holds more than the limit."""


def read_bounded(path: str | Path, limit: int, what: str = "file", follow: bool = True) -> bytes:
    """The bytes of the regular file `path` (or standard input for `-`), at most `limit` of them; with
    `follow` False, a symbolic link is refused too."""
    if str(path) == "-":
        data = _read_at_most(sys.stdin.buffer, limit + 1)
    else:
        data = _read_regular_file(Path(path), limit, what, follow)
    if len(data) > limit:
        raise InputTooLarge(f"the {what} {path} has more than {limit:,} bytes (the limit)")
    return data


def _read_regular_file(path: Path, limit: int, what: str, follow: bool) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW))
    except FileNotFoundError:
        raise InputFileError(f"there is no {what} at {path}") from None
    except OSError as error:
        if not follow and os.path.islink(path):
            raise InputFileError(f"cannot open the {what} {path}: it is a symbolic link") from None
        raise InputFileError(f"cannot open the {what} {path}: {error.strerror or error}") from None
    except ValueError as error:  # a NUL byte in the path
        raise InputFileError(f"cannot open the {what} {str(path)!r:.200}: {error}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise InputFileError(f"the {what} {path} is not a regular file")
        if status.st_size > limit:  # refused by its size, unread
            raise InputTooLarge(
                f"the {what} {path} has {status.st_size:,} bytes: more than {limit:,} bytes (the limit)"
            )
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return _read_at_most(stream, limit + 1)
    except OSError as error:
        raise InputFileError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    finally:
        os.close(fd)


def _read_at_most(stream, count: int) -> bytes:
    """Up to `count` bytes, a megabyte at a time: `read(count)` would allocate all `count` bytes at once even
    for a small file."""
    chunks: list[bytes] = []
    while count > 0 and (chunk := stream.read(min(count, 2**20))):
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def check_output_file(path: Path) -> Path:
    """`path`, when a file may be written there: InputFileError when it is a folder, a FIFO or a device."""
    if path.exists() and not path.is_file():
        raise InputFileError(f"{path} exists and is not a regular file")
    return path


def write_atomic(path: str | Path, data: bytes, private: bool = False) -> None:
    """Replace the file `path` with `data` atomically (see the module docstring), creating its folder; OSError
    says why it could not (a folder, FIFO or device at `path` is refused, not replaced). `private`: readable by
    its owner only (mode 0600), from the moment it exists."""
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        mode = os.lstat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            raise OSError(f"{path} is not a regular file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OSError(f"{path.parent} is not a folder") from None
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if not private:
            os.fchmod(fd, 0o666 & ~_UMASK)  # as open() would make it (mkstemp makes 0600)
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def cache_folder() -> Path:
    """Where wspbench keeps what it can compute again (`WSP_CACHE_DIR`, else `$XDG_CACHE_HOME/wspbench`, else
    `~/.cache/wspbench`): deleting it costs time, never a result."""
    if os.environ.get("WSP_CACHE_DIR"):
        return Path(os.environ["WSP_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wspbench"


def files_key(folders: list[Path]) -> str:
    """A hash of every file below `folders` (path, size and modification time; `__pycache__` left out): it
    changes when any file is edited, added or removed, and costs a stat per file, not a read."""
    import hashlib

    entries = []
    for folder in folders:
        for root, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                status = os.stat(os.path.join(root, name))
                entries.append(f"{os.path.join(root, name)}\t{status.st_size}\t{status.st_mtime_ns}")
    return hashlib.sha256("\n".join(entries).encode()).hexdigest()


class NotEmpty(OSError):
    """An output folder holds files: refused without `force`, or not only an earlier output (never removed)."""


def clear_earlier(out: Path, force: bool, ours: Callable[[Path], bool], what: str) -> None:
    """Make the folder `out` absent or empty, so that it will hold exactly the new `what` (an export, a report):
    without `force` a non-empty folder is NotEmpty; with it, the entries `ours` recognises as an earlier one's are
    removed, and any other entry makes it NotEmpty, with nothing removed."""
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not force:
        raise NotEmpty(f"{out} is not empty; pass --force to replace the earlier {what} in it")
    strangers = sorted(entry.name for entry in out.iterdir() if entry.is_symlink() or not ours(entry))
    if strangers:
        shown = ", ".join(strangers[:5]) + (f" and {len(strangers) - 5} more" if len(strangers) > 5 else "")
        raise NotEmpty(f"{out} holds more than an earlier {what} ({shown}); choose an empty folder")
    for entry in out.iterdir():
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
