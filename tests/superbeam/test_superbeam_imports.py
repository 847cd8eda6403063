"""The `superbeam` package is the machine, assembler, game, environment and features: it imports nothing from
`wspbench` (wspbench's SUPERBEAM task imports superbeam, never the other way round)."""

import ast
from pathlib import Path

import superbeam


def imported_modules(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            names.add(str(node.args[0].value))
    return names


def test_superbeam_imports_nothing_from_wspbench():
    files = sorted(Path(superbeam.__file__).parent.glob("*.py"))
    assert {f.name for f in files} >= {
        "chip8.py",
        "assembler.py",
        "disassembler.py",
        "levels.py",
        "physics.py",
        "env.py",
        "features.py",
    }
    for file in files:
        modules = imported_modules(ast.parse(file.read_text(), str(file)))
        assert not [m for m in modules if m.split(".")[0] == "wspbench"], file.name
