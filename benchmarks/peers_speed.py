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

A shared machine's speed drifts by tens of percent within minutes, so one timing of each says little: each
peer compiles once and stays up, and --rounds rounds time ours and then each peer in turn, every one on the
same core; the table gives each one's median, and the median over rounds of ours / the faster peer that round.

    python benchmarks/peers_speed.py [--games breakout,freeway] [--rounds 5] [--batch 1024] [--core 0]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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
print("ready", flush=True)
for round_ in sys.stdin:  # one timed run per line
    started = time.perf_counter()
    carry = run(carry, jax.random.PRNGKey(int(round_)))
    jax.block_until_ready(carry)
    print(json.dumps({"steps_per_second": batch * steps / (time.perf_counter() - started)}), flush=True)
"""
GAMES = "asterix,breakout,freeway,seaquest,space_invaders"


class Ours:
    """Our compiled engine on `game`, one worker pinned to `core`, a random dense network: the first timing
    doubles the episodes until a run takes `seconds`, and every later one plays that many."""

    def __init__(self, game: str, core: int, seconds: float):
        os.sched_setaffinity(0, {core})
        from wspbench.evaluation.compiled.batch import warm_up
        from wspbench.evaluation.compiled.engine import play
        from wspbench.games.minatar import MAX_STEPS
        from wspbench.networks import MINATAR_NETWORK

        warm_up()
        rng = np.random.default_rng(0)
        scales = {"W1": 0.1, "W2": 0.3, "W3": 0.3}  # the peers' network (PEER): normal weights, zero biases
        weights = {
            name: (rng.normal(size=shape) * scales.get(name, 0.0)).astype(np.float32)
            for name, shape in MINATAR_NETWORK.shapes.items()
        }
        self.play = lambda episodes: play(game, MINATAR_NETWORK, weights, list(range(episodes)), MAX_STEPS, 64)
        self.episodes = 16
        while self.timed() < seconds:
            self.episodes *= 2

    def timed(self) -> float:
        started = time.perf_counter()
        results = self.play(self.episodes)
        elapsed = time.perf_counter() - started
        self.rate = sum(length for _, length in results) / elapsed
        return elapsed


class Peer:
    """A peer library in its own Python, compiled once, timing one run of its scan per `rate()` call."""

    def __init__(self, python: str | None, library: str, game: str, batch: int, steps: int, core: int):
        self.process = None
        if not python or not Path(python).exists():
            return
        command = [python, "-c", PEER, library, game, str(batch), str(steps), str(core)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "ready":
            print(f"{library} {game}: failed to start (exit {self.process.wait()})")
            self.process = None

    def rate(self, round_: int) -> float | None:
        if self.process is None:
            return None
        self.process.stdin.write(f"{round_ + 1}\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())["steps_per_second"]

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=GAMES)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=500, help="the peers' scan length per timed run")
    parser.add_argument("--seconds", type=float, default=2.0, help="at least this long a timed run of ours")
    parser.add_argument("--rounds", type=int, default=5, help="alternating timings of ours and each peer")
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--gymnax-python", default=os.environ.get("WSP_GYMNAX_PYTHON"), help="a Python with gymnax")
    parser.add_argument("--pgx-python", default=os.environ.get("WSP_PGX_PYTHON"), help="a Python with pgx-minatar")
    options = parser.parse_args()
    console = Console(width=120)
    console.print(
        f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; pinned to core {options.core}"
    )
    table = Table(title=f"steps per second, one core, policy included, medians of {options.rounds} rounds")
    for column in ("game", "ours (exact)", f"gymnax (batch {options.batch})", "pgx-minatar", "ours / faster peer"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for game in options.games.split(","):
        mine = Ours(game, options.core, options.seconds)
        peers = [
            Peer(python, library, game, options.batch, options.steps, options.core)
            for python, library in ((options.gymnax_python, "gymnax"), (options.pgx_python, "pgx"))
        ]
        rates: list[list[float | None]] = []
        for round_ in range(options.rounds):
            mine.timed()
            rates.append([mine.rate, *(peer.rate(round_) for peer in peers)])
        for peer in peers:
            peer.close()
        medians = [statistics.median(column) if None not in column else None for column in zip(*rates, strict=True)]
        ratios = [row[0] / max(r for r in row[1:] if r) for row in rates if any(row[1:])]
        ratio = f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})" if ratios else "-"
        table.add_row(game, *(f"{rate:,.0f}" if rate else "-" for rate in medians), ratio)
    console.print(table)
    console.print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
