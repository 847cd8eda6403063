"""The assembler, the disassembler and the `wsp chip8` commands."""

import json
import os
import random
from importlib.resources import files

import pytest
from typer.testing import CliRunner

from superbeam.assembler import FORMS, AsmError, assemble, assemble_file
from superbeam.disassembler import decode, disassemble
from wspbench.cli.superbeam import chip8_app

DEMO = files("superbeam") / "roms" / "demo.asm"

# One line per instruction form, with its encoding.
EVERY_FORM = [
    ("CLS", 0x00E0),
    ("RET", 0x00EE),
    ("SYS 0x123", 0x0123),
    ("JP 0x345", 0x1345),
    ("JP V0, 0x345", 0xB345),
    ("CALL 0x456", 0x2456),
    ("SE V3, 0x42", 0x3342),
    ("SNE V3, 66", 0x4342),
    ("SE V3, V4", 0x5340),
    ("LD VA, 255", 0x6AFF),
    ("ADD VA, -1", 0x7AFF),
    ("LD V1, V2", 0x8120),
    ("OR V1, V2", 0x8121),
    ("AND V1, V2", 0x8122),
    ("XOR V1, V2", 0x8123),
    ("ADD V1, V2", 0x8124),
    ("SUB V1, V2", 0x8125),
    ("SHR V1, V2", 0x8126),
    ("SHR V7", 0x8776),
    ("SUBN V1, V2", 0x8127),
    ("SHL V1, V2", 0x812E),
    ("SHL V7", 0x877E),
    ("SNE V1, V2", 0x9120),
    ("LD I, 0xABC", 0xAABC),
    ("RND VE, 0x0F", 0xCE0F),
    ("DRW V1, V2, 15", 0xD12F),
    ("SKP V9", 0xE99E),
    ("SKNP V9", 0xE9A1),
    ("LD V5, DT", 0xF507),
    ("LD V5, K", 0xF50A),
    ("LD DT, V5", 0xF515),
    ("LD ST, V5", 0xF518),
    ("ADD I, V5", 0xF51E),
    ("LD F, V5", 0xF529),
    ("LD B, V5", 0xF533),
    ("LD [I], V5", 0xF555),
    ("LD V5, [I]", 0xF565),
]


@pytest.mark.parametrize("line, word", EVERY_FORM, ids=[line for line, _ in EVERY_FORM])
def test_every_form(line, word):
    assert assemble(line).code == word.to_bytes(2, "big")
    assert assemble(line.lower()).code == word.to_bytes(2, "big")  # case-insensitive


def test_every_form_is_covered():
    covered = {(line.split()[0], tuple(_kinds(line))) for line, _ in EVERY_FORM}
    assert covered == set(FORMS)


def _kinds(line):
    from superbeam.assembler import _kind

    rest = line.split(None, 1)[1] if " " in line else ""
    return [_kind(a.strip()) for a in rest.split(",")] if rest else []


def test_labels_constants_and_data():
    p = assemble(
        """
    ; forward references everywhere
    HEIGHT  EQU sprite_end - sprite    ; a constant from labels defined later
    TWICE   EQU HEIGHT * 2
    SIZE    EQU 2                      ; DS needs a size known where it is used
    start:  LD I, sprite
            DRW V0, V1, HEIGHT
            JP start
    sprite: DB 0b11110000, 0x90, -1    ; comment after data
    sprite_end:
    word:   DW 0x1234, start
    buf:    DS SIZE
    end:
    """,
        "inline.asm",
    )
    assert p.sym == {
        "HEIGHT": 3,
        "SIZE": 2,
        "TWICE": 6,
        "start": 0x200,
        "sprite": 0x206,
        "sprite_end": 0x209,
        "word": 0x209,
        "buf": 0x20D,
        "end": 0x20F,
    }
    assert p.labels == {k: v for k, v in p.sym.items() if k not in ("HEIGHT", "SIZE", "TWICE")}
    assert p.code.hex() == "a206d0131200f090ff12340200" + "0000"
    assert p.lines[0x202] == ("inline.asm", 7)


