"""Disassembler for debugging: turns bytes back into source the assembler accepts.

It sweeps linearly in two-byte words from the origin. Words that are not
instructions become DW; a single DB is put before a label at an odd offset so
that the sweep lines up with it again. Reassembling the output gives the same
bytes.
"""

from __future__ import annotations

from superbeam.assembler import FORMS
from superbeam.chip8 import PROGRAM_ADDR


def _patterns():
    """Templates by specificity (most fixed hex digits first); the one-register
    SHR/SHL spellings are for writing only."""
    forms = [(t, name, kinds) for (name, kinds), t in FORMS.items() if "xx" not in t]
    return sorted(forms, key=lambda f: -sum(c in "0123456789ABCDEF" for c in f[0]))


PATTERNS = _patterns()


def decode(word: int, names: dict[int, str] | None = None) -> str | None:
    """The instruction text for a 16-bit word, or None if it is not one."""
    if word == 0x0000:
        return None  # SYS 0 is almost always zero-filled data
    digits = f"{word:04X}"
    for template, name, kinds in PATTERNS:  # noqa: B007 - the matching row is read after the loop
        if all(t == d for t, d in zip(template, digits, strict=False) if t in "0123456789ABCDEF"):
            break
    else:
        return None
    regs = [int(digits[i], 16) for i in (1, 2) if template[i] in "xy"] or [0]
    if "nnn" in template:
        value = word & 0xFFF
        number = (names or {}).get(value, f"0x{value:03X}")
    elif "kk" in template:
        number = f"0x{word & 0xFF:02X}"
    else:
        number = str(word & 0xF)
    operands = []
    for kind in kinds:
        if kind == "V":
            operands.append(f"V{regs.pop(0):X}")
        elif kind == "n":
            operands.append(number)
        else:
            operands.append(kind)
    return f"{name} {', '.join(operands)}".strip()


def disassemble(code: bytes, origin: int = PROGRAM_ADDR, labels: dict[str, int] | None = None) -> str:
    """Source text for code loaded at origin, with label lines where given."""
    end = origin + len(code)
    at: dict[int, list[str]] = {}
    for label, addr in sorted((labels or {}).items()):
        if origin <= addr <= end:
            at.setdefault(addr, []).append(label)
    names = {addr: label[0] for addr, label in at.items()}
    out = []
    addr = origin
    while addr < end:
        out += [f"{label}:" for label in at.get(addr, [])]
        offset = addr - origin
        if addr + 1 == end or addr + 1 in at:
            text, size = f"DB 0x{code[offset]:02X}", 1
        else:
            word = code[offset] << 8 | code[offset + 1]
            text = decode(word, names) or f"DW 0x{word:04X}"
            size = 2
        raw = code[offset : offset + size].hex().upper()
        out.append(f"    {text:<24}; {addr:03X}: {raw}")
        addr += size
    out += [f"{label}:" for label in at.get(end, [])]
    return "\n".join(out) + "\n"
