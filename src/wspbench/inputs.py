"""Check values read from untrusted files (`whole`, `real`, `text`, `choice`, `sized`): a type and a range, or BadValue
naming the value. Reading the files themselves, with bounds, is `wspbench/files.py`."""

from __future__ import annotations

from wspbench.words import a


class BadValue(ValueError):
    """A value read from an untrusted file is not of its type or not within its bounds; the message names it."""


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


def choice(value, what: str, choices: tuple[str, ...]) -> str:
    """`value` when it is one of `choices`, else BadValue."""
    if isinstance(value, str) and value in choices:
        return value
    raise BadValue(f"{what} must be one of {', '.join(choices)}, not {shown(value)}")


def sized(value, what: str, kind: type, limit: int):
    """`value` when it is a `kind` (list or dict) of at most `limit` items, else BadValue."""
    if not isinstance(value, kind):
        raise BadValue(f"{what} must be {a(kind.__name__)}, not {shown(value)}")
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
