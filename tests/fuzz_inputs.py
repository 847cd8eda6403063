"""Hostile inputs for the parsers of untrusted text, shared by tests/test_fuzz.py and benchmarks/fuzz.py.

Every generator takes a `random.Random` and returns one input. Families: grammar-aware mutations of the
shipped programs (edits) and of the reference network (SUPERBEAM JSON), programs drawn from the edits
grammar, random text and bytes, and structural bombs up to the size limits. `check_*` run one input through
a parser and return what happened, so that the test and the benchmark apply the same rules.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.data import seed_edits
from wspbench import verifier
from wspbench.answers.edits import (
    MAX_ANSWER_CHARS,
    MAX_MESSAGE_CHARS,
    AnswerError,
    parse_edits,
)
from wspbench.tasks import superbeam as superbeam_task

B = "```"
ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = sorted((ROOT / "src" / "wspbench" / "examples").glob("*.txt")) + sorted(
    (ROOT / "src" / "minatar_synth" / "references").glob("*.txt")
)
TENSORS = {"W1": (600, 32), "b1": (32,), "W2": (32, 32), "b2": (32,), "W3": (32, 6), "b3": (6,)}
SPECIAL_NUMBERS = [
    "0",
    "-0",
    "1",
    "-1",
    "5",
    "31",
    "32",
    "-33",
    "600",
    "-601",
    "0.5",
    "-2.5",
    "1e6",
    "-1e6",
    "1000001",
    "1e-3",
    "1e39",
    "1e400",
    "-1e400",
    "1_000",
    "0x1f",
    "0o7",
    "0b1",
    "1.",
    ".5",
    "1j",
    "1+2j",
    "True",
    "None",
    "'1.5'",
    "b'7'",
    "'x'",
    "6*10",
    "1+1",
    "1/2",
    "--1",
    "-+-2.5",
    "x",
    "float('nan')",
    "[1, 2]",
    "[[1], [2, 3]]",
    "(1,)",
    "{1: 2}",
    "{1}",
    "...",
    "0x" + "f" * 300,
    "1" + "0" * 5000,
    "0x" + "f" * 5000,
]
INDEX_PARTS = [
    "0",
    "-1",
    "3",
    "599",
    "600",
    "31",
    "-32",
    ":",
    "::2",
    "1:4",
    "::-1",
    "None",
    "...",
    "[0, 1]",
    "0.5",
    "'3'",
    "True",
    "6*10",
    "i",
    "1:2:0",
    "0x" + "f" * 5000,
]
OPERATORS = ["=", "+=", "-=", "*=", "/=", "**=", "//=", "@=", "==", ":"]
NOISE = [
    "`",
    B,
    "````",
    "edits",
    "EDITS",
    "Edit\u017f",
    "ed\u0131ts",
    "ed\u0130ts",
    "\n",
    "\r\n",
    " ",
    "\t",
    "\x0b",
    "\x1c",
    "\x85",
    "\u2028",
    "\u3000",
    "\0",
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    ",",
    ":",
    ";",
    "#",
    "=",
    "'",
    '"',
    '"""',
    "\\",
    "0",
    "1.5",
    "-",
    "+",
    "*",
    "W1",
    "b3",
    "[0]",
    "\ud800",
    "\U0001f600",
    "é",
]
WHITESPACE = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0", "\u2028", "\u3000"]
TAGS = ["edits", "EDITS", "Edits", "edit\u017f", "ed\u0131ts", "ed\u0130ts", "edit", "edits2", "json"]


def _programs() -> list[str]:
    return [path.read_text() for path in PROGRAMS]


_PROGRAM_TEXTS: list[str] = []


def program_texts() -> list[str]:
    if not _PROGRAM_TEXTS:
        _PROGRAM_TEXTS.extend(_programs())
    return _PROGRAM_TEXTS


# --- edits -----------------------------------------------------------------------------------------


