"""Hostile inputs for the parsers of untrusted text, shared by tests/test_fuzz.py and benchmarks/fuzz.py.

Every generator takes a `random.Random` and returns one input. Families: grammar-aware mutations of the
shipped programs (edits) and of the reference network (SUPERBEAM JSON), programs drawn from the edits
grammar, random text and bytes, and structural bombs up to the size limits. `check_*` run one input through
a parser and return what happened, so that the test and the benchmark apply the same rules.
"""

from __future__ import annotations

import copy
import json
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.data import seed_edits
from wspbench import verifier
from wspbench.answers import json_network
from wspbench.answers.edits import (
    MAX_ANSWER_CHARS,
    MAX_MESSAGE_CHARS,
    AnswerError,
    parse_edits,
)
from wspbench.tasks import superbeam as superbeam_task

B = "```"
ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = sorted((ROOT / "src" / "wspbench" / "references").glob("*.txt")) + sorted(
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
        _REFERENCE_JSON.append(json_network.weights_json(superbeam_task.reference_weights()))
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
    limit = json_network.MAX_ANSWER_CHARS - 40
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
        json_network.parse_answer(reply)
        accepted, message = True, ""
    except json_network.AnswerError as error:
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


# --- run records -----------------------------------------------------------------------------------
# A run directory (manifest.json and tasks/test-a.json) built from the typed records, then damaged: values of
# the wrong type, out of range, huge, NaN, missing or extra keys, long lists, or the text cut and spliced.
# `check_run_files` reads it as `wsp runs show/compare`, `wsp report` and a resumed run do.

RECORD_SPECIALS = [
    "1",
    "",
    "x" * 1000,
    0,
    -1,
    1,
    7,
    10**9,
    2**63,
    -(2**63),
    10**400,
    -(10**400),
    1.5,
    -0.0,
    1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    True,
    False,
    None,
    [],
    {},
    [1, "x"],
    {"a": 1},
    {"prompt_tokens": "5"},
    [[1]],
]
RECORD_TEXT_SPECIALS = ["1" * 5000, "1e400", "-1e400", "NaN", "Infinity", "[" * 100_000, "{" * 50_000, "\\ud800"]
_RUN_FILES: list[tuple[dict, dict]] = []


def run_files() -> tuple[dict, dict]:
    """A valid manifest and a finished feedback record (two rounds, training and held-out Scores with
    per-episode caps, usage with details), as JSON data."""
    if not _RUN_FILES:
        from wspbench.harness.record import Manifest, Reply, Round, RunConfig, TaskRecord
        from wspbench.protocols import make
        from wspbench.tasks.spec import Score

        config = RunConfig("fuzz", protocol=make("feedback", rounds=2, episodes=3, train_episodes=1))
        suite = {"name": "wspbench", "version": "3", "digest": "0" * 64, "tasks": 2}
        manifest = Manifest(config, ["test/a", "test/b"], suite, {"numpy": "2"}, {"test/a": {"count": 3}})
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 2}}
        train = Score("test/a", 0.5, 5.0, 10.0, (100,), (5.0,), (7,))
        test = Score("test/a", 0.25, 2.5, 10.0, (0, 1, 2), (2.0, 2.5, 3.0), (4, 5, 6), episode_caps=(9.0, 10.0, 11.0))
        rounds = [
            Round(1, Reply("1", usage=usage, latency_s=0.5, retries=["HTTP 429"]), weights={"n": [1]}, train=train),
            Round(2, Reply("x", finish_reason="length"), parse_error="not a number", truncated=True, feedback="bad"),
        ]
        record = TaskRecord(
            "test/a",
            "fuzz",
            "feedback",
            max_rounds=2,
            family="test",
            suite=suite,
            messages=[{"role": "user", "content": "count"}, {"role": "assistant", "round": 1}],
            rounds=rounds,
            status="ok",
            best_round=1,
            test=test,
            usage={"prompt_tokens": 10, "completion_tokens": 5},
            timings={"model_s": 0.5, "grading_s": 0.1, "total_s": 0.7},
            started_at="2026-01-01T00:00:00+00:00",
            finished_at="2026-01-01T00:00:01+00:00",
        )
        _RUN_FILES.append((manifest.to_json(), record.to_json()))
    manifest, record = _RUN_FILES[0]
    return json.loads(json.dumps(manifest)), json.loads(json.dumps(record))


