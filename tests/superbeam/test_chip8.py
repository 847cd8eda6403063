"""The CHIP-8 machine: every instruction, the quirks, timers, frames and errors."""

from importlib.resources import files

import numpy as np
import pytest

from superbeam.assembler import assemble, assemble_file
from superbeam.chip8 import FONT, FONT_ADDR, Chip8, Chip8Error, Quirks


def rom(*words: int) -> bytes:
    return b"".join(w.to_bytes(2, "big") for w in words)


def machine(*words: int, quirks: Quirks | None = None, **state) -> Chip8:
    """A machine with the words at 0x200 and state such as V3=7, I=0x300, keys=[5]."""
    m = Chip8(rom(*words), quirks=quirks or Quirks())
    for name, value in state.items():
        if name.startswith("V") and len(name) == 2:
            m.V[int(name[1], 16)] = value
        elif name == "keys":
            m.set_keys(value)
        elif name == "stack":
            m.stack[:] = value
        elif name == "mem":
            for addr, byte in value.items():
                m.write(addr, bytes([byte]))
        else:
            setattr(m, name, value)
    return m


def check(m: Chip8, **expected) -> None:
    for name, value in expected.items():
        if name.startswith("V") and len(name) == 2:
            actual = m.V[int(name[1], 16)]
        elif name == "mem":
            actual = {addr: m.ram(addr) for addr in value}
        else:
            actual = getattr(m, name)
        assert actual == value, f"{name}: {actual!r} != {value!r}"


# (name, program, state before, state after one step)
CASES = [
    ("RET", [0x00EE], dict(stack=[0x300]), dict(pc=0x300, stack=[])),
    ("SYS", [0x0123], dict(V0=1), dict(pc=0x202, V0=1, stack=[])),
    ("JP", [0x1234], {}, dict(pc=0x234)),
    ("CALL", [0x2345], {}, dict(pc=0x345, stack=[0x202])),
    ("SE byte equal", [0x3A42], dict(VA=0x42), dict(pc=0x204)),
    ("SE byte differ", [0x3A42], dict(VA=0x41), dict(pc=0x202)),
    ("SNE byte equal", [0x4A42], dict(VA=0x42), dict(pc=0x202)),
    ("SNE byte differ", [0x4A42], dict(VA=0x41), dict(pc=0x204)),
    ("SE reg equal", [0x5120], dict(V1=9, V2=9), dict(pc=0x204)),
    ("SE reg differ", [0x5120], dict(V1=9, V2=8), dict(pc=0x202)),
    ("LD byte", [0x6C7F], {}, dict(VC=0x7F, pc=0x202)),
    ("ADD byte", [0x7305], dict(V3=10), dict(V3=15)),
    ("ADD byte wraps, no flag", [0x7310], dict(V3=0xF8, VF=7), dict(V3=0x08, VF=7)),
    ("LD reg", [0x8120], dict(V2=33), dict(V1=33, V2=33)),
    ("OR", [0x8121], dict(V1=0b1100, V2=0b1010, VF=5), dict(V1=0b1110, VF=5)),
    ("AND", [0x8122], dict(V1=0b1100, V2=0b1010, VF=5), dict(V1=0b1000, VF=5)),
    ("XOR", [0x8123], dict(V1=0b1100, V2=0b1010, VF=5), dict(V1=0b0110, VF=5)),
    ("ADD reg", [0x8124], dict(V1=100, V2=50, VF=9), dict(V1=150, VF=0)),
    ("ADD reg carry", [0x8124], dict(V1=200, V2=100), dict(V1=44, VF=1)),
    ("ADD reg into VF", [0x8F14], dict(VF=200, V1=100), dict(VF=1)),
    ("SUB", [0x8125], dict(V1=50, V2=20), dict(V1=30, VF=1)),
    ("SUB equal", [0x8125], dict(V1=20, V2=20), dict(V1=0, VF=1)),
    ("SUB borrow", [0x8125], dict(V1=20, V2=50), dict(V1=226, VF=0)),
    ("SHR", [0x8126], dict(V1=0b101, V2=0xFF), dict(V1=0b10, VF=1, V2=0xFF)),
    ("SHR even", [0x8126], dict(V1=0b100), dict(V1=0b10, VF=0)),
    ("SUBN", [0x8127], dict(V1=20, V2=50), dict(V1=30, VF=1)),
    ("SUBN borrow", [0x8127], dict(V1=50, V2=20), dict(V1=226, VF=0)),
    ("SHL", [0x812E], dict(V1=0b10000001, V2=0), dict(V1=0b10, VF=1, V2=0)),
    ("SHL no carry", [0x812E], dict(V1=0b01000001), dict(V1=0b10000010, VF=0)),
    ("SNE reg equal", [0x9120], dict(V1=3, V2=3), dict(pc=0x202)),
    ("SNE reg differ", [0x9120], dict(V1=3, V2=4), dict(pc=0x204)),
    ("LD I", [0xA123], {}, dict(I=0x123)),
    ("JP V0", [0xB300], dict(V0=0x10, V3=0x50), dict(pc=0x310)),
    ("SKP held", [0xE59E], dict(V5=0xA, keys=[0xA]), dict(pc=0x204)),
    ("SKP up", [0xE59E], dict(V5=0xA, keys=[0xB]), dict(pc=0x202)),
    ("SKNP held", [0xE5A1], dict(V5=0xA, keys=[0xA]), dict(pc=0x202)),
    ("SKNP up", [0xE5A1], dict(V5=0xA, keys=[]), dict(pc=0x204)),
    ("LD Vx, DT", [0xF407], dict(dt=37), dict(V4=37, dt=37)),
    ("LD DT, Vx", [0xF415], dict(V4=12), dict(dt=12)),
    ("LD ST, Vx", [0xF418], dict(V4=13), dict(st=13)),
    ("ADD I", [0xF41E], dict(I=0x300, V4=0x20, VF=3), dict(I=0x320, VF=3)),
    ("LD F", [0xF429], dict(V4=0xB), dict(I=FONT_ADDR + 0xB * 5)),
    ("LD B", [0xF433], dict(V4=254, I=0x300), dict(mem={0x300: 2, 0x301: 5, 0x302: 4}, I=0x300)),
    (
        "LD [I]",
        [0xF255],
        dict(V0=7, V1=8, V2=9, V3=10, I=0x300),
        dict(mem={0x300: 7, 0x301: 8, 0x302: 9, 0x303: 0}, I=0x300),
    ),
    (
        "LD Vx, [I]",
        [0xF265],
        dict(I=0x300, V3=99, mem={0x300: 1, 0x301: 2, 0x302: 3, 0x303: 4}),
        dict(V0=1, V1=2, V2=3, V3=99, I=0x300),
    ),
]


