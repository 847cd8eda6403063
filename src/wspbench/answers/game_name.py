"""The game-name answer format: a reply that names a game in its last ```game block (the identify tasks').

Untrusted text, read in linear time: the block must hold one line of at most MAX_NAME_CHARS characters, which is
brought to the registry's spelling where that is safe (Unicode width, invisible characters, markdown and
punctuation, case, separators, a `source/` prefix, "MinAtar ..." or "the game ..."), so that a right name in
another spelling is not a wrong answer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from wspbench.answers.edits import MAX_ANSWER_CHARS, AnswerError

BLOCK = "```game"
MAX_NAME_CHARS = 100
_OPENER = re.compile(r"```game[^\S\n]*\n", re.IGNORECASE)  # the tag, then the end of its line
_EDGES = " \t*_`'\".,;:!?()[]{}<>~"  # markdown emphasis, quotes and punctuation around a name
_MARKUP = dict.fromkeys(map(ord, '*`~"'))  # emphasis, code and quotes: in no game's name
_SEPARATORS = re.compile(r"[\s_:-]+")
_PREFIXES = ("minatar_", "the_game_", "game_", "the_", "original_", "synth_", "synthetic_")  # "MinAtar Breakout"
_SUFFIXES = ("_game",)


def named_game(text: str, names: Iterable[str]) -> str:
    """The name in the reply's last ```game block, in the registry's spelling (lower case, `_` for spaces and
    `-`, without a `source/` prefix) when it is one of `names`, else as it was read; AnswerError without one.
    Linear in the reply's length."""
    if not isinstance(text, str):
        raise AnswerError("the answer must be text")
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerError(f"the answer has {len(text):,} characters; at most {MAX_ANSWER_CHARS:,} are read")
    body, position = None, 0
    while (tag := _OPENER.search(text, position)) is not None:
        close = text.find("```", tag.end())
        if close < 0:
            break
        body, position = text[tag.end() : close], close + 3
    if body is None:
        raise AnswerError(f"the answer has no {BLOCK} block (write the game's name inside {BLOCK} ... ```)")
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if len(lines) != 1 or len(lines[0]) > MAX_NAME_CHARS:
        raise AnswerError(
            f"the {BLOCK} block must hold one line: the game's name (at most {MAX_NAME_CHARS} characters)"
        )
    return normal_name(lines[0], names)


def normal_name(line: str, names: Iterable[str]) -> str:
    """A written name in the registry's spelling, where that is safe: Unicode width (NFKC), no invisible
    characters, no markdown or punctuation around it, lower case, `_` for spaces and `-`, without a `source/`
    prefix or a known prefix ("MinAtar ", "the game "); a name that is none of `names` is returned as read so.
    Linear in the line's length."""
    text = "".join(c for c in unicodedata.normalize("NFKC", line) if unicodedata.category(c) != "Cf")
    text = _SEPARATORS.sub("_", text.lower().translate(_MARKUP).strip(_EDGES)).rsplit("/", 1)[-1].strip(_EDGES)
    names = set(names)
    joined = {name.replace("_", ""): name for name in names}  # "SpaceInvaders"
    bare = text
    for _ in range(3):  # "the game MinAtar Breakout"
        bare = next((bare.removeprefix(p) for p in _PREFIXES if bare.startswith(p)), bare)
        bare = next((bare.removesuffix(p) for p in _SUFFIXES if bare.endswith(p)), bare).strip(_EDGES)
    for found in (text, bare):
        if found in names or found in joined:
            return joined.get(found, found)
    return text or line.lower()  # "***": say what was read
