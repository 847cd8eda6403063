"""Read untrusted input files with bounds: regular files only, never more than a set number of bytes; and
check the values read from them (`whole`, `real`, `text`, `sized`: a type and a range, or BadValue).

A FIFO or a device could block the reader forever or never end, so a path is opened without blocking and
must be a regular file; `-` reads standard input. A file whose size is over the limit is refused before any
byte is read, and both read at most `limit` + 1 bytes, so a 10 GB file costs no more than a small one.
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


class BadValue(ValueError):
    """A value read from an untrusted file is not of its type or not within its bounds; the message names it."""


def read_bounded(path: str | Path, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file `path` (or standard input for `-`), at most `limit` of them."""
    if str(path) == "-":
        data = _read_at_most(sys.stdin.buffer, limit + 1)
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


def whole(value, what: str, low: int, high: int) -> int:
    """`value` when it is an int (not a bool) from `low` to `high`, else BadValue naming `what`."""
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    raise BadValue(f"{what} must be a whole number from {low:,} to {high:,}, not {shown(value)}")


def real(value, what: str, low: float, high: float) -> float:
    """`value` as a float when it is a number (not a bool) from `low` to `high` (so finite), else BadValue."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high:
        return float(value)
    raise BadValue(f"{what} must be a number from {low:g} to {high:g}, not {shown(value)}")


def text(value, what: str, optional: bool = False) -> str | None:
    """`value` when it is a string (or, `optional`, None), else BadValue."""
    if isinstance(value, str) or (optional and value is None):
        return value
    raise BadValue(f"{what} must be {'text or null' if optional else 'text'}, not {shown(value)}")


def sized(value, what: str, kind: type, limit: int):
    """`value` when it is a `kind` (list or dict) of at most `limit` items, else BadValue."""
    if not isinstance(value, kind):
        raise BadValue(f"{what} must be a {kind.__name__}, not {shown(value)}")
    if len(value) > limit:
        raise BadValue(f"{what} has {len(value):,} items; at most {limit:,} are allowed")
    return value


def shown(value) -> str:
    """A short description of an untrusted value for a message: never long, never costly (a 10**400 int or a
    list of a million items included)."""
    if isinstance(value, (list, dict)):
        return f"a {type(value).__name__} of {len(value):,} items"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**20:
        return f"a {value.bit_length()}-bit number"
    if isinstance(value, str):
        return repr(value[:40]) + ("..." if len(value) > 40 else "")
    return repr(value)[:60] if isinstance(value, (int, float, bool, type(None))) else f"a {type(value).__name__}"


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
