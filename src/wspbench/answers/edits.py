"""The `edits` language: how a model writes the weights of a MinAtar network.

The answer is a reply text; the LAST fenced block tagged ```edits (any case) counts. Its body is Python
syntax, parsed but never executed. Every weight starts at 0. Each statement is one of

    T[index] = literal          T[index] *= literal    T[index] += literal    T[index] -= literal

with T a tensor of the network (W1 b1 W2 b2 W3 b3), index an int, a slice of literal ints or a tuple of
those (numpy indexing: negative indexes and steps work), and the value a Python literal (a number or
nested lists of numbers) that numpy broadcasts into the indexed part. `#` comments are allowed. No
arithmetic: write 60, not 6*10, and 0.5, not 1/2. After the last edit every weight must be finite with
|w| <= 1e6.

The accepted programs, resulting weights and rejections are those of the reference grader: the block is
what `re.findall(r"```edits\\s*\\n(.*?)```", answer, re.DOTALL | re.IGNORECASE)[-1]` returns, indexes go
through `int(ast.literal_eval(...))`, values through `ast.literal_eval`, and numpy does the assignment in
float32. On top of that, these bounds keep a hostile reply from exhausting memory or time (documented in
the README): answers of at most MAX_ANSWER_CHARS characters; blocks of at most MAX_TOKENS tokens (names,
numbers and symbols other than , ) ] }, counted before parsing, comments included) and MAX_BRACES `{` (no
edit can use one); at most MAX_STATEMENTS statements; literals with at most MAX_LITERAL_ELEMENTS list elements
and nesting depth MAX_NESTING. Error messages are at most MAX_MESSAGE_CHARS characters.
"""

from __future__ import annotations

import ast
import re
import threading

import numpy as np

from wspbench.networks import MINATAR_NETWORK, Network, Weights

MAX_ANSWER_CHARS = 1_000_000
MAX_TOKENS = 150_000  # every one of the 20,486 weights in its own `W1[599, 31] = -0.25` statement fits
MAX_BRACES = 1_000
MAX_STATEMENTS = 50_000
MAX_LITERAL_ELEMENTS = 100_000
MAX_NESTING = 32
MAX_ABS_WEIGHT = 1e6
MAX_MESSAGE_CHARS = 2_000

_TAG = re.compile(r"```edits", re.IGNORECASE)  # the reference pattern's start, with its case folding
_OPENER = re.compile(r"```edits(?=[^\S\n]*\n)", re.IGNORECASE)  # a tag whose whitespace run holds a \n
_SPACE = re.compile(r"\s*")  # the reference's \s: Unicode whitespace
# Parsing costs time and memory per syntax node, so the tokens that can make one are counted before
# ast.parse runs: a number (with one decimal point), a word, a symbol other than , ) ] } (which make none).
_TOKEN = re.compile(r"\.?\d\w*(?:\.\w*)?|\w+|[^\w\s,)\]}]")
_STATEMENT_LINE = re.compile(r"^[ \t]*\w+[ \t]*\[", re.MULTILINE)  # how an edit starts
_LINE_BREAK = re.compile(r"\r\n?|\n")  # what Python's tokenizer counts as one
_AUGMENTED = {ast.Mult: "*=", ast.Add: "+=", ast.Sub: "-="}


class AnswerError(ValueError):
    """The answer cannot be turned into weights; the message says why, for the person who wrote it."""


def last_edits_block(answer: str) -> str:
    """The body of the last ```edits block, as the reference's pattern finds it, in linear time.

    The pattern `edits\\s*\\n(.*?)```` backtracks over a long run of whitespace (quadratic), so it is
    followed step by step: a tag opens a block only if the whitespace run after it holds a line break;
    the body starts after the LAST line break of that run and ends at the next ```, where the search for
    the next tag resumes. Without that closing fence no later block can exist.
    """
    found = None
    position = 0
    while (tag := _OPENER.search(answer, position)) is not None:
        newline = answer.rfind("\n", tag.end(), _SPACE.match(answer, tag.end()).end())
        close = answer.find("```", newline + 1)
        if close < 0:
            if found is None:
                raise AnswerError(
                    "the ```edits block is never closed: end it with a line of ``` (was the reply cut off?)"
                )
            break
        found = (newline + 1, close)
        position = close + 3
    if found is not None:
        return answer[found[0] : found[1]]
    if _TAG.search(answer):
        raise AnswerError(
            "no ```edits block: the tag ```edits must end its line, with the edits on the lines "
            "after it and ``` after them"
        )
    raise AnswerError("the answer has no ```edits block (write the edits inside ```edits ... ```)")


