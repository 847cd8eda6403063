"""The edits language: the reference's accepted programs, weights and rejections, plus our bounds."""

import hashlib
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import DATA
from wspbench.answers import AnswerError, parse_edits
from wspbench.answers.edits import MAX_ANSWER_CHARS, MAX_LITERAL_ELEMENTS, MAX_NESTING, MAX_STATEMENTS

CASES = json.loads((DATA / "edits_cases.json").read_text())


def digest(weights):
    hasher = hashlib.sha256()
    for name in ("W1", "b1", "W2", "b2", "W3", "b3"):
        hasher.update(np.ascontiguousarray(weights[name], dtype=np.float32).tobytes())
    return hasher.hexdigest()


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_weights_and_rejections_as_reference(name):
    case = CASES[name]
    if "error" in case:
        with pytest.raises(AnswerError):
            parse_edits(case["answer"])
    else:
        weights, count = parse_edits(case["answer"])
        assert (count, digest(weights)) == (case["edit_count"], case["sha256"])


def test_conformance_answers_counts(answers, expected):
    for name, result in expected["results"]["breakout"].items():
        if result["parse_success"]:
            weights, count = parse_edits(answers[name])
            assert count == result["edit_count"]
            assert sum(int(np.count_nonzero(w)) for w in weights.values()) == result["nonzero_weights"]
        else:
            with pytest.raises(AnswerError):
                parse_edits(answers[name])


@pytest.mark.parametrize(
    "answer, message",
    [
        ("```edits\nW1[0, 0 = 1\n```", "edits line 1: syntax error"),
        ("```edits\nb3[0] = 1\nW9[0, 0] = 1\n```", "edits line 2: unknown tensor 'W9'"),
        (
            "```edits\nW1[600, 0] = 1\n```",
            "W1[600, 0]: index 600 is out of bounds for axis 0 with size 600 (W1 has shape (600, 32)",
        ),
        ("```edits\nW1[0, :] = [1, 2, 3]\n```", "W1[0, :]: could not broadcast"),
        ("```edits\nW1[0, 0] **= 2\n```", "only =, *=, += and -= are allowed, not **="),
        ("```edits\nW1[0, 0] = float('1')\n```", "values must be plain numbers"),
        (
            "```edits\nW1[3, 4] = 2000000.0\n```",
            "W1[3, 4] = 2000000.0; every weight must be finite with absolute value at most 1e+06",
        ),
        ("```edits\nprint(1)\n```", "not `print(1)`"),
        ("```edits\nW1 = 0\n```", "the edit target must index a named tensor"),
        ("no block here", "no ```edits block"),
    ],
)
def test_error_messages_say_what_and_where(answer, message):
    with pytest.raises(AnswerError, match=re.escape(message)):
        parse_edits(answer)


def test_hostile_million_statements_is_rejected_by_size():
    with pytest.raises(AnswerError, match="characters"):
        parse_edits("```edits\n" + "b3[0] = 1\n" * 1_000_000 + "```")


def test_hostile_statement_count():
    with pytest.raises(AnswerError, match="statements"):
        parse_edits("```edits\n" + "b3[0]=1\n" * (MAX_STATEMENTS + 1) + "```")


def test_hostile_fifty_megabyte_literal():
    literal = "[" + "1.0, " * (50 * 1024 * 1024 // 5) + "]"
    with pytest.raises(AnswerError, match=f"at most {MAX_ANSWER_CHARS:,}"):
        parse_edits("```edits\nW1[:, 0] = " + literal + "\n```")


def test_hostile_long_literal_within_size():
    with pytest.raises(AnswerError, match="elements"):
        parse_edits("```edits\nb3[0] = [" + "0," * (MAX_LITERAL_ELEMENTS + 1) + "]\n```")


def test_hostile_deep_nesting():
    with pytest.raises(AnswerError, match=f"nested more than {MAX_NESTING}"):
        parse_edits("```edits\nb3[0] = " + "[" * 40 + "1" + "]" * 40 + "\n```")
    with pytest.raises(AnswerError):  # beyond what Python's parser accepts
        parse_edits("```edits\nb3[0] = " + "[" * 5000 + "1" + "]" * 5000 + "\n```")
    with pytest.raises(AnswerError):
        parse_edits("```edits\nb3[0] = " + "-" * 100_000 + "1\n```")


@pytest.mark.parametrize("value", ["None", "1e400", "-1e400", "1e39", "[1e308] * 2"])
def test_hostile_nan_and_infinities(value):
    with pytest.raises(AnswerError):
        parse_edits(f"```edits\nb3[0:2] = {value}\n```")


@pytest.mark.parametrize("answer", ["```edits " * 100_000, "```edits\n" + " " * 900_000, "`" * 999_999])
def test_hostile_fences(answer):
    with pytest.raises(AnswerError):
        parse_edits(answer)


def test_comments_and_last_block_wins(answers):
    weights, count = parse_edits(answers["two_blocks_last_wins"])
    assert count == 2
    assert weights["b3"].tolist() == [0, 1, 0, 2, 0, 0]


ROW_NUMBERS = st.one_of(
    st.floats(allow_nan=False, width=64).map(repr),
    st.integers(-(10**18), 10**18).map(str),
    st.sampled_from(["0", "-0", "1.", ".5", "-0.0", "1e5", "1E-05", "007.5", "2e+3", "1e999", "-1e999", "5e-324"]),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["W1", "W2", "W3", "b1", "b3"]),
            st.integers(0, 40),
            st.lists(ROW_NUMBERS, min_size=1, max_size=33),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_a_block_of_whole_rows_gives_what_the_general_parser_gives(rows):
    """`_whole_rows` (no syntax tree) and the general path agree on weights, counts and errors; a comment line
    sends the same edits down the general path."""
    block = "".join(
        f"{name}[{':' if name == 'b1' else index}] = [{', '.join(numbers)}]\n" for name, index, numbers in rows
    )

    def outcome(text):
        try:
            weights, count = parse_edits(f"```edits\n{text}```")
        except AnswerError as error:
            return str(error)
        return [weights[name].tobytes() for name in weights], count

    assert outcome(block) == outcome(block + "# the general path\n")
