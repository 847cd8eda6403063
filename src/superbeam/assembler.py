"""Assembler for CHIP-8 programs in Cowgod-style mnemonics (syntax: docs/chip8.md).

Two passes: the first expands INCLUDEs, places every line at an address and
defines labels; the second evaluates operands and encodes. Every error names
the file and line. The instruction table FORMS is shared with the disassembler.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path

from superbeam.chip8 import PROGRAM_ADDR, RAM_SIZE

# (mnemonic, operand kinds) -> opcode template in Cowgod's notation. Kinds:
# "V" a register V0..VF, "n" an expression, or a fixed operand (I, [I], DT, ST,
# K, F, B). In a template, x and y are the first and second register, nnn a
# 12-bit address, kk a byte and n a nibble; "8xx6" puts the one register in
# both slots so that SHR Vx shifts Vx under either shift quirk.
FORMS: dict[tuple[str, tuple[str, ...]], str] = {
    ("CLS", ()): "00E0",
    ("RET", ()): "00EE",
    ("SYS", ("n",)): "0nnn",
    ("JP", ("n",)): "1nnn",
    ("JP", ("V", "n")): "Bnnn",  # the register must be V0
    ("CALL", ("n",)): "2nnn",
    ("SE", ("V", "n")): "3xkk",
    ("SNE", ("V", "n")): "4xkk",
    ("SE", ("V", "V")): "5xy0",
    ("LD", ("V", "n")): "6xkk",
    ("ADD", ("V", "n")): "7xkk",
    ("LD", ("V", "V")): "8xy0",
    ("OR", ("V", "V")): "8xy1",
    ("AND", ("V", "V")): "8xy2",
    ("XOR", ("V", "V")): "8xy3",
    ("ADD", ("V", "V")): "8xy4",
    ("SUB", ("V", "V")): "8xy5",
    ("SHR", ("V", "V")): "8xy6",
    ("SHR", ("V",)): "8xx6",
    ("SUBN", ("V", "V")): "8xy7",
    ("SHL", ("V", "V")): "8xyE",
    ("SHL", ("V",)): "8xxE",
    ("SNE", ("V", "V")): "9xy0",
    ("LD", ("I", "n")): "Annn",
    ("RND", ("V", "n")): "Cxkk",
    ("DRW", ("V", "V", "n")): "Dxyn",
    ("SKP", ("V",)): "Ex9E",
    ("SKNP", ("V",)): "ExA1",
    ("LD", ("V", "DT")): "Fx07",
    ("LD", ("V", "K")): "Fx0A",
    ("LD", ("DT", "V")): "Fx15",
    ("LD", ("ST", "V")): "Fx18",
    ("ADD", ("I", "V")): "Fx1E",
    ("LD", ("F", "V")): "Fx29",
    ("LD", ("B", "V")): "Fx33",
    ("LD", ("[I]", "V")): "Fx55",
    ("LD", ("V", "[I]")): "Fx65",
}
MNEMONICS = {name for name, _ in FORMS}
FIXED_OPERANDS = {"I", "[I]", "DT", "ST", "K", "F", "B"}
RANGES = {"nnn": (0, 0xFFF), "kk": (-128, 0xFF), "n": (0, 0xF)}
MAX_INCLUDE_CHARS = 1_000_000  # an included source file, as large as a top-level one may be

REGISTER = re.compile(r"V[0-9A-F]$", re.IGNORECASE)
LABEL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*):")
EQU = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.]*)\s+EQU\s+(.+)$", re.IGNORECASE)

BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
UNOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}


class AsmError(Exception):
    """An assembly error at a source line."""

    def __init__(self, file: str, line: int, message: str):
        super().__init__(f"{file}:{line}: {message}")
        self.file, self.line, self.message = file, line, message


@dataclass
class Program:
    """An assembled program: bytes to load at `origin`, and its symbols."""

    code: bytes
    sym: dict[str, int]  # every label and constant
    labels: dict[str, int]  # the labels alone (addresses)
    lines: dict[int, tuple[str, int]] = field(default_factory=dict)  # addr -> file, line
    origin: int = PROGRAM_ADDR


@dataclass
class _Line:
    file: str
    line: int
    addr: int
    op: str  # a mnemonic or DB / DW / DS
    args: list[str]

    def error(self, message: str) -> AsmError:
        return AsmError(self.file, self.line, message)


def assemble_file(path: str | Path) -> Program:
    """Assemble a source file; INCLUDE paths are relative to the including file."""
    path = Path(path)
    return assemble(path.read_text(), str(path))


def assemble(source: str, file: str = "<string>") -> Program:
    """Assemble source text into a Program at 0x200."""
    return _Assembler().run(source, file)


class _Assembler:
    def __init__(self):
        self.labels: dict[str, int] = {}
        self.consts: dict[str, _Line] = {}  # name -> its EQU line
        self.values: dict[str, int] = {}  # evaluated constants
        self.defined: dict[str, _Line] = {}
        self.resolving: set[str] = set()

    def run(self, source: str, file: str) -> Program:
        items = self.place(self.expand(source, file, ()))
        code = bytearray()
        lines = {}
        for item in items:
            code += self.encode(item)
            if item.op in MNEMONICS:
                lines[item.addr] = (item.file, item.line)
        for name, at in self.consts.items():
            self.value(name, at)
        sym = {**self.values, **self.labels}
        return Program(bytes(code), dict(sorted(sym.items())), dict(self.labels), lines)

    # --- pass 1 ------------------------------------------------------------

    def expand(self, source: str, file: str, stack: tuple[Path, ...]):
        """Yield (file, line number, text) with INCLUDE lines replaced by their files."""
        for number, text in enumerate(source.splitlines(), 1):
            text = text.split(";", 1)[0].strip()
            head = text.split(None, 1)
            if not head:
                continue
            if head[0].upper() != "INCLUDE":
                yield file, number, text
                continue
            arg = head[1].strip() if len(head) > 1 else ""
            if len(arg) < 3 or arg[0] != '"' or arg[-1] != '"':
                raise AsmError(file, number, 'INCLUDE needs a quoted path: INCLUDE "file.asm"')
            path = Path(file).parent / arg[1:-1]
            chain = stack + (Path(file).resolve(),)
            if path.resolve() in chain:
                raise AsmError(file, number, f"INCLUDE {arg} includes itself")
            if path.exists() and not path.is_file():  # a FIFO or a device would block or never end
                raise AsmError(file, number, f"cannot read {arg}: not a regular file")
            try:
                with path.open(encoding="utf-8", errors="replace") as stream:
                    inner = stream.read(MAX_INCLUDE_CHARS + 1)
            except OSError as e:
                raise AsmError(file, number, f"cannot read {arg}: {e.strerror}") from None
            if len(inner) > MAX_INCLUDE_CHARS:
                raise AsmError(file, number, f"{arg} has more than {MAX_INCLUDE_CHARS:,} characters")
            yield from self.expand(inner, str(path), chain)

    def place(self, lines) -> list[_Line]:
        """Give every statement its address and define labels and constants."""
        items = []
        addr = PROGRAM_ADDR
        for file, number, text in lines:
            equ = EQU.match(text)
            if equ:
                at = _Line(file, number, addr, "EQU", [equ.group(2).strip()])
                self.define(equ.group(1), at)
                self.consts[equ.group(1)] = at
                continue
            while match := LABEL.match(text):
                self.define(match.group(1), _Line(file, number, addr, "", []))
                self.labels[match.group(1)] = addr
                text = text[match.end() :].strip()
            if not text:
                continue
            op, *rest = text.split(None, 1)
            op = op.upper()
            args = [a.strip() for a in rest[0].split(",")] if rest else []
            item = _Line(file, number, addr, op, args)
            if op in MNEMONICS:
                addr += 2
            elif op in ("DB", "DW"):
                if not args:
                    raise item.error(f"{op} needs at least one value")
                addr += len(args) * (1 if op == "DB" else 2)
            elif op == "DS":
                if len(args) != 1:
                    raise item.error("DS takes one operand: the number of zero bytes")
                addr += self.number(args[0], item, 0, RAM_SIZE)
            else:
                raise item.error(f"unknown mnemonic or directive '{op}'")
            if addr > RAM_SIZE:
                raise item.error(f"program too large: it passes the end of RAM (0x{RAM_SIZE:X})")
            items.append(item)
        return items

    def define(self, name: str, at: _Line) -> None:
        if REGISTER.match(name) or name.upper() in FIXED_OPERANDS:
            raise at.error(f"'{name}' is a register name, not a symbol")
        if name in self.defined:
            first = self.defined[name]
            raise at.error(f"'{name}' is already defined at {first.file}:{first.line}")
        self.defined[name] = at

    # --- pass 2 ------------------------------------------------------------

    def encode(self, item: _Line) -> bytes:
        if item.op == "DB":
            return bytes(self.number(a, item, -128, 0xFF) & 0xFF for a in item.args)
        if item.op == "DW":
            return b"".join(self.number(a, item, 0, 0xFFFF).to_bytes(2, "big") for a in item.args)
        if item.op == "DS":
            return bytes(self.number(item.args[0], item, 0, RAM_SIZE))
        kinds = tuple(_kind(a) for a in item.args)
        template = FORMS.get((item.op, kinds))
        if template is None:
            forms = " or ".join(f"{item.op} {', '.join(k)}".strip() for name, k in FORMS if name == item.op)
            raise item.error(
                f"bad operands '{', '.join(item.args)}' for {item.op} (expected {forms}; V is a register, n a value)"
            )
        regs = [int(a[1], 16) for a, k in zip(item.args, kinds, strict=False) if k == "V"]
        if template == "Bnnn" and regs != [0]:
            raise item.error("JP with a register only takes V0: JP V0, addr")
        word = int(re.sub("[xykn]", "0", template), 16)
        if template[1] == "x":
            word |= regs[0] << 8
        if template[2] == "y":
            word |= regs[1] << 4
        elif template[2] == "x":
            word |= regs[0] << 4
        slot = re.search("nnn|kk|n", template)
        if slot:
            low, high = RANGES[slot.group()]
            value = self.number(item.args[kinds.index("n")], item, low, high)
            word |= value & (16 ** len(slot.group()) - 1)
        return word.to_bytes(2, "big")

    def number(self, expr: str, at: _Line, low: int, high: int) -> int:
        """Evaluate an operand and check that it lies in low..high."""
        value = self.evaluate(expr, at)
        if not low <= value <= high:
            raise at.error(f"value {value} of '{expr}' is out of range {low}..{high}")
        return value

    def evaluate(self, expr: str, at: _Line) -> int:
        """Integer arithmetic over numbers, labels and constants (Python syntax)."""
        try:
            tree = ast.parse(expr, mode="eval").body
        except SyntaxError:
            raise at.error(f"cannot read expression '{expr}'") from None

        def walk(node):
            if isinstance(node, ast.Constant) and type(node.value) is int:
                return node.value
            if isinstance(node, ast.Name):
                return self.value(node.id, at)
            if isinstance(node, ast.BinOp) and type(node.op) in BINOPS:
                try:
                    return BINOPS[type(node.op)](walk(node.left), walk(node.right))
                except (ZeroDivisionError, ValueError) as e:
                    raise at.error(f"{e} in '{expr}'") from None
            if isinstance(node, ast.UnaryOp) and type(node.op) in UNOPS:
                return UNOPS[type(node.op)](walk(node.operand))
            raise at.error(f"not allowed in an expression: '{ast.unparse(node)}'")

        return walk(tree)

    def value(self, name: str, at: _Line) -> int:
        """A symbol's value; constants are evaluated on first use."""
        if name in self.labels:
            return self.labels[name]
        if name in self.values:
            return self.values[name]
        if name not in self.consts:
            raise at.error(f"undefined symbol '{name}'")
        if name in self.resolving:
            raise at.error(f"constant '{name}' is defined in terms of itself")
        self.resolving.add(name)
        self.values[name] = self.evaluate(self.consts[name].args[0], self.consts[name])
        self.resolving.discard(name)
        return self.values[name]


def _kind(operand: str) -> str:
    """Classify an operand as a register, a fixed operand or an expression."""
    if REGISTER.match(operand):
        return "V"
    if operand.upper().replace(" ", "") in FIXED_OPERANDS:
        return operand.upper().replace(" ", "")
    return "n"
