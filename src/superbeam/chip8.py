"""A CHIP-8 machine that is fast enough in plain CPython to train agents on.

Each opcode is decoded once into a small closure that takes the PC and returns
the next PC. Closures are cached per address and dropped when the program
writes to RAM (FX33, FX55), so self-modifying code still works; running a frame
is then the tight loop `pc = code[pc](pc)`. The frame model, quirks and error
cases are described in docs/chip8.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

RAM_SIZE = 4096
FONT_ADDR = 0x050
PROGRAM_ADDR = 0x200
STACK_DEPTH = 16
IPF = 2000  # instruction budget of a frame that never waits on the delay timer

# The standard 4x5 hex digit sprites 0..F, five bytes each.
FONT = bytes.fromhex(
    "F0909090F0"
    "2060202070"
    "F010F080F0"
    "F010F010F0"
    "9090F01010"
    "F080F010F0"
    "F080F090F0"
    "F010204040"
    "F090F090F0"
    "F090F010F0"
    "F090F09090"
    "E090E090E0"
    "F0808080F0"
    "E0909090E0"
    "F080F080F0"
    "F080F08080"
)

WIDTH, HEIGHT = 64, 32


@dataclass(frozen=True)
class Quirks:
    """Switches for the instructions that CHIP-8 variants disagree on.

    The defaults are the behaviour of most modern interpreters; each switch
    turns on the original COSMAC VIP (or SUPER-CHIP) reading instead.
    """

    shift_vy: bool = False  # 8XY6/8XYE shift VY into VX (COSMAC), not VX in place
    load_store_moves_i: bool = False  # FX55/FX65 leave I = I + X + 1 (COSMAC)
    jump_vx: bool = False  # BXNN jumps to XNN + VX (SUPER-CHIP), not NNN + V0
    wrap: bool = False  # sprite pixels past an edge wrap around instead of clipping
    vf_reset: bool = False  # 8XY1/8XY2/8XY3 clear VF (COSMAC)


class Chip8Error(RuntimeError):
    """A program did something the machine cannot do; `addr` is where."""

    def __init__(self, message: str, addr: int):
        super().__init__(f"{message} at 0x{addr:03X}")
        self.addr = addr


class _Yield(Exception):
    """Raised by an instruction that waits for the next 60 Hz tick."""


class Chip8:
    """The machine: RAM, registers, stack, timers, 64x32 display and 16 keys."""

    __slots__ = (
        "quirks",
        "ipf",
        "_V",
        "I",
        "pc",
        "_stack",
        "dt",
        "st",
        "frames",
        "executed",
        "_mem",
        "_rows",
        "_keys",
        "_code",
        "_rng",
        "_poll",
        "_held",
    )

    def __init__(self, rom: bytes = b"", *, quirks: Quirks = Quirks(), ipf: int = IPF, seed: int = 0):
        self.quirks = quirks
        self.ipf = ipf
        self._V = [0] * 16
        self.I = 0
        self.pc = PROGRAM_ADDR
        self._stack: list[int] = []
        self.dt = 0
        self.st = 0
        self.frames = 0  # timer ticks so far
        self.executed = 0  # instructions executed so far
        self._mem = bytearray(RAM_SIZE)
        self._mem[FONT_ADDR : FONT_ADDR + len(FONT)] = FONT
        self._rows = [0] * HEIGHT  # one 64-bit int per row, bit 63 is x = 0
        self._keys = bytearray(16)
        self._code = [self._decode] * RAM_SIZE
        self._rng = random.Random(seed)
        self._poll = -1  # address of the last FX07 this frame
        self._held = -1  # key seen down while FX0A waits
        self.write(PROGRAM_ADDR, rom)

    # --- running -----------------------------------------------------------

    def run_frame(self) -> int:
        """Run until the program waits for the next tick (or `ipf` instructions),
        then tick the timers. Returns the number of instructions executed."""
        code = self._code
        pc = self.pc
        done = self.ipf
        try:
            for n in range(done):  # noqa: B007 - n is read when the program yields
                pc = code[pc](pc)
        except _Yield:
            pc = self.pc
            done = n + 1
        except IndexError:
            if 0 <= pc < RAM_SIZE:
                raise
            self.pc = pc
            raise Chip8Error("PC outside RAM", pc) from None
        self.pc = pc
        self.executed += done
        self.tick()
        return done

    def step(self) -> None:
        """Execute one instruction (a waiting FX0A leaves the PC where it is)."""
        pc = self.pc
        if not 0 <= pc < RAM_SIZE:
            raise Chip8Error("PC outside RAM", pc)
        try:
            self.pc = self._code[pc](pc)
        except _Yield:
            pass
        self.executed += 1

    def tick(self) -> None:
        """Advance the 60 Hz clock: count the timers down by one."""
        if self.dt:
            self.dt -= 1
        if self.st:
            self.st -= 1
        self._poll = -1
        self.frames += 1

    # --- reading and writing state -----------------------------------------

    @property
    def V(self) -> list[int]:
        """The registers V0..VF; change them in place, never replace the list
        (decoded instructions hold on to it)."""
        return self._V

    @property
    def stack(self) -> list[int]:
        """Return addresses, innermost last (same rule as V)."""
        return self._stack

    def regs(self) -> list[int]:
        """V0..VF as 16 ints."""
        return list(self._V)

    def ram(self, addr: int) -> int:
        """One byte of RAM."""
        return self._mem[addr]

    def read(self, addr: int, count: int) -> bytes:
        """count bytes of RAM from addr."""
        if addr < 0 or addr + count > RAM_SIZE:
            raise ValueError(f"{count} bytes at 0x{addr:03X} do not fit in RAM")
        return bytes(self._mem[addr : addr + count])

    def write(self, addr: int, data: bytes) -> None:
        """Put bytes into RAM (e.g. a program) and forget code decoded there."""
        if addr < 0 or addr + len(data) > RAM_SIZE:
            raise ValueError(f"{len(data)} bytes at 0x{addr:03X} do not fit in RAM")
        self._mem[addr : addr + len(data)] = data
        self._forget(addr, addr + len(data))

    def display(self) -> np.ndarray:
        """The screen as a (32, 64) uint8 array of 0/1, indexed [y, x]."""
        import numpy as np  # here, not at the top: `wsp chip8 --help` does not need it

        rows = np.array(self._rows, dtype=">u8").view(np.uint8).reshape(HEIGHT, 8)
        return np.unpackbits(rows, axis=1)

    def keys(self) -> list[bool]:
        """Which of the 16 keys are held."""
        return [bool(k) for k in self._keys]

    def set_keys(self, held) -> None:
        """Hold exactly the given keys (ints 0..15); all others are up."""
        keys = self._keys
        keys[:] = bytes(16)
        for k in held:
            keys[k] = 1

    @property
    def sound_on(self) -> bool:
        """The buzzer sounds while the sound timer is non-zero."""
        return self.st > 0

    # --- decoding ----------------------------------------------------------

    def _forget(self, start: int, end: int) -> None:
        """Drop decoded code covering bytes start..end-1 (an opcode at start-1
        includes byte start)."""
        start = max(start - 1, 0)
        self._code[start:end] = [self._decode] * (end - start)

    def _decode(self, pc: int) -> int:
        """First execution at an address: compile, cache, then run it."""
        op = _compile(self, pc)
        self._code[pc] = op
        return op(pc)


def _fail(m: Chip8, message: str):
    """An instruction that stops the machine with an error when executed."""

    def op(pc):
        m.pc = pc
        raise Chip8Error(message, pc)

    return op


def _compile(m: Chip8, pc: int):
    """Return the closure for the opcode at pc: it runs it and returns the next PC."""
    if pc >= RAM_SIZE - 1:
        return _fail(m, "instruction runs past the end of RAM")
    mem, V, q, stack, keys, rows = m._mem, m._V, m.quirks, m._stack, m._keys, m._rows
    word = mem[pc] << 8 | mem[pc + 1]
    kind, x, y, n = word >> 12, word >> 8 & 0xF, word >> 4 & 0xF, word & 0xF
    nn, nnn = word & 0xFF, word & 0xFFF

    def need(count):
        """Check that I..I+count-1 lies in RAM before touching it."""
        if m.I + count > RAM_SIZE:
            m.pc = pc
            raise Chip8Error(f"I=0x{m.I:03X} reaches past the end of RAM", pc)

    if word == 0x00E0:  # CLS

        def op(pc):
            rows[:] = [0] * HEIGHT
            return pc + 2
    elif word == 0x00EE:  # RET

        def op(pc):
            if not stack:
                m.pc = pc
                raise Chip8Error("stack underflow (RET with empty stack)", pc)
            return stack.pop()
    elif word == 0x0000:
        return _fail(m, "invalid opcode 0x0000 (running through empty memory?)")
    elif kind == 0x0:  # SYS nnn: a COSMAC machine-code call, ignored

        def op(pc):
            return pc + 2
    elif kind == 0x1:  # JP nnn
        if nnn == pc:  # a jump to itself halts: the program waits forever

            def op(pc):
                m.pc = pc
                raise _Yield
        else:

            def op(pc):
                return nnn
    elif kind == 0x2:  # CALL nnn

        def op(pc):
            if len(stack) >= STACK_DEPTH:
                m.pc = pc
                raise Chip8Error("stack overflow (more than 16 nested CALLs)", pc)
            stack.append(pc + 2)
            return nnn
    elif kind == 0x3:  # SE Vx, nn

        def op(pc):
            return pc + 4 if V[x] == nn else pc + 2
    elif kind == 0x4:  # SNE Vx, nn

        def op(pc):
            return pc + 2 if V[x] == nn else pc + 4
    elif kind == 0x5 and n == 0:  # SE Vx, Vy

        def op(pc):
            return pc + 4 if V[x] == V[y] else pc + 2
    elif kind == 0x6:  # LD Vx, nn

        def op(pc):
            V[x] = nn
            return pc + 2
    elif kind == 0x7:  # ADD Vx, nn (VF untouched)

        def op(pc):
            V[x] = (V[x] + nn) & 0xFF
            return pc + 2
    elif kind == 0x8:
        op = _compile_alu(V, q, x, y, n)
        if op is None:
            return _fail(m, f"invalid opcode 0x{word:04X}")
    elif kind == 0x9 and n == 0:  # SNE Vx, Vy

        def op(pc):
            return pc + 2 if V[x] == V[y] else pc + 4
    elif kind == 0xA:  # LD I, nnn

        def op(pc):
            m.I = nnn
            return pc + 2
    elif kind == 0xB:  # JP V0, nnn
        r = x if q.jump_vx else 0

        def op(pc):
            return nnn + V[r]
    elif kind == 0xC:  # RND Vx, nn
        bits = m._rng.getrandbits

        def op(pc):
            V[x] = bits(8) & nn
            return pc + 2
    elif kind == 0xD:  # DRW Vx, Vy, n
        op = _compile_draw(m, need, x, y, n)
    elif kind == 0xE and nn == 0x9E:  # SKP Vx

        def op(pc):
            return pc + 4 if keys[V[x] & 0xF] else pc + 2
    elif kind == 0xE and nn == 0xA1:  # SKNP Vx

        def op(pc):
            return pc + 2 if keys[V[x] & 0xF] else pc + 4
    elif kind == 0xF and nn == 0x07:  # LD Vx, DT

        def op(pc):
            d = V[x] = m.dt
            if d and m._poll == pc:  # second read of a running timer: wait
                m.pc = pc + 2
                raise _Yield
            m._poll = pc
            return pc + 2
    elif kind == 0xF and nn == 0x0A:  # LD Vx, K: wait for a key press and release

        def op(pc):
            k = m._held
            if k >= 0 and not keys[k]:
                m._held = -1
                V[x] = k
                return pc + 2
            if k < 0 and any(keys):
                m._held = keys.index(1)
            m.pc = pc
            raise _Yield
    elif kind == 0xF and nn == 0x15:  # LD DT, Vx

        def op(pc):
            m.dt = V[x]
            return pc + 2
    elif kind == 0xF and nn == 0x18:  # LD ST, Vx

        def op(pc):
            m.st = V[x]
            return pc + 2
    elif kind == 0xF and nn == 0x1E:  # ADD I, Vx

        def op(pc):
            m.I = (m.I + V[x]) & 0xFFFF
            return pc + 2
    elif kind == 0xF and nn == 0x29:  # LD F, Vx

        def op(pc):
            m.I = FONT_ADDR + (V[x] & 0xF) * 5
            return pc + 2
    elif kind == 0xF and nn == 0x33:  # LD B, Vx

        def op(pc):
            need(3)
            i, v = m.I, V[x]
            mem[i : i + 3] = bytes((v // 100, v // 10 % 10, v % 10))
            m._forget(i, i + 3)
            return pc + 2
    elif kind == 0xF and nn == 0x55:  # LD [I], Vx
        moves = q.load_store_moves_i

        def op(pc):
            need(x + 1)
            i = m.I
            mem[i : i + x + 1] = bytes(V[: x + 1])
            m._forget(i, i + x + 1)
            if moves:
                m.I = i + x + 1
            return pc + 2
    elif kind == 0xF and nn == 0x65:  # LD Vx, [I]
        moves = q.load_store_moves_i

        def op(pc):
            need(x + 1)
            i = m.I
            V[: x + 1] = mem[i : i + x + 1]
            if moves:
                m.I = i + x + 1
            return pc + 2
    else:
        return _fail(m, f"invalid opcode 0x{word:04X}")
    return op


def _compile_alu(V, q, x, y, n):
    """The 8XYN register-to-register instructions (None for an invalid N)."""
    if n == 0x0:  # LD Vx, Vy

        def op(pc):
            V[x] = V[y]
            return pc + 2
    elif n == 0x1:  # OR

        def op(pc):
            V[x] |= V[y]
            return pc + 2
    elif n == 0x2:  # AND

        def op(pc):
            V[x] &= V[y]
            return pc + 2
    elif n == 0x3:  # XOR

        def op(pc):
            V[x] ^= V[y]
            return pc + 2
    elif n == 0x4:  # ADD Vx, Vy: VF = carry

        def op(pc):
            r = V[x] + V[y]
            V[x] = r & 0xFF
            V[15] = r >> 8
            return pc + 2
    elif n == 0x5:  # SUB Vx, Vy: VF = not borrow

        def op(pc):
            a, b = V[x], V[y]
            V[x] = (a - b) & 0xFF
            V[15] = 1 if a >= b else 0
            return pc + 2
    elif n == 0x7:  # SUBN Vx, Vy: Vx = Vy - Vx, VF = not borrow

        def op(pc):
            a, b = V[x], V[y]
            V[x] = (b - a) & 0xFF
            V[15] = 1 if b >= a else 0
            return pc + 2
    elif n == 0x6:  # SHR Vx, Vy: VF = bit shifted out
        s = y if q.shift_vy else x

        def op(pc):
            v = V[s]
            V[x] = v >> 1
            V[15] = v & 1
            return pc + 2
    elif n == 0xE:  # SHL Vx, Vy: VF = bit shifted out
        s = y if q.shift_vy else x

        def op(pc):
            v = V[s]
            V[x] = (v << 1) & 0xFF
            V[15] = v >> 7
            return pc + 2
    else:
        return None
    if q.vf_reset and n in (1, 2, 3):
        logic = op

        def op(pc):
            V[15] = 0
            return logic(pc)

    return op


def _compile_draw(m, need, x, y, n):
    """DXYN: XOR an 8xN sprite from I onto the screen at (Vx, Vy); VF = collision.

    The start position always wraps; pixels past an edge clip, or wrap with
    the `wrap` quirk.
    """
    mem, V, rows, wrap = m._mem, m._V, m._rows, m.quirks.wrap
    full = (1 << 64) - 1

    def op(pc):
        need(n)
        i = m.I
        sx, sy = V[x] & 63, V[y] & 31
        hit = 0
        for r in range(n):
            row = sy + r
            if row >= HEIGHT:
                if not wrap:
                    break
                row -= HEIGHT
            sprite = mem[i + r] << 56
            if wrap:
                sprite = (sprite >> sx | sprite << (64 - sx)) & full
            else:
                sprite >>= sx
            old = rows[row]
            hit |= old & sprite
            rows[row] = old ^ sprite
        V[15] = 1 if hit else 0
        return pc + 2

    return op