def parse_edits(answer: str, network: Network = MINATAR_NETWORK, base: Weights | None = None) -> tuple[Weights, int]:
    """Weights written by the answer's last edits block, and the number of statements applied. The edits start
    from all zeros, or from a copy of `base` (repair tasks: the damaged network)."""
    if not isinstance(answer, str):
        raise AnswerError("the answer must be text")
    if len(answer) > MAX_ANSWER_CHARS:
        raise AnswerError(f"the answer has {len(answer):,} characters; at most {MAX_ANSWER_CHARS:,} are read")
    block = last_edits_block(answer)
    _check_size(block)
    weights = (
        network.zeros()
        if base is None
        else {name: np.array(base[name], dtype=network.dtype) for name in network.shapes}
    )
    rows = _whole_rows(block, weights)
    if rows is not None:
        _check_bounds(weights)
        return weights, rows
    tree = _parse(block)
    with np.errstate(all="ignore"):  # overflow to inf is caught by the bounds check at the end
        for statement in tree.body:
            try:
                _apply(statement, weights, block)
            except AnswerError as error:
                raise AnswerError(_clip(f"edits line {statement.lineno}: {error}", MAX_MESSAGE_CHARS)) from None
    _check_bounds(weights)
    return weights, len(tree.body)


# CPython 3.11 before 3.11.8 keeps the AST converter's recursion depth in process-wide state, so two threads in
# ast.parse at once can fail with "SystemError: AST constructor recursion depth mismatch": one parse at a time.
_AST_LOCK = threading.Lock()


# A block of whole rows, `W1[3] = [0.25, -1.5e-05, ...]` and `b1[:] = [...]` on each line, is how a dense network
# is usually written (270,000 characters): `_whole_rows` applies it without building a syntax tree (5x faster),
# and only when every line has exactly that form, so that the general path would give the same weights.
_ROW = re.compile(r"([A-Za-z_]\w*)\[(0|[1-9][0-9]{0,5}|:)\] = \[([^\]\n]*)\]")
_NUMBER = re.compile(r"-?(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|0|[1-9][0-9]{0,17})")


def _whole_rows(block: str, weights: Weights) -> int | None:
    """Apply a block of whole-row assignments of plain numbers; the statement count, or None (nothing applied)
    when any line has another form (the general path then parses the block)."""
    lines = block.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    edits = []
    for line in lines:
        found = _ROW.fullmatch(line)
        if found is None:
            return None
        name, index, body = found.groups()
        tensor = weights.get(name)
        numbers = body.split(", ")
        whole = index == ":"  # a bias: the whole vector; else one row of a matrix
        if tensor is None or tensor.ndim != (1 if whole else 2) or (not whole and int(index) >= tensor.shape[0]):
            return None
        if len(numbers) != tensor.shape[-1] or not all(_NUMBER.fullmatch(number) for number in numbers):
            return None
        edits.append((tensor, slice(None) if whole else int(index), numbers))
    if not edits:
        return None
    with np.errstate(all="ignore"):  # as in the general path
        for tensor, index, numbers in edits:  # the Python values `ast.literal_eval` gives, assigned as it assigns
            tensor[index] = [int(n) if n.lstrip("-").isdigit() else float(n) for n in numbers]
    return len(edits)


def _check_size(block: str) -> None:
    """The bounds on NUL characters, tokens, statements and braces, checked before any parsing."""
    if "\0" in block:
        line = block.count("\n", 0, block.index("\0")) + 1
        raise AnswerError(f"edits line {line}: the block contains a NUL character (\\0); remove it")
    # a token is at least one character: a block no longer than MAX_TOKENS needs no count
    if len(block) > MAX_TOKENS and _TOKEN.subn("", block, count=MAX_TOKENS + 1)[1] > MAX_TOKENS:
        lines = _STATEMENT_LINE.subn("", block, count=MAX_STATEMENTS + 1)[1]
        if lines > MAX_STATEMENTS:
            raise AnswerError(
                f"the edits block has more than {MAX_STATEMENTS:,} statements; at most "
                f"{MAX_STATEMENTS:,} are allowed (write whole rows or columns as lists)"
            )
        raise AnswerError(
            f"the edits block has more than {MAX_TOKENS:,} tokens (names, numbers and symbols "
            f"other than , ) ] }}); write fewer edits or shorter numbers"
        )
    if block.count("{") > MAX_BRACES:
        raise AnswerError(f"the edits block has more than {MAX_BRACES:,} '{{' characters (no edit uses one)")


