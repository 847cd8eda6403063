"""Hostile replies: the linear block search, bombs up to the size limit, and messages that never fail."""

import re
import time
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import fuzz_inputs
from tests.data import seed_edits
from wspbench.answers import AnswerError, parse_edits
from wspbench.answers.edits import (
    MAX_BRACES,
    MAX_MESSAGE_CHARS,
    MAX_STATEMENTS,
    MAX_TOKENS,
    last_edits_block,
)

B = "```"
SEED_BLOCK = seed_edits.EDITS_BLOCK


def seed_block(text):
    found = SEED_BLOCK.findall(text)
    return found[-1] if found else None


def our_block(text):
    try:
        return last_edits_block(text)
    except AnswerError:
        return None


PIECES = [
    "`",
    B,
    "````",
    "edits",
    "EDITS",
    "eDiTs",
    "edit\u017f",
    "ed\u0131ts",
    "ed\u0130ts",
    "\u212aedits",
    "edit",
    "x",
    "\n",
    "\r\n",
    " ",
    "\t",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x85",
    "\xa0",
    "\u2028",
    "\u3000",
    "b3[0]=1",
]


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_block_search_equals_the_reference_pattern(text):
    assert our_block(text) == seed_block(text)


@pytest.mark.parametrize(
    "text",
    [
        f"{B}EDIT\u017f\nb3[0] = 1\n{B}",  # the long s folds to s
        f"{B}ed\u0131ts\nb3[0] = 1\n{B}",  # dotless i
        f"{B}ED\u0130TS\nb3[0] = 1\n{B}",  # dotted capital I
        f"{B}edits \x1c\x85\u2028\n \t\nb3[0] = 1\n{B}",  # Unicode whitespace, body after the last line break
        f"{B}edits \u2028b3[0] = 1\n{B}",  # a whitespace run without \n: no block there
        "````edits\nb3[0] = 1\n````",
        f"{B}edits\nb3[0] = 1\n{B}edits\nb3[1] = 2\n{B}",  # the closing fence is not a new tag
        f"{B}edits\nb3[0] = 1\n{B}\n{B}edits\nb3[1] = 2\n",  # an unclosed last block: the one before counts
        f"{B}edits b3[0] = 1 {B} {B}edits\n\n\nb3[1] = 2{B}",
        f"{B}edits\n{B}",
    ],
)
def test_block_search_special_cases(text):
    assert our_block(text) == seed_block(text)


def test_newline_run_after_the_tag_is_linear():
    start = time.perf_counter()
    with pytest.raises(AnswerError, match="never closed"):
        parse_edits(B + "edits" + "\n" * 999_000)
    assert parse_edits(B + "edits" + " \n" * 499_000 + "b3[0] = 1" + B)[1] == 1
    assert time.perf_counter() - start < 10  # hang detection only; it takes milliseconds


@pytest.mark.parametrize("name", sorted(fuzz_inputs.EDITS_BOMBS))
def test_bombs_at_the_size_limit_are_bounded(name):
    reply = fuzz_inputs.edits_bomb_named(name, 999_000)
    tracemalloc.start()
    try:
        outcome = fuzz_inputs.check_edits(reply)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome.seconds < 10  # hang detection; the benchmark measures the real times
    assert peak < 300 * 1024 * 1024
    assert len(outcome.message) <= MAX_MESSAGE_CHARS


