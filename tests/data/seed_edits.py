"""Test oracle: the reference grader's edits parser, copied verbatim (its `TENSOR_SHAPES`, `EDITS_BLOCK`,
`_slice`, `_target` and `apply_edits`) from the seed grader, so that tests can compare `parse_edits` with it
without the seed's other dependencies. Its regex is quadratic on long runs of whitespace and it has no
bounds: run it on small inputs only. Any exception it raises means "rejected".
"""

import ast
import re

import numpy as np

TENSOR_SHAPES = {
    "W1": (600, 32),
    "b1": (32,),
    "W2": (32, 32),
    "b2": (32,),
    "W3": (32, 6),
    "b3": (6,),
}
EDITS_BLOCK = re.compile(r"```edits\s*\n(.*?)```", re.DOTALL | re.IGNORECASE)


def _slice(node: ast.expr) -> slice | int:
    if isinstance(node, ast.Slice):
        return slice(
            ast.literal_eval(node.lower) if node.lower is not None else None,
            ast.literal_eval(node.upper) if node.upper is not None else None,
            ast.literal_eval(node.step) if node.step is not None else None,
        )
    return int(ast.literal_eval(node))


def _target(node: ast.expr, tensors: dict[str, np.ndarray]) -> tuple[np.ndarray, object]:
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
        raise ValueError("edit target must index a named tensor")  # noqa: TRY004 (verbatim)
    if node.value.id not in tensors:
        raise ValueError(f"unknown tensor {node.value.id!r}")
    index = node.slice
    key = tuple(_slice(item) for item in index.elts) if isinstance(index, ast.Tuple) else _slice(index)
    return tensors[node.value.id], key


def apply_edits(answer: str) -> tuple[dict[str, np.ndarray], int]:
    matches = EDITS_BLOCK.findall(answer)
    if not matches:
        raise ValueError("answer has no edits block")
    tree = ast.parse(matches[-1], mode="exec")
    tensors = {name: np.zeros(shape, dtype=np.float32) for name, shape in TENSOR_SHAPES.items()}
    applied = 0
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            tensor, key = _target(statement.targets[0], tensors)
            tensor[key] = ast.literal_eval(statement.value)
        elif isinstance(statement, ast.AugAssign):
            tensor, key = _target(statement.target, tensors)
            value = ast.literal_eval(statement.value)
            if isinstance(statement.op, ast.Mult):
                tensor[key] *= value
            elif isinstance(statement.op, ast.Add):
                tensor[key] += value
            elif isinstance(statement.op, ast.Sub):
                tensor[key] -= value
            else:
                raise ValueError("only *=, +=, and -= augmented edits are allowed")
        else:
            raise ValueError("edits may contain only assignments")
        applied += 1
    values = np.concatenate([tensor.ravel() for tensor in tensors.values()])
    if not np.all(np.isfinite(values)) or np.max(np.abs(values), initial=0.0) > 1e6:
        raise ValueError("weights must be finite and have absolute value at most 1e6")
    return tensors, applied
