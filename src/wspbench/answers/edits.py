"""The `edits` language: how a model writes the weights of a MinAtar network.

The answer is a reply text; the LAST fenced block tagged ```edits (any case) counts. Its body is Python
syntax, parsed but never executed. Every weight starts at 0. Each statement is one of

    T[index] = literal          T[index] *= literal    T[index] += literal    T[index] -= literal

with T a tensor of the network (W1 b1 W2 b2 W3 b3), index an int, a slice of literal ints or a tuple of
those (numpy indexing: negative indexes and steps work), and the value a Python literal (a number or
nested lists of numbers) that numpy broadcasts into the indexed part. `#` comments are allowed. After the
last edit every weight must be finite with |w| <= 1e6.

The accepted programs, resulting weights and rejections are those of the reference grader: indexes go
through `int(ast.literal_eval(...))`, values through `ast.literal_eval`, and numpy does the assignment in
float32. On top of that, these bounds keep a hostile reply from exhausting memory or time (documented in
the README): answers of at most MAX_ANSWER_CHARS characters, at most MAX_STATEMENTS statements, literals
with at most MAX_LITERAL_ELEMENTS list elements and nesting depth MAX_NESTING.
"""

from __future__ import annotations

import ast
import re

import numpy as np

from wspbench.networks import MINATAR_NETWORK, Network, Weights

MAX_ANSWER_CHARS = 1_000_000
MAX_STATEMENTS = 50_000
MAX_LITERAL_ELEMENTS = 100_000
MAX_NESTING = 32
MAX_ABS_WEIGHT = 1e6