def _places(data, path=()):
    """Every (path, value) in a JSON tree."""
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _places(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _places(value, (*path, i))


def _mutate_tree(rng: random.Random, data):
    places = list(_places(data))
    path, value = rng.choice(places[1:])
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    roll = rng.random()
    if roll < 0.55:
        parent[path[-1]] = copy.deepcopy(rng.choice(RECORD_SPECIALS))  # a copy: later mutations must not change it
    elif roll < 0.65 and isinstance(parent, dict):
        del parent[path[-1]]
    elif roll < 0.72 and isinstance(value, list) and len(value) <= 200:  # at most 200,000 items
        parent[path[-1]] = value * rng.choice([2, 3, 1000])
    elif roll < 0.77:
        parent[path[-1]] = [rng.choice([0, 0.5, 1, "x", None])] * rng.choice([10, 1000, 100_001, 200_000])
    elif roll < 0.85 and isinstance(value, (int, float)) and not isinstance(value, bool):
        parent[path[-1]] = rng.choice([value + 1, value - 1, -value, value * 10**6, str(value)])
    elif roll < 0.92 and isinstance(parent, dict):
        key = rng.choice(["extra", "format", "schema_version", "test", "rounds", "sample"])
        parent[key] = copy.deepcopy(rng.choice(RECORD_SPECIALS))
    else:
        parent[path[-1]] = rng.choice([value, {"x": value}, [value], str(value)[:50]])
    return data


def run_files_text(rng: random.Random) -> tuple[str, str, str]:
    """(what was damaged, manifest text, record text)."""
    manifest, record = run_files()
    target = "manifest" if rng.random() < 0.25 else "record"
    data = manifest if target == "manifest" else record
    for _ in range(rng.randint(1, 3)):
        data = _mutate_tree(rng, data)
    text = json.dumps(data, indent=rng.choice([None, 1]))
    if rng.random() < 0.2:  # the text itself: cut, spliced, numbers no JSON writer makes
        at = rng.randrange(len(text) + 1)
        roll = rng.random()
        if roll < 0.3:
            text = text[:at]
        elif roll < 0.8:
            end = at
            while end < len(text) and text[end] not in ",]}":
                end += 1
            text = text[:at] + rng.choice(RECORD_TEXT_SPECIALS) + text[end:]
        else:
            text = text[:at] + rng.choice(list('[]{},:"') + ["\\", "\0", "\n"]) + text[at + rng.randint(0, 1) :]
    texts = {"manifest": json.dumps(manifest), "record": json.dumps(record)}
    texts[target] = text
    return target, texts["manifest"], texts["record"]


MAX_NOTE_CHARS = 2000  # a notice or error about one file: one line, at most this long


def check_run_files(manifest_text: str, record_text: str, folder: Path, resume: bool = False) -> Outcome:
    """The run directory read as the readers read it: RunDirError (a bad manifest) or the records, a bad one
    counted as corrupt with a one-line notice. An accepted record must serve every reader (summary rows and markdown,
    scores with intervals, report entries, a comparison) and write back to the same JSON. With `resume`, the
    directory is also opened as a resumed run (a bad record set aside as *.corrupt)."""
    import shutil

    from wspbench.harness.record import CORRUPT, Manifest, TaskRecord
    from wspbench.harness.runs import RunDir, RunDirError
    from wspbench.harness.summary import comparison, run_scores, summary_markdown, summary_rows
    from wspbench.report.runs import entry_from_record

    run = folder / "run"
    shutil.rmtree(run, ignore_errors=True)
    (run / "tasks").mkdir(parents=True)
    (run / "manifest.json").write_text(manifest_text, encoding="utf-8", errors="surrogatepass")
    (run / "tasks" / "test-a.json").write_text(record_text, encoding="utf-8", errors="surrogatepass")
    start = time.perf_counter()
    run_dir = RunDir(run)
    try:
        manifest, records = run_dir.read()
        accepted, message = bool(records), " / ".join(run_dir.notes)
    except RunDirError as error:
        manifest, records, accepted, message = None, [], False, str(error)
    for note in [*run_dir.notes, message]:
        assert "\n" not in note and len(note) <= MAX_NOTE_CHARS, (len(note), note[:200])
    if manifest is not None:
        accepted = any(r.status != CORRUPT for r in records)  # a record that cannot be read counts as corrupt (0)
        scores = run_scores(manifest, records)
        summary_markdown(manifest, summary_rows(records, manifest), scores)
        comparison([("a", manifest, records), ("b", manifest, records)])
        for record in records:
            entry_from_record("run", manifest, record)
            if record.status == CORRUPT:
                continue
            again = TaskRecord.from_json(json.loads(json.dumps(record.to_json())))
            assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(record.to_json(), sort_keys=True)
        again = Manifest.from_json(json.loads(json.dumps(manifest.to_json())))
        assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(manifest.to_json(), sort_keys=True)
    if resume:
        valid = Manifest.from_json(run_files()[0])
        resumed = RunDir(run)
        try:
            resumed.open(valid)
            resumed.records()
        except RunDirError as error:
            assert "\n" not in str(error) and len(str(error)) <= MAX_NOTE_CHARS
        finally:
            resumed.close()
        for note in resumed.notes:
            assert "\n" not in note and len(note) <= MAX_NOTE_CHARS, (len(note), note[:200])
    return Outcome(accepted, message, time.perf_counter() - start)


# --- the record writer and reader as a pair: every text a reply can carry comes back as it was written ------

HOSTILE_PIECES = [
    "é",
    "\u00e9",
    "\\",
    '"',
    "\n",
    "\x00",
    "\x1f",
    "\x7f",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ud800",
    "\udfff",
    "\udbff",
    "\U0001f600",
    "𝔘",
    "中文",
    "\\ud800",
    "\\u00e9",
    "</script>",
    "```edits",
    "{",
    "[",
]


def hostile_text(rng: random.Random, limit: int = 4000) -> str:
    """Text as a server's JSON can carry it: non-ASCII, controls, escapes, lone surrogates, astral characters.
    A high surrogate is never followed by a low one: JSON cannot tell that pair from the character it makes."""
    pieces = []
    for _ in range(rng.randint(0, 12)):
        roll = rng.random()
        if roll < 0.5:
            pieces.append(rng.choice(HOSTILE_PIECES))
        elif roll < 0.8:
            pieces.append("".join(chr(rng.randrange(0x110000)) for _ in range(rng.randint(1, 20))))
        else:
            pieces.append(rng.choice(["é", "x", "\ud800", "😀"]) * rng.randint(1, limit))
    text = "".join(pieces)
    return re.sub("[\ud800-\udbff](?=[\udc00-\udfff])", "?", text)


def record_case(rng: random.Random):
    """A record of random shape whose every text field is hostile, and a size limit for `fit` (0: none)."""
    from wspbench.harness.record import Block, Reply, Round, TaskRecord

    rounds = []
    for number in range(1, rng.randint(1, 4) + 1):
        blocks = [
            Block(
                rng.choice(["python", "play", "submit"]),
                hostile_text(rng),
                rng.choice(["ok", "played", "error"]),
                hostile_text(rng),
                candidate=rng.choice([None, hostile_text(rng)]),
            )
            for _ in range(rng.choice([0, 0, 1, 3]))
        ]
        reply = Reply(hostile_text(rng), rng.choice([None, hostile_text(rng)]), model=hostile_text(rng, 10))
        rounds.append(
            Round(
                number,
                reply,
                parse_error=rng.choice([None, hostile_text(rng)]),
                feedback=hostile_text(rng),
                blocks=blocks,
            )
        )
    record = TaskRecord(
        "test/a",
        hostile_text(rng, 10),
        "agent",
        max_rounds=4,
        messages=[{"role": "user", "content": hostile_text(rng)}, {hostile_text(rng, 5): hostile_text(rng)}],
        rounds=rounds,
        status=rng.choice(["running", "error"]),
        error=hostile_text(rng),
        best_round=rng.choice([None, *range(1, len(rounds) + 1)]),
    )
    limit = rng.choice([0, 0, 0, rng.randrange(1000, 60_000)])
    return record, limit


def check_record_round_trip(case, folder: Path) -> Outcome:
    """Write the record as a run writes it (`RunDir`: scrubbed, `fit`, UTF-8) and read it back as every reader
    does: the same record, nothing lost or changed but what `fit` dropped and named. A limit `fit` cannot meet
    must be a ValueError naming the task, never a file over it."""
    from wspbench.harness.record import TaskRecord, fit
    from wspbench.harness.runs import RunDir, _read_json

    record, limit = case
    start = time.perf_counter()
    expected = TaskRecord.from_json(json.loads(json.dumps(record.to_json())))  # what the pair must give back
    run_dir = RunDir(folder / "roundtrip")
    path = run_dir.path / "record.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if limit:
        try:
            data = fit(expected, limit)
        except ValueError as error:
            assert "test/a" in str(error)
            return Outcome(False, str(error), time.perf_counter() - start)
        assert len(data) <= limit, (len(data), limit)
        path.write_bytes(data)
    else:
        run_dir._write_record(path, expected)
    again = TaskRecord.from_json(_read_json(path))
    assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(expected.to_json(), sort_keys=True)
    assert len(path.read_bytes()) <= 2 * len(json.dumps(record.to_json()).encode()) + 4096  # never ASCII-escaped
    return Outcome(True, "; ".join(expected.dropped), time.perf_counter() - start)


# --- identify and repair answers (through the Task API: `read` and `check`) -------------------------------

IDENTIFY_NOISE = [
    "**",
    "`",
    "``",
    "```",
    "```game",
    "```GAME",
    "```game ",
    "\n",
    "\r\n",
    " ",
    "!",
    ".",
    "'",
    '"',
    "MinAtar ",
    "original/",
    "synth/",
    "\u200b",
    "\ufeff",
    "\u3000",
    "Ｂｒｅａｋｏｕｔ",
    "Breakout",
    "_",
    "-",
    "/",
    "x" * 200,
    "\0",
]
_IDENTIFY: list = []
_REPAIR: list = []


def identify_tasks() -> list:
    if not _IDENTIFY:
        from wspbench.tasks import select

        _IDENTIFY.extend(select("identify-choice/*")[:4] + select("identify/*")[:2])
    return _IDENTIFY


def repair_tasks() -> list:
    """Every damage, on two games."""
    if not _REPAIR:
        from wspbench.tasks import select

        _REPAIR.extend(select("repair/breakout/*") + select("repair/asterix/*"))
    return _REPAIR


def game_names() -> list[str]:
    from wspbench.tasks.identify import candidates

    return [game.game for game in candidates()]


def identify_reply(rng: random.Random) -> tuple[str, str]:
    """(the game a clean reply names, or "" for a mutated one; the reply)."""
    name = rng.choice(game_names())
    text = rng.choice(["", "The weights read like this.\n"]) + f"{B}game\n{name}\n{B}" + rng.choice(["", "\n"])
    if rng.random() < 0.2:
        return name, text
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(text) + 1)
        roll = rng.random()
        if roll < 0.5:
            text = text[:at] + rng.choice(IDENTIFY_NOISE) + text[at:]
        elif roll < 0.7:
            text = text[:at] + text[at + rng.randint(1, 4) :]
        elif roll < 0.8:
            text = text.upper() if rng.random() < 0.5 else text.title()
        elif roll < 0.9:
            text = text + "\n" + text
        else:
            text = text[:at] + "".join(rng.choices(IDENTIFY_NOISE, k=rng.randint(1, 20))) + text[at:]
    return "", text