def test_several_labels_and_expressions():
    p = assemble("a: c:\nd: LD V0, (3 + 4) * 2 | 0x80 ; x\nLD V1, ~0 & 0xFF\nLD V2, 1 << 4 // 2")
    assert p.sym == {"a": 0x200, "c": 0x200, "d": 0x200}
    assert p.code == bytes([0x60, 0x8E, 0x61, 0xFF, 0x62, 0x04])  # Python precedence


def test_include(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "data.asm").write_text('ETAB: DB 1, 2, 3, 4\nINCLUDE "more.asm"\n')
    (tmp_path / "lib" / "more.asm").write_text("MORE EQU 9\n")
    (tmp_path / "main.asm").write_text('LD I, ETAB\nLD V0, MORE\nINCLUDE "lib/data.asm"\n')
    p = assemble_file(tmp_path / "main.asm")
    assert p.sym["ETAB"] == 0x204 and p.sym["MORE"] == 9
    assert p.code == bytes.fromhex("a204600901020304")


def test_include_errors(tmp_path):
    (tmp_path / "loop.asm").write_text('CLS\nINCLUDE "loop.asm"\n')
    with pytest.raises(AsmError, match=r"loop.asm:2: INCLUDE \"loop.asm\" includes itself"):
        assemble_file(tmp_path / "loop.asm")
    (tmp_path / "main.asm").write_text('CLS\n\nINCLUDE "missing.asm"\n')
    with pytest.raises(AsmError, match=r"main.asm:3: cannot read \"missing.asm\""):
        assemble_file(tmp_path / "main.asm")
    (tmp_path / "bad.asm").write_text("CLS\nJP nowhere\n")
    (tmp_path / "outer.asm").write_text('INCLUDE "bad.asm"\n')
    with pytest.raises(AsmError, match=r"bad.asm:2: undefined symbol 'nowhere'"):
        assemble_file(tmp_path / "outer.asm")


def test_include_of_a_fifo_or_a_huge_file_is_an_error_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "pipe.asm")
    (tmp_path / "main.asm").write_text('CLS\nINCLUDE "pipe.asm"\n')
    with pytest.raises(AsmError, match=r"main.asm:2: cannot read \"pipe.asm\": not a regular file"):
        assemble_file(tmp_path / "main.asm")
    (tmp_path / "huge.asm").write_text("CLS\n" * 300_000)
    (tmp_path / "main.asm").write_text('INCLUDE "huge.asm"\n')
    with pytest.raises(AsmError, match=r"main.asm:1: \"huge.asm\" has more than 1,000,000 characters"):
        assemble_file(tmp_path / "main.asm")


@pytest.mark.parametrize(
    "source, line, message",
    [
        ("CLS\nFOO V1", 2, "unknown mnemonic or directive 'FOO'"),
        ("CLS\n\nLD V1, V2, V3", 3, "bad operands 'V1, V2, V3' for LD"),
        ("DRW V1, 5, 3", 1, "bad operands 'V1, 5, 3' for DRW (expected DRW V, V, n"),
        ("LD V1, 256", 1, "value 256 of '256' is out of range -128..255"),
        ("ADD V1, -129", 1, "out of range -128..255"),
        ("JP 0x1000", 1, "out of range 0..4095"),
        ("DRW V1, V2, 16", 1, "out of range 0..15"),
        ("CLS\nJP later_label_typo\nlater_label:", 2, "undefined symbol 'later_label_typo'"),
        ("x: CLS\nx: RET", 2, "'x' is already defined at prog.asm:1"),
        ("N EQU 1\nN: CLS", 2, "'N' is already defined"),
        ("VA: CLS", 1, "'VA' is a register name"),
        ("DT EQU 3", 1, "'DT' is a register name"),
        ("k: CLS", 1, "'k' is a register name"),
        ("JP V1, 0x300", 1, "JP with a register only takes V0"),
        ("X EQU Y\nY EQU X\nLD V0, X", 2, "defined in terms of itself"),
        ("LD V0, 3 +", 1, "cannot read expression '3 +'"),
        ("LD V0, foo(3)", 1, "not allowed in an expression"),
        ("LD V0, 'a'", 1, "not allowed in an expression"),
        ("LD V0, 1 // 0", 1, "division or modulo by zero in '1 // 0'"),
        ("DS later\nlater:", 1, "undefined symbol 'later'"),
        ("DB", 1, "DB needs at least one value"),
        ("DB 1, 256", 1, "out of range -128..255"),
        ("DW 0x10000", 1, "out of range 0..65535"),
        ("CLS\nDS 3582\nCLS", 3, "program too large"),
        ("INCLUDE data.asm", 1, "INCLUDE needs a quoted path"),
    ],
)
def test_errors_name_file_and_line(source, line, message):
    with pytest.raises(AsmError) as err:
        assemble(source, "prog.asm")
    assert err.value.line == line and err.value.file == "prog.asm"
    assert str(err.value).startswith(f"prog.asm:{line}: ")
    assert message in str(err.value)