EDITS_BLOCK = re.compile(r"```edits\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_AUGMENTED = {ast.Mult: "*=", ast.Add: "+=", ast.Sub: "-="}


class AnswerError(ValueError):
    """The answer cannot be turned into weights; the message says why, for the person who wrote it."""


def last_edits_block(answer: str) -> str:
    """The body of the last ```edits block (the reference's pattern)."""
    blocks = EDITS_BLOCK.findall(answer)
    if not blocks:
        raise AnswerError("the answer has no ```edits block (write the edits inside ```edits ... ```)")
    return blocks[-1]


def parse_edits(answer: str, network: Network = MINATAR_NETWORK) -> tuple[Weights, int]:
    """Weights written by the answer's last edits block, and the number of statements applied."""
    if not isinstance(answer, str):
        raise AnswerError("the answer must be text")
    if len(answer) > MAX_ANSWER_CHARS:
        raise AnswerError(f"the answer has {len(answer):,} characters; at most {MAX_ANSWER_CHARS:,} are read")
    block = last_edits_block(answer)
    try:
        tree = ast.parse(block, mode="exec")
    except SyntaxError as error:
        raise AnswerError(f"edits line {error.lineno}: syntax error: {error.msg}") from None
    except (RecursionError, MemoryError, ValueError) as error:
        raise AnswerError(f"the edits block could not be parsed ({type(error).__name__}: {error})") from None
    if len(tree.body) > MAX_STATEMENTS:
        raise AnswerError(f"the edits block has {len(tree.body):,} statements; at most {MAX_STATEMENTS:,} are allowed")
    weights = network.zeros()
    for statement in tree.body:
        try:
            _apply(statement, weights)
        except AnswerError as error:
            raise AnswerError(f"edits line {statement.lineno}: {error}") from None
    _check_bounds(weights)
    return weights, len(tree.body)


def _apply(statement: ast.stmt, weights: Weights) -> None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        name, tensor, key = _target(statement.targets[0], weights)
        value = _literal(statement.value)
        _numpy_edit(lambda: tensor.__setitem__(key, value), name, tensor, key, value)
    elif isinstance(statement, ast.AugAssign):
        name, tensor, key = _target(statement.target, weights)
        value = _literal(statement.value)
        operator = _AUGMENTED.get(type(statement.op))
        if operator is None:
            raise AnswerError(f"only =, *=, += and -= are allowed, not {_source_operator(statement.op)}")

        def edit() -> None:
            if operator == "*=":
                tensor[key] *= value
            elif operator == "+=":
                tensor[key] += value
            else:
                tensor[key] -= value

        _numpy_edit(edit, name, tensor, key, value)
    elif isinstance(statement, ast.Assign):
        raise AnswerError("one target per statement (no chained `a = b = ...`)")
    else:
        raise AnswerError(f"only edits like `W1[0, 3] = 0.5` are allowed, not `{_excerpt(statement)}`")


def _target(node: ast.expr, weights: Weights) -> tuple[str, np.ndarray, object]:
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        raise AnswerError("the edit target must index a named tensor, like W1[0, 3] or b3[:] "
                          "(a whole tensor is written as W1[:, :])")
    name = node.value.id
    if name not in weights:
        raise AnswerError(f"unknown tensor {name!r} (the tensors are {', '.join(weights)})")
    index = node.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    key = [_index_part(part) for part in parts]
    return name, weights[name], tuple(key) if isinstance(index, ast.Tuple) else key[0]


def _index_part(node: ast.expr) -> slice | int:
    if isinstance(node, ast.Slice):
        return slice(*(None if bound is None else _literal(bound) for bound in (node.lower, node.upper, node.step)))
    value = _literal(node)
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise AnswerError(f"an index must be an int or a slice of ints, not {value!r:.40}") from None


def _literal(node: ast.expr) -> object:
    """`ast.literal_eval`, after checking the literal's size and nesting (counting list elements)."""
    containers = (ast.List, ast.Tuple, ast.Set)
    count, stack = 0, [(node, 1)] if isinstance(node, containers) else []
    while stack:
        current, depth = stack.pop()
        count += len(current.elts)
        if count > MAX_LITERAL_ELEMENTS:
            raise AnswerError(f"a literal has more than {MAX_LITERAL_ELEMENTS:,} elements")
        if depth > MAX_NESTING:
            raise AnswerError(f"a literal is nested more than {MAX_NESTING} levels deep")
        stack.extend((child, depth + 1) for child in current.elts if isinstance(child, containers))
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise AnswerError(f"values must be plain numbers or lists of numbers (no names, calls or arithmetic), "
                          f"got `{_excerpt(node)}`") from None


def _numpy_edit(edit, name: str, tensor: np.ndarray, key: object, value: object) -> None:
    try:
        with np.errstate(all="ignore"):
            edit()
    except (IndexError, ValueError, TypeError, OverflowError) as error:
        raise AnswerError(f"{name}{_show_key(key)}: {error} ({name} has shape {tensor.shape}; "
                          f"the value is {_describe(value)})") from None


def _describe(value: object) -> str:
    if isinstance(value, (list, tuple)):
        try:
            return f"a list of shape {np.shape(value)}"
        except ValueError:
            return "a ragged list (rows of different lengths)"
    return f"{type(value).__name__} {value!r:.40}"


def _check_bounds(weights: Weights) -> None:
    for name, tensor in weights.items():
        bad = ~np.isfinite(tensor) | (np.abs(tensor) > MAX_ABS_WEIGHT)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise AnswerError(f"after all edits {name}{list(where)} = {tensor[where]}; every weight must be finite "
                              f"with absolute value at most {MAX_ABS_WEIGHT:g} ({int(bad.sum())} weights of "
                              f"{name} are not)")


def _show_key(key: object) -> str:
    parts = key if isinstance(key, tuple) else (key,)

    def show(part: object) -> str:
        if isinstance(part, slice):
            text = ":".join("" if v is None else str(v) for v in (part.start, part.stop))
            return text + (f":{part.step}" if part.step is not None else "")
        return str(part)

    return "[" + ", ".join(show(part) for part in parts) + "]"


def _excerpt(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _source_operator(op: ast.operator) -> str:
    symbols = {ast.Pow: "**=", ast.Div: "/=", ast.FloorDiv: "//=", ast.Mod: "%=", ast.MatMult: "@=",
               ast.LShift: "<<=", ast.RShift: ">>=", ast.BitOr: "|=", ast.BitAnd: "&=", ast.BitXor: "^="}
    return symbols.get(type(op), type(op).__name__)