def identify_bomb(rng: random.Random) -> tuple[str, str]:
    n = _sized(rng, 200_000)
    bombs = {
        "openers": lambda: "```game\n" * (n // 8),
        "blocks": lambda: "```game\nbreakout\n```" * (n // 20),
        "unclosed": lambda: "```game\n" + "a" * n,
        "long_name": lambda: "```game\n" + "b" * n + "\n```",
        "backticks": lambda: "`" * n,
        "lines": lambda: "```game\n" + "\n" * n + "breakout\n```",
    }
    name = rng.choice(list(bombs))
    return name, bombs[name]()


def check_identify(reply: str, named: str, task) -> Outcome:
    """`read` lets only AnswerError escape, with a short message; `check` agrees with it; the vote is one-hot or
    empty over the candidates; a clean reply's game is the one voted for; text without backticks after the last
    block changes nothing."""
    start = time.perf_counter()
    try:
        weights, _ = task.read(reply)
        vote, accepted, message = np.asarray(weights["game"]), True, ""
    except AnswerError as error:
        vote, accepted, message = None, False, str(error)
    seconds = time.perf_counter() - start
    assert len(message) <= MAX_MESSAGE_CHARS, (len(message), message[:200])
    checked = task.check(reply)
    assert (checked[2] is None) == accepted and (accepted or checked[2] == message[:MAX_MESSAGE_CHARS])
    if accepted:
        names = game_names()
        assert vote.shape == (len(names),) and set(np.unique(vote)) <= {0.0, 1.0} and vote.sum() <= 1
        if named:
            assert vote[names.index(named)] == 1.0, f"the reply names {named} but the vote is {vote}"
        if len(reply) < 100_000:
            again, _ = task.read(reply + "\nThat is my answer; no more blocks.")
            assert np.array_equal(np.asarray(again["game"]), vote), "text after the last block changed the vote"
    return Outcome(accepted, message, seconds)


def repair_reply(rng: random.Random) -> tuple[object, str]:
    """(a repair task, a reply to it): its reference answer mutated, a shipped program mutated, or a program
    from the edits grammar."""
    task = rng.choice(repair_tasks())
    roll = rng.random()
    if roll < 0.5:
        text = task.offline_answer(rng.choice(["reference", "zero"]))
        for _ in range(rng.randint(1, 3)):
            text = rng.choice(_MUTATIONS)(rng, text)
    elif roll < 0.8:
        text = grammar_program(rng)
    else:
        text = mutate_program(rng)
    return task, text


def seed_on_base(reply: str, base: dict):
    """The seed grader's edits semantics (tests/data/seed_edits.py) starting from `base` instead of zeros:
    (tensors, count), or None for a rejection."""
    try:
        matches = seed_edits.EDITS_BLOCK.findall(reply)
        if not matches:
            return None
        tree = seed_edits.ast.parse(matches[-1], mode="exec")
        tensors = {name: np.array(base[name], dtype=np.float32) for name in seed_edits.TENSOR_SHAPES}
        for statement in tree.body:
            if isinstance(statement, seed_edits.ast.Assign) and len(statement.targets) == 1:
                tensor, key = seed_edits._target(statement.targets[0], tensors)
                tensor[key] = seed_edits.ast.literal_eval(statement.value)
            elif isinstance(statement, seed_edits.ast.AugAssign):
                tensor, key = seed_edits._target(statement.target, tensors)
                value = seed_edits.ast.literal_eval(statement.value)
                operations = {"Mult": np.multiply, "Add": np.add, "Sub": np.subtract}
                operation = operations[type(statement.op).__name__]
                tensor[key] = operation(tensor[key], value)
            else:
                return None
        values = np.concatenate([tensor.ravel() for tensor in tensors.values()])
        if not np.all(np.isfinite(values)) or np.max(np.abs(values), initial=0.0) > 1e6:
            return None
        return tensors, len(tree.body)
    except Exception:  # noqa: BLE001 (as in seed_result: any exception of the seed is a rejection)
        return None


def check_repair(reply: str, task) -> Outcome:
    """`read` lets only AnswerError escape, with a short message, and `check` agrees; a reply the seed's edits
    semantics (applied to the damaged network) rejects is rejected; one both accept gives the same weights.
    (Repair may refuse more than the seed: its own bounds on what a reply may change.)"""
    start = time.perf_counter()
    try:
        weights, _ = task.read(reply)
        accepted, message = True, ""
    except AnswerError as error:
        weights, accepted, message = None, False, str(error)
    seconds = time.perf_counter() - start
    assert len(message) <= MAX_MESSAGE_CHARS, (len(message), message[:200])
    checked = task.check(reply)
    assert (checked[2] is None) == accepted and (accepted or checked[2] == message[:MAX_MESSAGE_CHARS])
    if len(reply) <= 50_000:
        expected = seed_on_base(reply, task.damaged)
        if expected is None:
            assert not accepted, "the seed's edits reject this reply but repair accepts it"
        elif accepted:
            for name, tensor in expected[0].items():
                assert np.asarray(weights[name], dtype=np.float32).tobytes() == tensor.tobytes(), name
    return Outcome(accepted, message, seconds)


def warm_up() -> None:
    """Import and load what the checks use once (the harness imports openai: about a second of CPU), so that the
    first input of a family is not timed with it."""
    import wspbench.harness.runs  # noqa: F401
    import wspbench.report.runs  # noqa: F401

    run_files()
    identify_tasks()
    for task in repair_tasks():
        _ = task.damaged
