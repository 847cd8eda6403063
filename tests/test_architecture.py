"""The layering of docs/architecture.md, checked on the source: imports point down, packages and modules form no
circle, `superbeam` imports nothing from wspbench, no code outside the task families asks which family or source a
task belongs to, and none outside `wspbench/protocols/` asks which protocol a run has."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
LAYERS = {  # bottom to top
    "wspbench.networks": 0,
    "wspbench.answers": 0,
    "wspbench.inputs": 0,
    "wspbench.files": 0,
    "wspbench.words": 0,
    "wspbench.statistics": 0,
    "wspbench.sandbox": 0,
    "wspbench.games": 1,
    "wspbench.evaluation": 1,
    "wspbench.protocols": 2,
    "wspbench.tasks": 3,
    "wspbench.baselines": 4,
    "wspbench.harness": 4,
    "wspbench.export": 4,
    "wspbench.report": 4,
    "wspbench.verifier": 4,
    "wspbench.integrations": 4,
    "wspbench.cli": 5,
}
DISGUISED = re.compile(  # a family switch by another name: a flag that only some families set, or a shape test
    r"""\banswer_is_network\b|\blen\(\s*[\w.]*shape\s*\)\s*(?:==|!=)|\.ndim\s*==|\bisinstance\([^)]*\b"""
    r"""(?:MinAtarTask|SuperbeamTask|IdentifyTask|RepairTask)\b"""
)
SWITCH = re.compile(
    r"""(?:==|!=|\bin\b)\s*\(?["'](?:superbeam|minatar|original|synth)["']|"""
    r"""["'](?:superbeam|minatar|original|synth)["']\s*(?:==|!=)|"""
    r"""\b(?:family|source)\s*(?:==|!=|\bin\b)"""
)


def modules(package: str):
    for path in sorted((SRC / package).rglob("*.py")):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        yield name, path


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from wspbench import verifier` imports the module wspbench.verifier
                module = f"{node.module}.{alias.name}"
                found.add(module if is_module(module) else node.module)
    return found


def is_module(name: str) -> bool:
    path = SRC.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def layer(module: str) -> tuple[str, int] | None:
    for prefix, level in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return prefix, level
    return None


def test_imports_point_down():
    upward = []
    for name, path in modules("wspbench"):
        own = layer(name)
        if own is None:
            continue
        for imported in imports(path):
            other = layer(imported)
            if other is not None and other[1] > own[1]:
                upward.append(f"{name} imports {imported}")
    assert upward == []


def test_the_package_root_is_the_top_and_imports_lazily():
    """`wspbench/__init__.py` (the Python API) may name every layer, but only when a name is first used (so
    `import wspbench` and `wsp --help` stay fast), and no module inside imports the package root."""
    root = SRC / "wspbench" / "__init__.py"
    eager = [
        name
        for node in ast.parse(root.read_text()).body  # module level, not in a function
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in ([node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
        if name and name.startswith("wspbench")
    ]
    assert eager == []
    assert [name for name, path in modules("wspbench") if name != "wspbench" and "wspbench" in imports(path)] == []


def test_packages_form_no_circle():
    edges: dict[str, set[str]] = {}
    for name, path in modules("wspbench"):
        own = layer(name)
        for imported in imports(path):
            other = layer(imported)
            if own and other and own[0] != other[0]:
                edges.setdefault(own[0], set()).add(other[0])

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in edges.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    assert [package for package in edges if reaches(package, package, set())] == []


def test_superbeam_imports_nothing_from_wspbench():
    assert [
        f"{name}: {m}"
        for name, path in modules("superbeam")
        for m in imports(path)
        if m == "wspbench" or m.startswith("wspbench.")
    ] == []


def test_no_family_or_source_switch_outside_the_families():
    families = SRC / "wspbench" / "tasks"
    games = SRC / "wspbench" / "games"
    found = []
    for _, path in modules("wspbench"):
        if path.is_relative_to(families) or path.is_relative_to(games):
            continue
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            if SWITCH.search(code):
                found.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert found == []


def test_no_family_switch_in_disguise_outside_the_families():
    """A flag that only some families set, a test of a screen's or input's rank, or a family's class: each asks
    which family a task is by another name. Outside the families, code reads what a task declares (`GameTask`,
    `Game.grid`). The answer formats (answers/) and networks.py handle tensors of every rank by design."""
    allowed = [SRC / "wspbench" / folder for folder in ("tasks", "games", "answers", "networks.py")]
    found = [
        f"{path.relative_to(SRC)}:{number}: {line.strip()}"
        for _, path in modules("wspbench")
        if not any(path.is_relative_to(place) for place in allowed)
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if DISGUISED.search(line.split("#", 1)[0])
    ]
    assert found == []


FAMILY_MODULES = {  # what only the registry and the families themselves may import
    "wspbench.tasks.minatar",
    "wspbench.tasks.minatar_prompt",
    "wspbench.tasks.superbeam",
    "wspbench.tasks.identify",
    "wspbench.tasks.repair",
    "wspbench.tasks.reading_set",
}
FAMILY_NAMES = ("original", "synth", "gen", "superbeam", "identify", "identify-choice", "repair", "minatar")
BUILDERS = SRC / "wspbench" / "baselines"  # each makes one family's data (PPO networks, generated games' calibration,
# reading sets) for the registry to read: a family's own tools, so they may import it


def family_text(value) -> bool:
    return isinstance(value, str) and any(value == n or value.startswith(n + "/") for n in FAMILY_NAMES)


def test_family_knowledge_lives_in_tasks():
    """issue 41: outside wspbench/tasks/, wspbench/games/ (and the game packages and family builders) no module
    imports a family module or compares a value with a family name or id prefix (`==`, `in`, `startswith`): what
    a family needs elsewhere is a method or field of its tasks (`Task.offline_reply`, `seed_game`, `skill`,
    `tasks.grading_file`, `tasks.set_tasks`...)."""
    found = []
    for _, path in modules("wspbench"):
        if path.is_relative_to(SRC / "wspbench" / "tasks") or path.is_relative_to(SRC / "wspbench" / "games"):
            continue
        where = path.relative_to(SRC)
        if not path.is_relative_to(BUILDERS):
            found += [f"{where}: imports {m}" for m in imports(path) if m in FAMILY_MODULES]
        for node in ast.walk(ast.parse(path.read_text())):
            compared = []
            if isinstance(node, ast.Compare):
                compared = [node.left, *node.comparators]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith":
                compared = list(node.args)
            for side in compared:
                values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                if any(isinstance(v, ast.Constant) and family_text(v.value) for v in values):
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert found == []


PROTOCOL_NAMES = ("one-shot", "feedback", "agent")


def test_no_protocol_name_is_compared_outside_its_package():
    """issue 51: outside wspbench/protocols/ no code compares a value with a protocol's name (`==`, `!=`, `in`): what
    differs between protocols is a rule, a word or a declared fact of the protocol (`kernel`, `secret_held_out`,
    `settings`...), which the conversation, the prompts and the drivers ask it."""
    found = []
    for _, path in modules("wspbench"):
        if path.is_relative_to(SRC / "wspbench" / "protocols"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare):
                for side in [node.left, *node.comparators]:
                    values = side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side]
                    if any(isinstance(v, ast.Constant) and v.value in PROTOCOL_NAMES for v in values):
                        found.append(f"{path.relative_to(SRC)}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert found == []


def test_modules_form_no_circle():
    """issue 51: no module imports, directly or through others, a module that imports it back (`evaluation/compiled/
    batch.py` and `engine.py` did), at any depth, lazy imports included."""
    names = {name for name, _ in modules("wspbench")}
    edges = {
        name: {imported for imported in imports(path) if imported in names and imported != name}
        for name, path in modules("wspbench")
    }
    cycles = []
    for start in sorted(edges):
        seen, stack = set(), [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    cycles.append(" -> ".join([*path, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*path, nxt]))
    assert cycles == []
