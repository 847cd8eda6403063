"""How fast the CHIP-8 machine runs: interpreted instructions per second.

Two workloads: a busy loop that never waits (every frame uses its whole
instruction budget), and the demo ROM with keys held (every frame ends at the
delay-timer wait after a few dozen instructions, so per-frame costs show).

    python benchmarks/chip8_speed.py [--seconds 2]
"""

from __future__ import annotations

import argparse
import time
from importlib.resources import files

from superbeam.assembler import assemble, assemble_file
from superbeam.chip8 import Chip8

BUSY_LOOP = """
loop:   ADD V0, 1
        LD V1, V0
        XOR V1, V2
        SHR V1
        SE V0, 0
        JP loop
        ADD V3, 1
        JP loop
"""


def measure(machine: Chip8, seconds: float, keys=None) -> tuple[float, float, float]:
    """Run frames for about `seconds`; return (instructions/s, frames/s, instr/frame)."""
    start = time.perf_counter()
    frames = 0
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            if keys:
                machine.set_keys(keys[frames // 30 % len(keys)])
            machine.run_frame()
            frames += 1
    elapsed = time.perf_counter() - start
    return machine.executed / elapsed, frames / elapsed, machine.executed / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per workload")
    args = parser.parse_args()

    busy = Chip8(assemble(BUSY_LOOP).code)
    demo = Chip8(assemble_file(files("superbeam") / "roms" / "demo.asm").code)
    walk = [[6], [8], [4], [2], [6, 8], []]  # the demo ship moves around
    for name, machine, keys in (("busy loop", busy, None), ("demo ROM", demo, walk)):
        ips, fps, ipf = measure(machine, args.seconds, keys)
        print(f"{name:10s} {ips / 1e6:6.2f} M instructions/s  {fps:9.0f} frames/s  {ipf:7.1f} instructions/frame")

    start = time.perf_counter()
    for _ in range(10_000):
        demo.display()
    print(f"display()  {(time.perf_counter() - start) / 10_000 * 1e6:6.2f} us per call")


if __name__ == "__main__":
    main()