def grammar_statement(rng: random.Random) -> str:
    """One statement from the edits grammar, mostly valid, sometimes just outside it."""
    name = rng.choice(list(TENSORS) + ["W4", "w1"] * (rng.random() < 0.05))
    shape = TENSORS.get(name, (6,))
    parts = []
    for size in shape:
        roll = rng.random()
        if roll < 0.6:
            parts.append(str(rng.randint(-size, size - 1 + (rng.random() < 0.1))))
        elif roll < 0.97:
            start, stop = rng.choice(["", str(rng.randint(-size, size))]), rng.choice(["", str(rng.randint(0, size))])
            step = rng.choice(["", "", f":{rng.choice([1, 2, 3, -1, 7])}"])
            parts.append(f"{start}:{stop}{step}")
        else:
            parts.append(rng.choice(INDEX_PARTS))
    if rng.random() < 0.05:
        parts = parts[:-1] or parts + ["0"]
    operator = rng.choice(["="] * 6 + ["+=", "-=", "*="] * 2 + ["/=", "**="])
    return f"{name}[{', '.join(parts)}] {operator} {grammar_value(rng, shape)}"


def grammar_value(rng: random.Random, shape: tuple[int, ...]) -> str:
    roll = rng.random()
    if roll < 0.6:
        return rng.choice(["0.5", "-1", "2", "0.25", "1e3", "-0.125", "3"])
    if roll < 0.95:
        dims = [rng.choice([1, 2, 3, size if size <= 32 else 1]) for size in shape[rng.randint(0, len(shape) - 1) :]]
        array = np.round(np.array([rng.uniform(-2, 2) for _ in range(int(np.prod(dims)))]).reshape(dims), 3)
        return json.dumps(array.tolist())
    return rng.choice(SPECIAL_NUMBERS)


def grammar_program(rng: random.Random) -> str:
    lines = [grammar_statement(rng) for _ in range(rng.randint(0, 6))]
    if rng.random() < 0.2:
        lines.insert(rng.randint(0, len(lines)), "# a comment; W1[0, 0] = 1")
    tag = rng.choice(["edits"] * 8 + TAGS)
    return f"Reasoning.\n{B}{tag}{rng.choice(['', ' ', '  '])}\n" + "\n".join(lines) + f"\n{B}\nDone."


def mutate_program(rng: random.Random) -> str:
    """A shipped program (a whole reply) with one to three grammar-aware mutations."""
    text = rng.choice(program_texts())
    for _ in range(rng.randint(1, 3)):
        text = rng.choice(_MUTATIONS)(rng, text)
    return text


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _swap_number(rng, text):
    lines = _lines(text)
    i = rng.randrange(len(lines))
    words = lines[i].split(" ")
    j = rng.randrange(len(words))
    words[j] = rng.choice(SPECIAL_NUMBERS)
    lines[i] = " ".join(words)
    return "\n".join(lines)


def _swap_index(rng, text):
    at = text.find("[", rng.randrange(len(text) + 1))
    if at < 0:
        return text
    end = text.find("]", at)
    return text[: at + 1] + ", ".join(rng.choice(INDEX_PARTS) for _ in range(rng.randint(1, 3))) + text[end:]


def _swap_operator(rng, text):
    at = text.find(" = ", rng.randrange(len(text) + 1))
    return text if at < 0 else text[: at + 1] + rng.choice(OPERATORS) + text[at + 2 :]


def _swap_tensor(rng, text):
    name = rng.choice(list(TENSORS))
    return text.replace(name, rng.choice(list(TENSORS) + ["W9", "x", "W1.T"]), rng.randint(1, 3))


def _edit_lines(rng, text):
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    roll = rng.random()
    if roll < 0.3:
        del lines[i]
    elif roll < 0.6:
        lines.insert(i, lines[j])
    elif roll < 0.8:
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(i, grammar_statement(rng))
    return "\n".join(lines)


def _noise(rng, text):
    at = rng.randrange(len(text) + 1)
    if rng.random() < 0.5:
        return text[:at] + rng.choice(NOISE) + text[at:]
    return text[:at] + text[at + rng.randint(1, 3) :]


def _truncate(rng, text):
    return text[: rng.randrange(len(text) + 1)]


def _fence(rng, text):
    at = text.lower().rfind(B + "edits")
    if at < 0:
        return text
    tag = rng.choice(TAGS) + rng.choice(["", " ", "\n", "".join(rng.choices(WHITESPACE, k=3))])
    fence = rng.choice([B, "````", B + "`" * rng.randint(1, 3), "``"])
    return text[:at] + fence + tag + text[at + 8 :]


