"""One entry point per operation over every hand-written synthetic twin, by its index in TWINS."""

from numba import njit

from wspbench.evaluation.compiled.synth import ferry

TWINS = (ferry,)


@njit(cache=True)
def reset(code, s, keys, positions, g):
    ferry.reset(s, keys, positions, g)


@njit(cache=True)
def step(code, s, action, keys, positions, g):
    return ferry.step(s, action, keys, positions, g)


@njit(cache=True)
def observe(code, s, active):
    return ferry.observe(s, active)