def test_program_may_fill_ram_exactly():
    assert len(assemble("DS 3584").code) == 3584


# --- disassembler ---------------------------------------------------------


def test_decode():
    assert decode(0x00E0) == "CLS"
    assert decode(0x8126) == "SHR V1, V2"
    assert decode(0xB345) == "JP V0, 0x345"
    assert decode(0xD12F) == "DRW V1, V2, 15"
    assert decode(0xF555) == "LD [I], V5"
    assert decode(0x2300, {0x300: "draw"}) == "CALL draw"
    for word in (0x0000, 0x5121, 0x8128, 0xE100, 0xF199):
        assert decode(word) is None


def test_every_form_round_trips():
    for line, word in EVERY_FORM:
        text = decode(word)
        assert assemble(text).code == word.to_bytes(2, "big"), (line, text)


def test_demo_round_trips_with_and_without_labels():
    program = assemble_file(DEMO)
    with_labels = disassemble(program.code, labels=program.labels)
    assert "wait_frame:" in with_labels and "CALL wait_frame" in with_labels
    assert assemble(with_labels).code == program.code
    assert assemble(disassemble(program.code)).code == program.code


def test_random_bytes_round_trip():
    rng = random.Random(1)
    for size in (1, 2, 3, 100, 333):
        code = bytes(rng.randrange(256) for _ in range(size))
        labels = {f"L{i}": 0x200 + rng.randrange(size + 1) for i in range(5)}
        again = assemble(disassemble(code, labels=labels))
        assert again.code == code
        assert all(again.sym[name] == addr for name, addr in labels.items())


def test_odd_label_realigns_the_sweep():
    p = assemble("JP code\nbyte: DB 7\ncode: CLS\nJP code")
    text = disassemble(p.code, labels=p.labels)
    assert "    DB 0x07" in text and "code:\n    CLS" in text and "JP code" in text


# --- commands -------------------------------------------------------------


def test_commands(tmp_path):
    runner = CliRunner()
    out, sym = tmp_path / "demo.ch8", tmp_path / "demo.json"
    result = runner.invoke(chip8_app, ["asm", str(DEMO), "-o", str(out), "--sym", str(sym)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == assemble_file(DEMO).code
    assert json.loads(sym.read_text())["wait_frame"] == assemble_file(DEMO).sym["wait_frame"]

    png = tmp_path / "screen.png"
    result = runner.invoke(chip8_app, ["run", str(out), "--frames", "5", "--key", "6", "--png", str(png)])
    assert result.exit_code == 0, result.output
    assert "VA=32" in result.output and "\u2588" in result.output
    from PIL import Image

    assert Image.open(png).size == (512, 256)

    result = runner.invoke(chip8_app, ["disasm", str(DEMO)])
    assert result.exit_code == 0 and "wait_frame:" in result.output


def test_command_errors(tmp_path):
    runner = CliRunner()
    bad = tmp_path / "bad.asm"
    bad.write_text("CLS\nLD V0, 999\n")
    result = runner.invoke(chip8_app, ["asm", str(bad)])
    assert result.exit_code == 1 and "bad.asm:2:" in result.output
    crash = tmp_path / "crash.asm"
    crash.write_text("CLS\nDW 0x5121\n")
    result = runner.invoke(chip8_app, ["run", str(crash), "--no-show"])
    assert result.exit_code == 1 and "invalid opcode 0x5121 at 0x202" in result.output
    result = runner.invoke(chip8_app, ["run", str(crash), "--quirk", "nope"])
    assert result.exit_code == 2 and "unknown quirk" in result.output