@pytest.mark.parametrize("words, before, after", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_instruction(words, before, after):
    m = machine(*words, **before)
    m.step()
    check(m, **({"pc": 0x202} | after))


def test_cls_clears_the_screen():
    m = machine(0xF029, 0xD005, 0x00E0, V0=8)
    m.step()
    m.step()
    assert m.display().sum() > 0
    m.step()
    assert m.display().sum() == 0 and m.pc == 0x206


def test_rnd_is_masked_and_repeatable():
    values = []
    for _ in range(2):
        m = machine(*[0xC30F] * 20)
        seen = []
        for _ in range(20):
            m.step()
            seen.append(m.V[3])
        values.append(seen)
    assert values[0] == values[1]
    assert all(v <= 0x0F for v in values[0]) and len(set(values[0])) > 3


def test_draw_xors_and_sets_collision():
    m = machine(0xA300, 0xD122, 0xD122, V1=3, V2=4, mem={0x300: 0b11000000, 0x301: 0b00000001})
    m.step()
    m.step()
    d = m.display()
    assert {(x, y) for y, x in zip(*np.nonzero(d), strict=True)} == {(3, 4), (4, 4), (10, 5)}
    assert m.V[15] == 0
    m.step()  # same sprite again: everything turns off, with a collision
    assert m.display().sum() == 0 and m.V[15] == 1


def test_draw_start_position_wraps_and_clips_at_edges():
    m = machine(0xA300, 0xD122, V1=64 + 60, V2=32 + 31, mem={0x300: 0xFF, 0x301: 0xFF})
    m.step()
    m.step()
    d = m.display()
    assert d[31, 60:].tolist() == [1, 1, 1, 1] and d.sum() == 4  # clipped right and bottom


def test_wrap_quirk_wraps_sprite_pixels():
    m = machine(0xA300, 0xD122, V1=60, V2=31, mem={0x300: 0xFF, 0x301: 0xFF}, quirks=Quirks(wrap=True))
    m.step()
    m.step()
    d = m.display()
    for y in (31, 0):
        assert d[y].tolist() == [1] * 4 + [0] * 56 + [1] * 4


def test_font_sprites():
    for digit in range(16):
        m = machine(0xF029, 0xD125, V0=digit, V1=0, V2=0)
        m.step()
        m.step()
        got = m.display()[:5, :8]
        want = np.unpackbits(np.frombuffer(FONT[digit * 5 : digit * 5 + 5], np.uint8)).reshape(5, 8)
        assert (got == want).all(), f"digit {digit:X}"


@pytest.mark.parametrize(
    "value, digits", [(0, [0, 0, 0]), (7, [0, 0, 7]), (42, [0, 4, 2]), (100, [1, 0, 0]), (255, [2, 5, 5])]
)
def test_bcd(value, digits):
    m = machine(0xF733, V7=value, I=0x400)
    m.step()
    assert [m.ram(0x400 + i) for i in range(3)] == digits


def test_key_wait_needs_press_and_release():
    m = machine(0xF50A, 0x1202)
    m.run_frame()
    assert m.pc == 0x200 and m.frames == 1  # no key: the frame ends at the wait
    m.set_keys([9, 3])
    m.run_frame()
    assert m.pc == 0x200  # held, not yet released
    m.set_keys([9])
    m.run_frame()
    m.set_keys([])
    m.run_frame()
    assert m.V[5] == 3 and m.pc == 0x202  # key 3 was the lowest key seen
    held = machine(0xF50A, keys=[9])  # a key held all along is not a key press yet
    held.step()
    held.step()
    assert held.pc == 0x200


# --- quirks ---------------------------------------------------------------


def test_shift_vy_quirk():
    m = machine(0x8126, 0x834E, V1=0xFF, V2=0b110, V3=0, V4=0x81, quirks=Quirks(shift_vy=True))
    m.step()
    assert (m.V[1], m.V[15]) == (0b11, 0)
    m.step()
    assert (m.V[3], m.V[15]) == (0x02, 1)


def test_one_register_shift_is_in_place_in_both_modes():
    code = assemble("SHR V1\nSHL V2").code
    for quirks in (Quirks(), Quirks(shift_vy=True)):
        m = Chip8(code, quirks=quirks)
        m.V[1], m.V[2] = 0b11, 0b11
        m.step()
        m.step()
        assert (m.V[1], m.V[2]) == (0b1, 0b110)


def test_load_store_moves_i_quirk():
    m = machine(0xF255, 0xF165, V0=1, V1=2, V2=3, I=0x300, quirks=Quirks(load_store_moves_i=True))
    m.step()
    assert m.I == 0x303
    m.write(0x303, bytes([40, 41]))
    m.step()
    assert (m.V[0], m.V[1], m.I) == (40, 41, 0x305)


def test_jump_vx_quirk():
    m = machine(0xB320, V0=1, V3=0x10, quirks=Quirks(jump_vx=True))
    m.step()
    assert m.pc == 0x330


def test_vf_reset_quirk():
    for op in (0x8121, 0x8122, 0x8123):
        m = machine(op, V1=1, V2=3, VF=9, quirks=Quirks(vf_reset=True))
        m.step()
        assert m.V[15] == 0
        m = machine(op, V1=1, V2=3, VF=9)
        m.step()
        assert m.V[15] == 9


# --- timers and the frame model -------------------------------------------


def test_timers_count_down_once_per_frame():
    m = machine(0xF015, 0xF118, 0x1204, V0=3, V1=2)
    assert not m.sound_on
    m.run_frame()
    assert (m.dt, m.st, m.sound_on) == (2, 1, True)
    m.run_frame()
    m.run_frame()
    assert (m.dt, m.st, m.sound_on) == (0, 0, False)
    m.run_frame()
    assert (m.dt, m.st, m.frames) == (0, 0, 4)


def test_delay_wait_ends_the_frame_cheaply():
    program = assemble("""
        LD V0, 30
        LD DT, V0
    wait:
        LD V1, DT
        SE V1, 0
        JP wait
        ADD V2, 1
    end:
        JP end
    """).code
    m = Chip8(program)
    counts = [m.run_frame() for _ in range(31)]
    assert counts[0] == 6 and counts[1:30] == [6] * 29  # a few instructions, not ipf
    assert counts[30] == 6 and m.V[2] == 1 and m.dt == 0


def test_frame_budget_without_waits():
    m = machine(0x7001, 0x1200)
    assert m.run_frame() == 2000 and m.executed == 2000
    assert Chip8(rom(0x7001, 0x1200), ipf=10).run_frame() == 10


def test_jump_to_itself_halts_the_frame():
    m = machine(0x6001, 0x1202)
    assert m.run_frame() == 2 and m.run_frame() == 1
    assert m.pc == 0x202 and m.frames == 2


def test_demo_rom_moves_the_ship_pixel_by_pixel():
    program = assemble_file(files("superbeam") / "roms" / "demo.asm")
    ship = [program.code[program.sym["ship"] - 0x200 + r] for r in range(6)]

    def expected(x, y):
        image = np.zeros((32, 64), np.uint8)
        for r, byte in enumerate(ship):
            for c in range(8):
                if byte >> (7 - c) & 1 and x + c < 64 and y + r < 32:
                    image[y + r, x + c] = 1
        return image

    m = Chip8(program.code)
    m.run_frame()
    assert (m.display() == expected(28, 13)).all()
    m.set_keys([6])  # right
    for _ in range(5):
        m.run_frame()
    assert (m.display() == expected(33, 13)).all()
    m.set_keys([8, 4])  # down and left together
    for _ in range(3):
        m.run_frame()
    assert (m.display() == expected(30, 16)).all()
    m.set_keys([6])
    for _ in range(30):  # to the right edge: x = 60, pixels past it clipped
        m.run_frame()
    assert (m.display() == expected(60, 16)).all() and m.regs()[0xA:0xC] == [60, 16]
    assert m.executed < 40 * 35  # every frame ends at the delay-timer wait


# --- state access and self-modifying code -----------------------------------


def test_state_access():
    m = Chip8(rom(0x6305))
    m.step()
    regs = m.regs()
    regs[3] = 99
    assert m.regs()[3] == 5 and len(regs) == 16
    assert m.ram(0x200) == 0x63 and m.ram(FONT_ADDR) == 0xF0
    assert m.display().shape == (32, 64) and m.display().dtype == np.uint8
    m.set_keys([0, 15])
    assert m.keys() == [True] + [False] * 14 + [True]


def test_write_checks_bounds():
    m = Chip8()
    m.write(0xFFE, b"ab")
    with pytest.raises(ValueError, match="do not fit"):
        m.write(0xFFF, b"ab")
    with pytest.raises(ValueError, match="do not fit"):
        Chip8(bytes(3585))


def test_self_modifying_code_is_redecoded():
    # ADD V5, 1 runs once, then FX55 overwrites it with LD V5, 0x77 and it runs again.
    m = machine(0x7501, 0xA200, 0xF155, 0x1200, V0=0x65, V1=0x77)
    for _ in range(4):
        m.step()
    assert m.V[5] == 1 and m.pc == 0x200 and m.ram(0x200) == 0x65
    m.step()
    assert m.V[5] == 0x77


# --- errors -----------------------------------------------------------------


@pytest.mark.parametrize("word", [0x0000, 0x5121, 0x8128, 0x812F, 0x9121, 0xE100, 0xF199])
def test_invalid_opcode(word):
    m = machine(0x6000, word)
    m.step()
    with pytest.raises(Chip8Error, match=f"invalid opcode 0x{word:04X} .*at 0x202"):
        m.run_frame()
    assert m.pc == 0x202


def test_stack_overflow_and_underflow():
    with pytest.raises(Chip8Error, match=r"stack overflow.* at 0x200") as err:
        machine(0x2200).run_frame()
    assert err.value.addr == 0x200
    with pytest.raises(Chip8Error, match=r"stack underflow.* at 0x200"):
        machine(0x00EE).run_frame()


def test_pc_outside_ram():
    with pytest.raises(Chip8Error, match="PC outside RAM at 0x1004"):
        machine(0xB000 | 0xFFF, V0=5).run_frame()
    m = machine(0x1FFE, mem={0xFFE: 0x60, 0xFFF: 0x00})
    with pytest.raises(Chip8Error, match="PC outside RAM at 0x1000"):
        m.run_frame()
    with pytest.raises(Chip8Error, match="past the end of RAM at 0xFFF"):
        machine(0x1FFF).run_frame()


def test_memory_access_outside_ram():
    with pytest.raises(Chip8Error, match="I=0xFFE reaches past the end of RAM at 0x200"):
        machine(0xF333, I=0xFFE).run_frame()
    with pytest.raises(Chip8Error, match="I=0xFFF reaches past the end of RAM"):
        machine(0xD015, I=0xFFF).run_frame()
