"""Read untrusted input files with bounds: regular files only, never more than a set number of bytes.

A FIFO or a device could block the reader forever or never end, so a path is opened without blocking and
must be a regular file; `-` reads standard input. Both read at most `limit` + 1 bytes, so a 10 GB file
costs no more than a small one.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import typer


class InputFileError(ValueError):
    """The file cannot be read (missing, not a regular file, unreadable); the message says why."""


class InputTooLarge(InputFileError):
    """The file holds more than the limit."""


def read_bounded(path: str | Path, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file `path` (or standard input for `-`), at most `limit` of them."""
    if str(path) == "-":
        data = sys.stdin.buffer.read(limit + 1)
    else:
        data = _read_regular_file(Path(path), limit, what)
    if len(data) > limit:
        raise InputTooLarge(f"the {what} {path} has more than {limit:,} bytes (the limit)")
    return data


def _read_regular_file(path: Path, limit: int, what: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputFileError(f"there is no {what} at {path}") from None
    except OSError as error:
        raise InputFileError(f"cannot open the {what} {path}: {error.strerror or error}") from None
    except ValueError as error:  # a NUL byte in the path
        raise InputFileError(f"cannot open the {what} {str(path)!r:.200}: {error}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputFileError(f"the {what} {path} is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            return stream.read(limit + 1)
    except OSError as error:
        raise InputFileError(f"cannot read the {what} {path}: {error.strerror or error}") from None
    finally:
        os.close(fd)


def check_output_file(path: Path) -> Path:
    """`path`, when a file may be written there: InputFileError when it is a folder, a FIFO or a device."""
    if path.exists() and not path.is_file():
        raise InputFileError(f"{path} exists and is not a regular file")
    return path


def output_file(path: Path | None) -> Path | None:
    """A typer callback for an output option: the path must not be a folder, a FIFO or a device."""
    try:
        return None if path is None else check_output_file(path)
    except InputFileError as error:
        raise typer.BadParameter(str(error)) from None