def _parse(block: str) -> ast.Module:
    """`ast.parse` of the block (already within the bounds of `_check_size`), within the bound on statements."""
    try:
        with _AST_LOCK:
            tree = ast.parse(block, mode="exec")
    except SyntaxError as error:
        where = f"edits line {error.lineno}: " if error.lineno else ""
        message = str(error.msg)
        if "integer string conversion" in message:
            message = "an int has more than 4,300 digits"
        raise AnswerError(f"{where}syntax error: {_clip(message, 200)}") from None
    except (RecursionError, MemoryError):
        raise AnswerError(
            "the edits block is nested too deeply to parse (a long chain of operators, brackets or calls)"
        ) from None
    except UnicodeEncodeError as error:  # a lone surrogate (e.g. from a JSON "\ud800" escape)
        line = block.count("\n", 0, error.start) + 1
        raise AnswerError(
            f"edits line {line}: the block holds a character that is not valid Unicode "
            f"({block[error.start]!a}); remove it"
        ) from None
    except ValueError as error:
        raise AnswerError(f"the edits block could not be parsed ({_clip(str(error), 200)})") from None
    if len(tree.body) > MAX_STATEMENTS:
        raise AnswerError(f"the edits block has {len(tree.body):,} statements; at most {MAX_STATEMENTS:,} are allowed")
    return tree


def _apply(statement: ast.stmt, weights: Weights, source: str) -> None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        name, tensor, key = _target(statement.targets[0], weights, source)
        value = _literal(statement.value, source)
        _numpy_edit(lambda: tensor.__setitem__(key, value), name, tensor, key, value)
    elif isinstance(statement, ast.AugAssign):
        name, tensor, key = _target(statement.target, weights, source)
        value = _literal(statement.value, source)
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
        raise AnswerError(f"only edits like `W1[0, 3] = 0.5` are allowed, not `{_excerpt(source, statement)}`")


def _target(node: ast.expr, weights: Weights, source: str) -> tuple[str, np.ndarray, object]:
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        raise AnswerError(
            "the edit target must index a named tensor, like W1[0, 3] or b3[:] (a whole tensor is written as W1[:, :])"
        )
    name = node.value.id
    if name not in weights:
        raise AnswerError(f"unknown tensor {_clip(repr(name), 40)} (the tensors are {', '.join(weights)})")
    index = node.slice
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if len(parts) > weights[name].ndim:  # numpy refuses it whatever the parts are
        raise AnswerError(f"{name} has {weights[name].ndim} dimensions but the index has {len(parts):,} parts")
    key = [_index_part(part, source) for part in parts]
    return name, weights[name], tuple(key) if isinstance(index, ast.Tuple) else key[0]


def _index_part(node: ast.expr, source: str) -> slice | int:
    if isinstance(node, ast.Slice):
        bounds = (node.lower, node.upper, node.step)
        return slice(*(None if bound is None else _literal(bound, source, "index") for bound in bounds))
    value = _literal(node, source, "index")
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        raise AnswerError(f"an index must be an int or a slice of ints, not {_short(value)}") from None


def _literal(node: ast.expr, source: str, role: str = "value") -> object:
    """`ast.literal_eval`, after checking the literal's size and nesting (counting list elements)."""
    if isinstance(node, ast.Constant):  # what literal_eval returns for one, without its overhead
        return node.value
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
        raise AnswerError(_not_literal(node, source, role)) from None


def _not_literal(node: ast.expr, source: str, role: str) -> str:
    """Why a value or index is not a literal, with the number to write when it is simple arithmetic."""
    text = _excerpt(source, node)
    if isinstance(node, (ast.BinOp, ast.UnaryOp)):
        result = _arithmetic(node, integers=role == "index")
        what = "index arithmetic is not allowed" if role == "index" else "arithmetic is not allowed in a value"
        if result is not None:
            return f"{what}: write {result!r} instead of `{text}`"
        return f"{what}: write one {'int' if role == 'index' else 'number'} instead of `{text}`"
    if role == "index":
        return f"an index must be an int or a slice of ints (no names, calls or arithmetic), got `{text}`"
    return f"values must be plain numbers or lists of numbers (no names, calls or arithmetic), got `{text}`"


def _arithmetic(node: ast.expr, integers: bool, depth: int = 0) -> int | float | None:
    """The value of a small expression of number literals with + - * (and / outside indexes), or None.

    Only to suggest the number to write; it never evaluates anything else and gives up on deep or large
    expressions, so it costs nothing on a hostile reply."""
    if depth > 8:
        return None
    if isinstance(node, ast.Constant):
        kinds = (int,) if integers else (int, float)
        value = node.value
        if type(value) in kinds and abs(value) <= 1e15:
            return value
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        operand = _arithmetic(node.operand, integers, depth + 1)
        return None if operand is None else (-operand if isinstance(node.op, ast.USub) else operand)
    if isinstance(node, ast.BinOp):
        left = _arithmetic(node.left, integers, depth + 1)
        right = _arithmetic(node.right, integers, depth + 1)
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Add):
            result = left + right
        elif isinstance(node.op, ast.Sub):
            result = left - right
        elif isinstance(node.op, ast.Mult):
            result = left * right
        elif isinstance(node.op, ast.Div) and not integers and right != 0:
            result = left / right
        else:
            return None
        return result if abs(result) <= 1e15 else None
    return None


