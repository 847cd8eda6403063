"""The JSON answer format: an 8-16-6 network (SUPERBEAM's, `networks.SUPERBEAM_NETWORK`) as a JSON object.

The answer is untrusted text. `parse_answer` bounds its length, finds the last ```json block (or else the
last bare object that starts with "W1"), reads it with `json.loads` only (a key given twice, NaN or
Infinity, nesting deeper than the interpreter allows and ints over 4,300 digits are errors), and checks
every array: keys W1, b1, W2, b2, shapes (16, 8), (16,), (6, 16), (6,), numbers only, finite. Any problem
raises `AnswerError` with a message a model can act on.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from wspbench.answers.edits import AnswerError
from wspbench.networks import SUPERBEAM_NETWORK, Weights

MAX_ANSWER_CHARS = 200_000
KEYS = ("W1", "b1", "W2", "b2")
_FENCE = re.compile(r"```")
_W1_START = re.compile(r"\{\s*\"W1\"")


def parse_answer(text: str) -> Weights:
    """The network in an answer, or AnswerError."""
    if not isinstance(text, str):
        raise AnswerError("the answer must be text")
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerError(f"the answer is {len(text)} characters long; the limit is {MAX_ANSWER_CHARS}")
    candidates = _candidates(text)
    if not candidates:
        raise AnswerError('no JSON object with "W1", "b1", "W2", "b2" found: put it in a ```json block')
    if isinstance(candidates[0], AnswerError):
        raise candidates[0]
    try:
        data = json.loads(candidates[0], parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except AnswerError:
        raise
    except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
        raise _json_error(e) from None
    return weights_from_dict(data)


def weights_from_dict(data) -> Weights:
    """Check a decoded JSON object and turn it into the network's arrays (other keys are ignored)."""
    if not isinstance(data, dict):
        raise AnswerError("the JSON must be an object with keys W1, b1, W2, b2")
    missing = [k for k in KEYS if k not in data]
    if missing:
        raise AnswerError(f"the JSON object lacks {', '.join(missing)} (it needs W1, b1, W2, b2)")
    return {k: _array(k, data[k], SUPERBEAM_NETWORK.shapes[k]) for k in KEYS}


def weights_json(weights: Weights) -> str:
    """The weights as the JSON object an answer holds."""
    return json.dumps({k: np.asarray(weights[k]).tolist() for k in KEYS})


def _candidates(text: str) -> list[str | AnswerError]:
    """JSON texts to try, best first: fenced blocks (last first), then bare objects from "{"W1" (or why
    such an object cannot be read)."""
    out = []
    fences = [m.start() for m in _FENCE.finditer(text)]
    blocks = []
    for a, b in zip(fences[0::2], fences[1::2], strict=False):
        body = text[a + 3 : b]
        if body[:4].lower() == "json":
            body = body[4:]
        body = body.strip()
        if body.startswith("{"):
            blocks.append(body)
    out.extend(reversed(blocks))
    if text.lstrip().startswith("{") and text.rstrip().endswith("}"):
        out.append(text.strip())  # the whole answer is one JSON object (e.g. a weights file)
    decoder = json.JSONDecoder()
    starts = [m.start() for m in _W1_START.finditer(text)]
    for start in reversed(starts[-20:]):
        try:
            _, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        except (ValueError, RecursionError) as error:  # JSON, but too deep or with an int too long to read
            out.append(_json_error(error))
            continue
        out.append(text[start:end])
    return out


def _array(name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    def check(v, depth):
        if depth == len(shape):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise AnswerError(f"{name} holds {_short_json(v)}, not a number")
            try:
                finite = math.isfinite(float(v))
            except OverflowError:
                finite = False
            if not finite:
                raise AnswerError(f"{name} holds a non-finite number ({str(v)[:40]})")
            return
        if not isinstance(v, list):
            raise AnswerError(f"{name} must be {_describe(shape)}, found {type(v).__name__} at nesting level {depth}")
        if len(v) != shape[depth]:
            raise AnswerError(f"{name} must be {_describe(shape)}, found a list of {len(v)} at nesting level {depth}")
        for item in v:
            check(item, depth + 1)

    check(value, 0)
    return np.array(value, dtype=np.float64).reshape(shape)


def _describe(shape):
    return f"{shape[0]} lists of {shape[1]} numbers" if len(shape) == 2 else f"a list of {shape[0]} numbers"


def _json_error(error: Exception) -> AnswerError:
    """A clear message for what json refuses: bad syntax, nesting deeper than the interpreter allows, or
    an int over 4,300 digits (Python's limit for reading one)."""
    if isinstance(error, RecursionError):
        return AnswerError("the JSON block does not parse: it is nested too deeply (the weights need 2 levels)")
    if isinstance(error, json.JSONDecodeError):
        return AnswerError(f"the JSON block does not parse: {error.msg} (line {error.lineno}, column {error.colno})")
    if "integer string conversion" in str(error):
        return AnswerError(
            "the JSON block holds an integer with more than 4,300 digits: every weight must be a plain number"
        )
    return AnswerError(f"the JSON block does not parse: {str(error)[:200]}")


def _unique_keys(pairs: list) -> dict:
    """json's object hook: a key given twice is an error (json would keep the last one silently)."""
    data = dict(pairs)
    if len(data) < len(pairs):
        seen = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise AnswerError(f"the JSON object has the key {_short_json(twice)} twice")
    return data


def _short_json(value) -> str:
    """`value` as JSON, at most 40 characters; never raises."""
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _reject_constant(name):
    raise AnswerError(f"the JSON holds {name}: every weight must be a finite number")
