"""Steps per second on one pinned core, policy included: our compiled engine against the JAX MinAtar peers.

Ours: `wsp grade`'s compiled engine (`evaluation/compiled/`), exact (minatar's random stream, sticky actions,
the reference's action choice), one worker, on a random dense 600-32-32-6 tanh network drawn as the peers draw
theirs (normal weights with deviations 0.1, 0.3 and 0.3 by layer, zero biases). The peers: gymnax 1.0.1
and pgx-minatar 0.5.1, a batch of --batch environments stepped by `jax.lax.scan` under `jit` with the same
network sizes in float32 (the observation flattened and padded to 600 inputs, or all of its 700 or 1000) and a
categorical draw; they are not RNG-identical to minatar, and they reset finished episodes automatically. Each
peer runs in its own Python (its own JAX): --gymnax-python and --pgx-python, by default $WSP_GYMNAX_PYTHON and
$WSP_PGX_PYTHON (skipped when missing; the tests never need them: `pip install gymnax==1.0.1`, and pgx-minatar
0.5.1 with pgx 2.0.1 and jax 0.4.23).

    python benchmarks/peers_speed.py [--games breakout,freeway] [--batch 1024] [--core 0]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

PEER = r"""
import json, os, sys, time
os.sched_setaffinity(0, {int(sys.argv[5])})
os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
import jax, jax.numpy as jnp
library, game, batch, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if library == "gymnax":
    import gymnax
    names = {"asterix": "Asterix-MinAtar", "breakout": "Breakout-MinAtar", "freeway": "Freeway-MinAtar",
             "seaquest": "Seaquest-MinAtar", "space_invaders": "SpaceInvaders-MinAtar"}
    env, params = gymnax.make(names[game])
    actions = env.num_actions
    def reset(key):
        return env.reset(key, params)
    def step(key, state, action):
        obs, state = env.step(key, state, action, params)[:2]  # then reward, done (, truncated), info
        return obs, state
else:
    import importlib
    from pgx.experimental import auto_reset
    module = importlib.import_module(f"pgx_minatar.{game}")
    env = getattr(module, "MinAtar" + "".join(p.capitalize() for p in game.split("_")))()
    actions = env.num_actions
    stepper = auto_reset(env.step, env.init)
    def reset(key):
        state = env.init(key)
        return state.observation, state
    def step(key, state, action):
        state = stepper(state, action, key)
        return state.observation, state
key = jax.random.PRNGKey(0)
k1, k2, k3, k4 = jax.random.split(key, 4)
inputs = max(600, reset(k4)[0].size)  # freeway and seaquest have more than 600 (7 and 10 channels)
w1 = jax.random.normal(k1, (inputs, 32), jnp.float32) * 0.1
w2 = jax.random.normal(k2, (32, 32), jnp.float32) * 0.3
w3 = jax.random.normal(k3, (32, actions), jnp.float32) * 0.3
b1, b2, b3 = jnp.zeros(32), jnp.zeros(32), jnp.zeros(actions)
def policy(obs, key):
    x = obs.reshape(-1).astype(jnp.float32)
    x = jnp.pad(x, (0, inputs - x.shape[0]))
    h = jnp.tanh(x @ w1 + b1)
    h = jnp.tanh(h @ w2 + b2)
    return jax.random.categorical(key, h @ w3 + b3)
def one(carry, key):
    obs, state = carry
    ka, ks = jax.random.split(key)
    action = policy(obs, ka)
    return step(ks, state, action), None
def run(carry, key):
    keys = jax.random.split(key, steps)
    def body(carry, key):
        return jax.vmap(one)(carry, jax.random.split(key, batch))
    carry, _ = jax.lax.scan(body, carry, keys)
    return carry
run = jax.jit(run)
carry = jax.vmap(reset)(jax.random.split(k4, batch))
carry = run(carry, key)
jax.block_until_ready(carry)
started = time.perf_counter()
carry = run(carry, jax.random.PRNGKey(1))
jax.block_until_ready(carry)
print(json.dumps({"steps_per_second": batch * steps / (time.perf_counter() - started)}))
"""
GAMES = "asterix,breakout,freeway,seaquest,space_invaders"


def ours(game: str, core: int, seconds: float) -> float:
    """Our compiled engine's steps per second on `game`, one worker pinned to `core`, a random dense network."""
    os.sched_setaffinity(0, {core})
    from wspbench.evaluation.compiled.engine import play, warm_up
    from wspbench.games.minatar import MAX_STEPS
    from wspbench.networks import MINATAR_NETWORK

    warm_up()
    rng = np.random.default_rng(0)
    scales = {"W1": 0.1, "W2": 0.3, "W3": 0.3}  # the peers' network (PEER): normal weights, zero biases
    weights = {
        name: (rng.normal(size=shape) * scales.get(name, 0.0)).astype(np.float32)
        for name, shape in MINATAR_NETWORK.shapes.items()
    }
    episodes, rate = 16, 0.0
    while True:
        started = time.perf_counter()
        results = play(game, MINATAR_NETWORK, weights, list(range(episodes)), MAX_STEPS, 64)
        elapsed = time.perf_counter() - started
        rate = sum(length for _, length in results) / elapsed
        if elapsed >= seconds:
            return rate
        episodes *= 2


def peer(python: str | None, library: str, game: str, batch: int, steps: int, core: int) -> float | None:
    if not python or not Path(python).exists():
        return None
    command = [python, "-c", PEER, library, game, str(batch), str(steps), str(core)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        print(f"{library} {game}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])["steps_per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=GAMES)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=500, help="the peers' scan length per timed run")
    parser.add_argument("--seconds", type=float, default=2.0, help="at least this long a timed run of ours")
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--gymnax-python", default=os.environ.get("WSP_GYMNAX_PYTHON"), help="a Python with gymnax")
    parser.add_argument("--pgx-python", default=os.environ.get("WSP_PGX_PYTHON"), help="a Python with pgx-minatar")
    options = parser.parse_args()
    console = Console(width=120)
    console.print(
        f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; pinned to core {options.core}"
    )
    table = Table(title=f"steps per second, one core, policy included (peers: batch {options.batch})")
    for column in ("game", "ours (exact)", "gymnax", "pgx-minatar", "ours / faster peer"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for game in options.games.split(","):
        mine = ours(game, options.core, options.seconds)
        rates = [peer(python, library, game, options.batch, options.steps, options.core)
                 for python, library in ((options.gymnax_python, "gymnax"), (options.pgx_python, "pgx"))]  # fmt: skip
        known = [rate for rate in rates if rate]
        ratio = f"{mine / max(known):.2f}" if known else "-"
        table.add_row(game, f"{mine:,.0f}", *(f"{rate:,.0f}" if rate else "-" for rate in rates), ratio)
    console.print(table)
    console.print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
