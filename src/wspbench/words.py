"""Words that depend on a number or a sound, so that messages never say "1 tasks" or "a edits" (tests/test_text.py
checks every message that counts)."""


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 task`, `2 tasks`, `0 tasks`; `plural` where adding "s" is wrong (`count(3, "family", "families")`)."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def a(noun: str) -> str:
    """The noun with its indefinite article, by its first letter: `a game`, `an edits answer`, `an int`."""
    return f"{'an' if noun[:1].lower() in 'aeio' else 'a'} {noun}"
