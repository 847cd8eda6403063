"""The SUPERBEAM weights task: parse a written network, play levels with it, score, feedback.

The answer is untrusted text. `parse_answer` bounds its length, finds the last ```json block (or
else the last bare object that starts with "W1"), reads it with `json.loads` only (a key given
twice, NaN or Infinity, nesting deeper than the interpreter allows and ints over 4,300 digits are
errors), and checks every array: keys W1, b1, W2, b2, shapes (16, 8), (16,), (6, 16), (6,), numbers
only, finite.
Any problem raises `AnswerError` with a message a model can act on; `grade` turns it into a
result with score 0.

A network plays one level (`play_level`) in `SuperBeamEnv(level, 0.5, frame_skip=4,
max_frames=600)`: before each step it reads the 8 features and takes
`argmax(W2 @ relu(W1 @ x + b1) + b2)` through the shared `SUPERBEAM_NETWORK`. The score of a set
of levels is the fraction won; `mean_progress` (0..1) breaks ties, as in the reference.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

from superbeam.env import ACTIONS, RULES, SuperBeamEnv
from superbeam.features import FEATURE_NAMES, FEATURES, features
from wspbench.networks import SUPERBEAM_NETWORK

NETWORK = SUPERBEAM_NETWORK
TRAIN_LEVELS = list(range(10))
TEST_LEVELS = list(range(1_000_000, 1_000_020))
DIFFICULTY = 0.5
FRAME_SKIP = 4
MAX_FRAMES = 600
MAX_ANSWER_CHARS = 200_000
KEYS = ("W1", "b1", "W2", "b2")
TIMEOUT_CAUSE = "ran out of time (stuck: e.g. walking into a pipe wall, or standing still)"

SYSTEM = ("You are a weight-space programmer. You write the weights of a small neural network directly, "
          "by reasoning about what each unit should compute. There is no training, no data and no "
          "gradient descent: the numbers you write are the final network.")


class AnswerError(ValueError):
    """The answer cannot be used; the message says why."""


# --- parsing ---------------------------------------------------------------------------------------

_FENCE = re.compile(r"```")
_W1_START = re.compile(r"\{\s*\"W1\"")


def _candidates(text: str) -> list[str | AnswerError]:
    """JSON texts to try, best first: fenced blocks (last first), then bare objects from "{"W1" (or why
    such an object cannot be read)."""
    out = []
    fences = [m.start() for m in _FENCE.finditer(text)]
    blocks = []
    for a, b in zip(fences[0::2], fences[1::2]):
        body = text[a + 3:b]
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
            raise AnswerError(f"{name} must be {_describe(shape)}, found {type(v).__name__} "
                              f"at nesting level {depth}")
        if len(v) != shape[depth]:
            raise AnswerError(f"{name} must be {_describe(shape)}, found a list of {len(v)} "
                              f"at nesting level {depth}")
        for item in v:
            check(item, depth + 1)

    check(value, 0)
    return np.array(value, dtype=np.float64).reshape(shape)


def _describe(shape):
    return f"{shape[0]} lists of {shape[1]} numbers" if len(shape) == 2 else f"a list of {shape[0]} numbers"


def parse_answer(text: str) -> dict[str, np.ndarray]:
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


def _json_error(error: Exception) -> AnswerError:
    """A clear message for what json refuses: bad syntax, nesting deeper than the interpreter allows, or
    an int over 4,300 digits (Python's limit for reading one)."""
    if isinstance(error, RecursionError):
        return AnswerError("the JSON block does not parse: it is nested too deeply (the weights need 2 levels)")
    if isinstance(error, json.JSONDecodeError):
        return AnswerError(f"the JSON block does not parse: {error.msg} (line {error.lineno}, column {error.colno})")
    if "integer string conversion" in str(error):
        return AnswerError("the JSON block holds an integer with more than 4,300 digits: every weight must be a "
                           "plain number")
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


def weights_from_dict(data) -> dict[str, np.ndarray]:
    """Check a decoded JSON object and turn it into the network's arrays (other keys are ignored)."""
    if not isinstance(data, dict):
        raise AnswerError("the JSON must be an object with keys W1, b1, W2, b2")
    missing = [k for k in KEYS if k not in data]
    if missing:
        raise AnswerError(f"the JSON object lacks {', '.join(missing)} (it needs W1, b1, W2, b2)")
    return {k: _array(k, data[k], NETWORK.shapes[k]) for k in KEYS}


def _reject_constant(name):
    raise AnswerError(f"the JSON holds {name}: every weight must be a finite number")


# --- playing ---------------------------------------------------------------------------------------

def act(weights: dict[str, np.ndarray], x: np.ndarray) -> int:
    return int(np.argmax(NETWORK.forward_one(weights, x)))


def play_level(weights, level, difficulty: float = DIFFICULTY, max_frames: int = MAX_FRAMES,
               frame_skip: int = FRAME_SKIP, record: list | None = None) -> dict:
    """Play one level once. Returns seed, won, progress, coins, cause (None when won) and where
    (the features before the last action). `record`, if given, receives each screen."""
    env = SuperBeamEnv(level=level, difficulty=difficulty, frame_skip=frame_skip, max_frames=max_frames)
    obs, info = env.reset()
    if record is not None:
        record.append(obs)
    last = None
    terminated = truncated = False
    while not (terminated or truncated):
        last = features(env)
        obs, _, terminated, truncated, info = env.step(act(weights, last))
        if record is not None:
            record.append(obs)
    cause = None
    if info["dead"]:
        cause = info["cause"] or "died"
    elif not info["won"]:
        cause = TIMEOUT_CAUSE
    return {"seed": level if isinstance(level, (int, str)) else env.level.name,
            "won": bool(info["won"]), "progress": round(float(info["best_progress"]), 3),
            "coins": int(info["coins"]), "cause": cause, "frames": int(info["frames"]),
            "where": None if last is None else dict(zip(FEATURE_NAMES, [round(float(v), 1) for v in last]))}


def score(weights, levels, difficulty: float = DIFFICULTY, progress=None) -> dict:
    """Play each level; won count, mean progress, score (fraction won) and per-level detail.
    `progress`, if given, is called after each level with its result."""
    detail = []
    for level in levels:
        detail.append(play_level(weights, level, difficulty))
        if progress is not None:
            progress(detail[-1])
    won = sum(r["won"] for r in detail)
    n = len(detail)
    return {"won": won, "levels": n, "score": won / n if n else 0.0,
            "mean_progress": round(float(np.mean([r["progress"] for r in detail])), 3) if n else 0.0,
            "detail": detail}


def grade(text: str, levels=None, difficulty: float = DIFFICULTY, progress=None) -> dict:
    """Parse and score an answer; a bad answer gives score 0 and an `error` message."""
    levels = TRAIN_LEVELS if levels is None else list(levels)
    try:
        weights = parse_answer(text)
    except AnswerError as e:
        return {"error": str(e), "won": 0, "levels": len(levels), "score": 0.0, "mean_progress": 0.0,
                "detail": []}
    result = score(weights, levels, difficulty, progress)
    result["error"] = None
    return result


def feedback(result: dict) -> str:
    """The text a model gets after a scored attempt."""
    if result.get("error"):
        return (f"I could not use that: {result['error']}. "
                "Reply with the full JSON object in a ```json block.")
    lines = [f"Your network on {result['levels']} training levels: won {result['won']}, "
             f"mean progress {100 * result['mean_progress']:.0f}%."]
    for r in result["detail"]:
        if r["won"]:
            lines.append(f"  level {r['seed']}: won")
        else:
            lines.append(f"  level {r['seed']}: {r['cause']} at {100 * r['progress']:.0f}% of the level; "
                         f"inputs at that moment: {json.dumps(r['where'])}")
    lines.append("Improve the weights to win more levels. Reply with reasoning, then the full JSON "
                 "(all four arrays).")
    return "\n".join(lines)


def task_prompt() -> str:
    """The task statement a model is given."""
    feats = "\n".join(f"  x[{i}] {n}: {d}" for i, (n, d) in enumerate(FEATURES))
    acts = "\n".join(f"  {i} {a}" for i, a in enumerate(ACTIONS))
    rules = RULES.split("Actions:")[0].strip()
    return f"""Write the weights of a neural network that plays SUPERBEAM well.

THE GAME (these are the rules a player is given):
{rules}

THE NETWORK. Every 4 frames it reads 8 numbers x[0..7] and picks one action:
  h = relu(W1 @ x + b1)      # W1: 16 x 8, b1: 16
  logits = W2 @ h + b2       # W2: 6 x 16, b2: 6
  action = argmax(logits)

Inputs (read from the game's memory; distances in pixels):
{feats}

Actions (index: name):
{acts}

Design it like a program: give each hidden unit a job (for example "a gap is close", "a wall is close
and I stand on the ground", "a walker is close", "I am in the air"), set its weights and bias so it
switches on only in that situation (ReLU), then wire the units to the action logits so that the right
action wins. Keep "right" as the default so the player keeps moving. Unused units can be all zeros.

Reply with your reasoning, then ONE JSON object in a ```json block with keys "W1" (16 lists of 8 numbers),
"b1" (16 numbers), "W2" (6 lists of 16 numbers), "b2" (6 numbers). Numbers only, no expressions."""


def load_weights(path) -> dict[str, np.ndarray]:
    """A network from a JSON file (an answer text works too)."""
    from pathlib import Path
    return parse_answer(Path(path).read_text())


def reference_weights() -> dict[str, np.ndarray]:
    """The hand-written reference network shipped with the package (its units' jobs are in its
    "notes")."""
    from importlib.resources import files
    return parse_answer((files("superbeam") / "reference_network.json").read_text())


def weights_json(weights: dict[str, np.ndarray]) -> str:
    return json.dumps({k: np.asarray(weights[k]).tolist() for k in KEYS})