_MUTATIONS = [
    _swap_number,
    _swap_index,
    _swap_operator,
    _swap_tensor,
    _edit_lines,
    _edit_lines,
    _noise,
    _noise,
    _truncate,
    _fence,
]


def random_text(rng: random.Random) -> str:
    """Text from an alphabet biased to fences, tags, whitespace and Python punctuation."""
    pieces = rng.choices(NOISE + WHITESPACE + ["b3[0] = 1", "W1[0, 0] += 0.5", "\n```edits\n"], k=rng.randint(0, 80))
    return "".join(pieces)


def random_bytes(rng: random.Random) -> str:
    data = rng.randbytes(rng.randint(0, 400))
    text = data.decode(rng.choice(["latin-1", "utf-8"]), errors=rng.choice(["replace", "surrogateescape", "ignore"]))
    return rng.choice(["", f"{B}edits\n"]) + text + rng.choice(["", f"\n{B}"])


def _sized(rng: random.Random, limit: int) -> int:
    """A size from 1,000 to `limit`, spread evenly on a log scale, often the limit itself."""
    return limit if rng.random() < 0.25 else int(10 ** rng.uniform(3, np.log10(limit)))


EDITS_BOMBS = {
    "statements": lambda n: "b3[0]=1\n" * (n // 8),
    "semicolons": lambda n: "b3[0]=1;" * (n // 8),
    "tiny_elements": lambda n: "b3[0]=[" + "0," * (n // 2) + "]",
    "nested_lists": lambda n: "b3[0:1]=" + "[" * (n // 2) + "1" + "]" * (n // 2),
    "huge_hex_value": lambda n: "b3[0]=0x" + "f" * n,
    "huge_hex_index": lambda n: "b3[0x" + "f" * n + "]=1",
    "huge_decimal": lambda n: "b3[0]=" + "9" * n,
    "long_name": lambda n: "a" * n + "[0]=1",
    "long_string": lambda n: "b3[0]='" + "1" * n + "'",
    "nul_bytes": lambda n: "b3[0]=1\0" * (n // 8),
    "brackets": lambda n: "[" * n,
    "parentheses": lambda n: "(" * n,
    "unary_chain": lambda n: "b3[0]=" + "-" * n + "1",
    "binary_chain": lambda n: "b3[0]=" + "1+" * (n // 2) + "1",
    "index_arithmetic": lambda n: "W1[" + "6*" * (n // 2) + "10, 0]=1",
    "compare_chain": lambda n: "b3[0]=" + "1<" * (n // 2) + "1",
    "and_chain": lambda n: "b3[0]=" + "a and " * (n // 6) + "a",
    "attribute_chain": lambda n: "b3[0]=a" + ".a" * (n // 2),
    "call_chain": lambda n: "b3[0]=a" + "()" * (n // 2),
    "index_tuple": lambda n: "W1[" + "0," * (n // 2) + "]=1",
    "slices": lambda n: "W1[" + "::," * (n // 3) + "]=1",
    "dict": lambda n: "b3[0]={" + "1:1," * (n // 4) + "}",
    "fstring_fields": lambda n: "b3[0]=f'" + "{1}" * (n // 3) + "'",
    "string_concat": lambda n: "b3[0]=" + "'a'" * (n // 3),
    "escapes": lambda n: "b3[0]='\\d'\n" * (n // 11),
    "indentation": lambda n: "".join(" " * i + "if 1:\n" for i in range(min(n // 50, 1400))),
    "comments": lambda n: "# " + "x" * n,
    "pass": lambda n: "pass\n" * (n // 5),
    "lambda": lambda n: "b3[0]=" + "lambda:" * (n // 7) + "1",
    "newlines_after_tag": None,
    "many_fences": None,
    "many_tags": None,
    "unclosed": None,
}


def edits_bomb(rng: random.Random) -> tuple[str, str]:
    """(name, reply): a structural bomb of random size up to the reply limit."""
    name = rng.choice(list(EDITS_BOMBS))
    return name, edits_bomb_named(name, _sized(rng, MAX_ANSWER_CHARS - 40))


def edits_bomb_named(name: str, n: int) -> str:
    """The bomb `name` with about `n` characters."""
    if name == "newlines_after_tag":
        return B + "edits" + "\n" * n
    if name == "many_fences":
        return f"{B}edits\nb3[0]=1\n{B}" * (n // 20)
    if name == "many_tags":
        return (B + "edits ") * (n // 9)
    if name == "unclosed":
        return f"{B}edits\n" + "b3[0] = 1\n" * (n // 10)
    return f"{B}edits\n" + EDITS_BOMBS[name](n) + f"\n{B}"


# --- SUPERBEAM JSON --------------------------------------------------------------------------------

_REFERENCE_JSON: list[str] = []


def reference_json() -> str:
    if not _REFERENCE_JSON:
        _REFERENCE_JSON.append(superbeam_task.weights_json(superbeam_task.reference_weights()))
    return _REFERENCE_JSON[0]


JSON_SPECIALS = [
    "0",
    "-0",
    "1e999",
    "-1e999",
    "NaN",
    "Infinity",
    "-Infinity",
    '"1"',
    "true",
    "null",
    "[]",
    "{}",
    "1" * 5000,
    "1" * 4000,
    "1e308",
    "0.1",
    "[0]",
    '{"W1": 1}',
    "1" * 4301 + ".5",
]


def mutate_json(rng: random.Random) -> str:
    """The reference network's JSON, mutated, then wrapped as a reply (fenced, bare or whole)."""
    text = reference_json()
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.35:
            at = rng.randrange(len(text) + 1)
            end = at
            while end < len(text) and text[end] not in ",]}":
                end += 1
            text = text[:at] + rng.choice(JSON_SPECIALS) + text[end:]
        elif roll < 0.5:
            key = rng.choice(["W1", "b1", "W2", "b2"])
            text = text.replace(f'"{key}"', rng.choice(['"W1"', '"x"', f'"{key}", "{key}": 0, "{key}"']), 1)
        elif roll < 0.6:
            depth = rng.choice([10, 900, 5000, 50_000])
            text = text[:-1] + ', "notes": ' + "[" * depth + "]" * depth + "}"
        elif roll < 0.8:
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(list('[]{},:"') + ["\\", "\0", " ", "\n"]) + text[at + rng.randint(0, 1) :]
        else:
            text = text[: rng.randrange(len(text) + 1)]
    wrap = rng.choice(["{}", "Here:\n```json\n{}\n```\n", "```\n{}\n```", "Text {} more", "```json\n{}"])
    return wrap.replace("{}", text, 1)


def random_json_text(rng: random.Random) -> str:
    alphabet = list('{}[]",: ') + ["```", "```json", '"W1"', '"b1"', "0", "1.5", "-", "e", "\n", "NaN", "\\u0000"]
    return "".join(rng.choices(alphabet, k=rng.randint(0, 200)))


def json_bomb(rng: random.Random) -> tuple[str, str]:
    limit = superbeam_task.MAX_ANSWER_CHARS - 40
    n = _sized(rng, limit)
    bombs = {
        "brackets": lambda: "[" * n,
        "deep_in_ignored_key": lambda: '```json\n{"W1": [], "x": ' + "[" * (n // 2) + "]" * (n // 2) + "}\n```",
        "deep_bare": lambda: '{"W1": ' + "[" * (n // 2) + "]" * (n // 2) + "}",
        "long_int": lambda: '```json\n{"W1": ' + "1" * min(n, 100_000) + "}\n```",
        "long_int_bare": lambda: '{"W1": ' + "1" * n + "}",
        "huge_float": lambda: '```json\n{"W1": 1e' + "9" * min(n, 10_000) + "}\n```",
        "many_keys": lambda: "```json\n{" + ",".join(f'"k{i}": 0' for i in range(n // 10)) + "}\n```",
        "duplicate_keys": lambda: "```json\n{" + '"W1": 0,' * (n // 8) + '"b1": 0}\n```',
        "many_w1_starts": lambda: '{"W1"' * (n // 5),
        "many_fences": lambda: "```" * (n // 3),
        "long_string": lambda: '```json\n{"W1": "' + "a" * n + '"}\n```',
        "elements": lambda: '```json\n{"W1": [' + "0," * (n // 2) + "0]}\n```",
        "whitespace": lambda: "{" + " " * n + '"W1": 1}',
    }
    name = rng.choice(list(bombs))
    return name, bombs[name]()


# --- trajectories ----------------------------------------------------------------------------------


def trajectory_text(rng: random.Random, reply: str) -> str:
    """A trajectory file holding `reply`, in the seed's or ATIF's layout, sometimes damaged."""
    if rng.random() < 0.5:
        data = {
            "steps": [
                {
                    "messages": [
                        {"role": "user", "content": "task"},
                        {"role": "assistant", "content": rng.choice([reply, [{"text": reply}]])},
                    ]
                }
            ]
        }
    else:
        data = {"steps": [{"source": "user", "message": "task"}, {"source": "agent", "message": reply}]}
    text = json.dumps(data, ensure_ascii=rng.random() < 0.5)
    roll = rng.random()
    if roll < 0.15:
        text = text[: rng.randrange(len(text) + 1)]
    elif roll < 0.25:
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(["[" * 100_000, "1" * 5000, "NaN", "\0", "{", '"', "\\ud800"]) + text[at:]
    elif roll < 0.3:
        text = rng.choice(["[]", "null", '{"steps": 5}', '{"steps": [1, "x", null]}', "", "{" * 50_000])
    return text


# --- checks ----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    accepted: bool
    message: str
    seconds: float
    result: object = None


def check_edits(reply: str) -> Outcome:
    """parse_edits on one reply: only AnswerError may escape it, with a message of bounded length."""
    start = time.perf_counter()
    try:
        result = parse_edits(reply)
        accepted, message = True, ""
    except AnswerError as error:
        result, accepted, message = None, False, str(error)
    seconds = time.perf_counter() - start
    assert len(message) <= MAX_MESSAGE_CHARS, (len(message), message[:200])
    return Outcome(accepted, message, seconds, result)


def seed_result(reply: str):
    """What the reference grader's parser makes of a (small) reply: (tensors, count) or None."""
    try:
        return seed_edits.apply_edits(reply)
    except Exception:  # noqa: BLE001 (the reference lets many kinds escape; every one of them is a rejection)
        return None


BOUND_WORDS = ("more than", "at most")


def compare_with_seed(reply: str) -> Outcome:
    """check_edits, plus: same acceptance and, when accepted, the same weights and count as the seed's
    parser (a rejection that names one of our documented bounds is allowed where the seed accepts)."""
    outcome = check_edits(reply)
    expected = seed_result(reply)
    if expected is None:
        assert not outcome.accepted, "the seed rejects this reply but parse_edits accepts it"
    elif not outcome.accepted:
        assert any(word in outcome.message for word in BOUND_WORDS), (
            "the seed accepts but parse_edits says: " + outcome.message
        )
    else:
        (weights, count), (tensors, seed_count) = outcome.result, expected
        assert count == seed_count
        for name, tensor in tensors.items():
            assert weights[name].tobytes() == tensor.tobytes(), name
    return outcome


def check_json(reply: str) -> Outcome:
    start = time.perf_counter()
    try:
        superbeam_task.parse_answer(reply)
        accepted, message = True, ""
    except superbeam_task.AnswerError as error:
        accepted, message = False, str(error)
    seconds = time.perf_counter() - start
    assert len(message) <= MAX_MESSAGE_CHARS, (len(message), message[:200])
    return Outcome(accepted, message, seconds)


def check_trajectory(text: str, folder: Path) -> Outcome:
    """read_trajectory + final_answer on a file: the answer text, or a ValueError subclass (TrajectoryError)."""
    path = folder / "trajectory.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    start = time.perf_counter()
    try:
        answer = verifier.final_answer(verifier.read_trajectory(path))
        assert isinstance(answer, str)
        accepted, message = True, ""
    except ValueError as error:
        accepted, message = False, str(error)
    seconds = time.perf_counter() - start
    assert len(message) <= MAX_MESSAGE_CHARS, (len(message), message[:200])
    return Outcome(accepted, message, seconds)