def _numpy_edit(edit, name: str, tensor: np.ndarray, key: object, value: object) -> None:
    try:
        edit()
    except (IndexError, ValueError, TypeError, OverflowError) as error:
        raise AnswerError(
            f"{name}{_show_key(key)}: {_clip(str(error), 300)} ({name} has shape {tensor.shape}; "
            f"the value is {_describe(value)})"
        ) from None


def _describe(value: object) -> str:
    if isinstance(value, (list, tuple)):
        try:
            return f"a list of shape {np.shape(value)}"
        except (ValueError, OverflowError):
            return "a ragged list (rows of different lengths)"
    return f"{type(value).__name__} {_short(value)}"


def _check_bounds(weights: Weights) -> None:
    for name, tensor in weights.items():
        bad = ~np.isfinite(tensor) | (np.abs(tensor) > MAX_ABS_WEIGHT)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            raise AnswerError(
                f"after all edits {name}{list(where)} = {tensor[where]}; every weight must be finite "
                f"with absolute value at most {MAX_ABS_WEIGHT:g} ({int(bad.sum())} weights of "
                f"{name} are not)"
            )


def _show_key(key: object) -> str:
    parts = key if isinstance(key, tuple) else (key,)

    def show(part: object) -> str:
        if isinstance(part, slice):
            text = ":".join("" if v is None else _short(v) for v in (part.start, part.stop))
            return text + (f":{_short(part.step)}" if part.step is not None else "")
        return _short(part)

    shown = ", ".join(show(part) for part in parts[:8])
    return f"[{shown}{', ...' if len(parts) > 8 else ''}]"


def _short(value: object, limit: int = 40) -> str:
    """repr(value), cut to `limit` characters; never raises (repr refuses ints over 4,300 digits)."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"a {value.bit_length():,}-bit int"
    try:
        text = repr(value)
    except ValueError:
        text = f"a {type(value).__name__} holding a huge int"
    return _clip(text, limit)


def _excerpt(source: str, node: ast.AST) -> str:
    """The node's source text on one line, at most 60 characters (ast.unparse can recurse too deeply and
    ast.get_source_segment takes seconds on a long line)."""
    start = 0
    if node.lineno > 1:
        for number, line_break in enumerate(_LINE_BREAK.finditer(source), start=2):
            if number == node.lineno:
                start = line_break.end()
                break
    stop = _LINE_BREAK.search(source, start)
    line = source[start : stop.start() if stop else len(source)]
    end = node.end_col_offset if node.end_lineno == node.lineno else None  # offsets count UTF-8 bytes
    text = line.encode("utf-8", "surrogatepass")[node.col_offset : end][:400].decode("utf-8", "replace")
    return _clip(" ".join(text.split()) + (" ..." if end is None else ""), 60)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _source_operator(op: ast.operator) -> str:
    symbols = {
        ast.Pow: "**=",
        ast.Div: "/=",
        ast.FloorDiv: "//=",
        ast.Mod: "%=",
        ast.MatMult: "@=",
        ast.LShift: "<<=",
        ast.RShift: ">>=",
        ast.BitOr: "|=",
        ast.BitAnd: "&=",
        ast.BitXor: "^=",
    }
    return symbols.get(type(op), type(op).__name__)


def write_edits(weights: Weights, network: Network = MINATAR_NETWORK, base: Weights | None = None) -> str:
    """An answer whose edits block `parse_edits` (from `base`, default all zeros) turns into exactly these
    weights: one statement per row (the first index) of each tensor that differs from `base`, every number the
    shortest decimal that reads back as the same float32 (positional, so no exponent)."""
    lines = []
    for name in network.shapes:
        tensor = np.asarray(weights[name], dtype=network.dtype)
        start = network.zeros()[name] if base is None else np.asarray(base[name], dtype=network.dtype)
        if tensor.ndim == 1:
            tensor, start, targets = tensor[None], start[None], [f"{name}[:]"]
        else:
            targets = [f"{name}[{i}]" for i in range(len(tensor))]
        for target, row, before in zip(targets, tensor, start, strict=True):
            if not np.array_equal(row, before):
                lines.append(f"{target} = {float32_list(row)}")
    return "```edits\n" + "\n".join(lines) + "\n```\n"


def float32_text(value: np.float32) -> str:
    """A float32 as the shortest positional decimal that reads back as the same float32."""
    return np.format_float_positional(value, unique=True, trim="-")


def float32_list(values: np.ndarray) -> str:
    """`[a, b, ...]`: each float32 written by `float32_text`."""
    return "[" + ", ".join(float32_text(v) for v in values) + "]"