@pytest.mark.parametrize(
    "reply, message",
    [
        ("W1[6*10, 0] = 1", "edits line 1: index arithmetic is not allowed: write 60 instead of `6*10`"),
        ("b1[0:2*3] = 1", "index arithmetic is not allowed: write 6 instead of `2*3`"),
        ("W1[i, 0] = 1", "an index must be an int or a slice of ints (no names, calls or arithmetic), got `i`"),
        ("W1[1/2, 0] = 1", "index arithmetic is not allowed: write one int instead of `1/2`"),
        ("b3[0] = 1 + 1", "arithmetic is not allowed in a value: write 2 instead of `1 + 1`"),
        ("b3[0] = 1/2", "arithmetic is not allowed in a value: write 0.5 instead of `1/2`"),
        ("b3[0] = --1", "arithmetic is not allowed in a value: write 1 instead of `--1`"),
        ("b3[0] = 2**0.5", "arithmetic is not allowed in a value: write one number instead of `2**0.5`"),
        ("b3[0] = 1\nb3[1] = 1\0", "edits line 2: the block contains a NUL character"),
        ("b3[0] = 1 # \ud800", "edits line 1: the block holds a character that is not valid Unicode ('\\ud800')"),
        ("b3[0] = 1" + "0" * 5000, "edits line 1: syntax error: an int has more than 4,300 digits"),
    ],
)
def test_messages_say_what_to_write(reply, message):
    with pytest.raises(AnswerError, match=re.escape(message)):
        parse_edits(f"{B}edits\n{reply}\n{B}")


@pytest.mark.parametrize(
    "reply, message",
    [
        (
            f"{B}edits\nb3[0] = 1\n",
            "the ```edits block is never closed: end it with a line of ``` (was the reply cut off?)",
        ),
        (f"{B}edits b3[0] = 1 {B}", "the tag ```edits must end its line"),
        ("just text", "the answer has no ```edits block"),
    ],
)
def test_missing_block_messages(reply, message):
    with pytest.raises(AnswerError, match=re.escape(message)):
        parse_edits(reply)


@pytest.mark.parametrize(
    "body",
    [
        "b3[0] = 0x" + "f" * 5000,  # str() of this int raises ValueError
        "b3[0x" + "f" * 5000 + "] = 1",
        "b3[0:0x" + "f" * 5000 + ":0] = 1",
        "b3[0] = [0x" + "f" * 5000 + "]",
        "b3[0] = " + "1+" * 2000 + "1",  # ast.unparse of this raises RecursionError
        "W1[" + "0, " * 90_000 + "0] = 1",  # a 90,001-part index
        "b3[0] = '" + "x" * 900_000 + "'",  # numpy quotes the string in its error
        "x" * 900_000 + "[0] = 1",
        "b3[0] = " + "-" * 5000 + "1",
        "b3[0] = (" + "1 if 1 else " * 2000 + "1)",
    ],
)
def test_building_the_message_never_fails_and_is_short(body):
    outcome = fuzz_inputs.check_edits(f"{B}edits\n{body}\n{B}")
    assert not outcome.accepted and 0 < len(outcome.message) <= MAX_MESSAGE_CHARS


def test_index_errors_are_index_errors():
    with pytest.raises(AnswerError) as error:
        parse_edits(f"{B}edits\nW1[6 * 10, 0] = 1\n{B}")
    assert "index" in str(error.value) and "values must" not in str(error.value)


def test_bounds_on_tokens_braces_and_statements():
    with pytest.raises(AnswerError, match=f"more than {MAX_TOKENS:,} tokens"):
        parse_edits(f"{B}edits\nb3[0:1] = [" + "0 " * (MAX_TOKENS + 1) + f"]\n{B}")
    with pytest.raises(AnswerError, match=f"more than {MAX_BRACES:,} '{{' characters"):
        parse_edits(f"{B}edits\n# " + "{" * (MAX_BRACES + 1) + f"\n{B}")
    with pytest.raises(AnswerError, match=f"more than {MAX_STATEMENTS:,} statements"):
        parse_edits(f"{B}edits\n" + "W1[0, 0] = 1\n" * (MAX_STATEMENTS + 1) + B)
    whole = "W1[:, :] = [" + ("[" + "0, " * 32 + "], ") * 600 + "]\n"  # about 19,800 tokens and 39,000 commas
    _, count = parse_edits(f"{B}edits\n" + whole * 5 + B)  # commas and closing brackets are not counted
    assert count == 5
