"""The float32 tanh error of the compiled policy and of numpy, on every finite float32 input.

`wspbench/evaluation/compiled/policy.py` bounds the distance between its logits and the reference's by
allowing TANH_ERROR (32 u, u = 2**-24) for both tanh implementations together. This script measures both
against float64 tanh (within about 1e-16 of exact) on all 4.3 billion finite float32 values, in chunks, and
prints the largest absolute error of each in units of u. It takes a few minutes.

    python benchmarks/tanh_error.py [--stride 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from rich.progress import track

from wspbench.evaluation.compiled.policy import TANH_ERROR, UNIT, _tanh_into

CHUNK = 1 << 24
LAST_FINITE = 0x7F7FFFFF  # the largest finite float32's bits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stride", type=int, default=1, help="check every k-th float32 (1: all of them)")
    options = parser.parse_args()
    started = time.perf_counter()
    worst = {"compiled policy": (0.0, 0.0), "numpy float32": (0.0, 0.0)}
    ours = np.zeros(CHUNK // options.stride + 1, np.float32)
    for start in track(range(0, LAST_FINITE + 1, CHUNK), description="float32 inputs"):
        bits = np.arange(start, min(start + CHUNK, LAST_FINITE + 1), options.stride, dtype=np.uint32)
        for sign in (0, 0x80000000):
            z = (bits | np.uint32(sign)).view(np.float32)
            exact = np.tanh(z.astype(np.float64))
            _tanh_into(z, ours[: len(z)])
            for name, value in (("compiled policy", ours[: len(z)]), ("numpy float32", np.tanh(z))):
                error = np.abs(value.astype(np.float64) - exact)
                k = int(error.argmax())
                if error[k] > worst[name][0]:
                    worst[name] = (float(error[k]), float(z[k]))
    checked = 2 * len(range(0, LAST_FINITE + 1, options.stride))
    print(f"{checked:,} float32 inputs in {time.perf_counter() - started:.0f} s")
    for name, (error, where) in worst.items():
        print(f"{name}: largest error {error / UNIT:.3f} u (at z = {where!r})")
    total = sum(error for error, _ in worst.values()) / UNIT
    print(f"together {total:.3f} u; the policy's bound allows {TANH_ERROR / UNIT:.0f} u")
    assert total <= TANH_ERROR / UNIT


if __name__ == "__main__":
    main()
