"""PPO training speed on one pinned core: our trainer against a PureJaxRL-style PPO on gymnax, same sizes.

Ours: `wspbench.baselines.ppo.train` on a task (default original/breakout, the compiled engine's batches),
checkpoints off. The peer: PPO written the PureJaxRL way (every update inside one `jax.jit`, the environments
`vmap`ped and reset automatically, `lax.scan` over rollout steps, epochs and minibatches) on gymnax 1.0.1's
MinAtar game, with our budget's sizes and settings: 32 environments x 128 steps, 4 epochs of 4 minibatches, a
600-32-32-6 tanh policy (the observation flattened and padded to 600 inputs) and a separate critic of the same
hidden shape, Adam with a linearly falling learning rate, gradients clipped to norm 0.5, GAE, entropy bonus.
It runs in its own Python (`--gymnax-python`, by default $WSP_GYMNAX_PYTHON; skipped when missing: the tests
never need it; `pip install gymnax==1.0.1 optax`). Both are timed after compiling, over the same number of
environment steps, and the script prints steps per second and the ratio.

    python benchmarks/peers_train.py [--task original/breakout] [--updates 60] [--core 0]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # one core
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

PEER = r"""
import json, math, os, sys, time
os.sched_setaffinity(0, {int(sys.argv[3])})
os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
import jax, jax.numpy as jnp, optax, gymnax
game, updates = sys.argv[1], int(sys.argv[2])
ENVS, ROLLOUT, EPOCHS, MINIBATCHES = 32, 128, 4, 4
GAMMA, LAMBDA, CLIP, ENTROPY, RATE, MAX_NORM = 0.99, 0.95, 0.2, 0.01, 1e-3, 0.5
names = {"breakout": "Breakout-MinAtar", "asterix": "Asterix-MinAtar", "freeway": "Freeway-MinAtar",
         "space_invaders": "SpaceInvaders-MinAtar", "seaquest": "Seaquest-MinAtar"}
env, params = gymnax.make(names[game])
actions = env.num_actions
inputs = max(600, math.prod(env.observation_space(params).shape))  # freeway and seaquest have more

def mlp(key, sizes, gain_last):
    layers = []
    for k, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        key, sub = jax.random.split(key)
        gain = gain_last if k == len(sizes) - 2 else jnp.sqrt(2.0)
        layers.append((jax.nn.initializers.orthogonal(gain)(sub, (a, b)), jnp.zeros(b)))
    return layers

def apply(layers, x):
    for w, b in layers[:-1]:
        x = jnp.tanh(x @ w + b)
    w, b = layers[-1]
    return x @ w + b

def flat(obs):
    x = obs.reshape(obs.shape[0], -1).astype(jnp.float32)
    return jnp.pad(x, ((0, 0), (0, inputs - x.shape[1])))

schedule = lambda count: RATE * (1.0 - (count // (EPOCHS * MINIBATCHES)) / updates)
optimiser = optax.chain(optax.clip_by_global_norm(MAX_NORM), optax.adam(schedule, eps=1e-5))

def loss(net, x, a, old_log_p, advantage, target):
    policy, critic = net
    log_p = jax.nn.log_softmax(apply(policy, x))
    taken = jnp.take_along_axis(log_p, a[:, None], 1)[:, 0]
    ratio = jnp.exp(taken - old_log_p)
    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    actor = -jnp.minimum(ratio * advantage, jnp.clip(ratio, 1 - CLIP, 1 + CLIP) * advantage).mean()
    entropy = -(jnp.exp(log_p) * log_p).sum(1).mean()
    value = apply(critic, x)[:, 0]
    return actor - ENTROPY * entropy + 0.5 * ((value - target) ** 2).mean()

def update(carry, _):
    net, opt, states, obs, key = carry
    def step(carry, _):
        states, obs, key = carry
        key, k_act, k_env = jax.random.split(key, 3)
        x = flat(obs)
        logits = apply(net[0], x)
        a = jax.random.categorical(k_act, logits)
        log_p = jnp.take_along_axis(jax.nn.log_softmax(logits), a[:, None], 1)[:, 0]
        value = apply(net[1], x)[:, 0]
        obs, states, reward, done = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
            jax.random.split(k_env, ENVS), states, a, params)[:4]  # then (truncated and) info
        return (states, obs, key), (x, a, log_p, value, reward, done)
    (states, obs, key), (x, a, log_p, value, reward, done) = jax.lax.scan(step, (states, obs, key), None, ROLLOUT)
    last = apply(net[1], flat(obs))[:, 0]
    def back(carry, t):
        gae, next_value = carry
        delta = reward[t] + GAMMA * next_value * (1 - done[t]) - value[t]
        gae = delta + GAMMA * LAMBDA * (1 - done[t]) * gae
        return (gae, value[t]), gae
    _, advantages = jax.lax.scan(back, (jnp.zeros(ENVS), last), jnp.arange(ROLLOUT - 1, -1, -1))
    advantages = advantages[::-1]
    batch = (x.reshape(ENVS * ROLLOUT, -1), a.reshape(-1), log_p.reshape(-1), advantages.reshape(-1),
             (advantages + value).reshape(-1))
    def epoch(carry, _):
        net, opt, key = carry
        key, sub = jax.random.split(key)
        order = jax.random.permutation(sub, ENVS * ROLLOUT).reshape(MINIBATCHES, -1)
        def minibatch(carry, rows):
            net, opt = carry
            grads = jax.grad(loss)(net, *(part[rows] for part in batch))
            changes, opt = optimiser.update(grads, opt, net)
            return (optax.apply_updates(net, changes), opt), None
        (net, opt), _ = jax.lax.scan(minibatch, (net, opt), order)
        return (net, opt, key), None
    (net, opt, key), _ = jax.lax.scan(epoch, (net, opt, key), None, EPOCHS)
    return (net, opt, states, obs, key), None

def train(key, count):
    k_p, k_c, k_env, key = jax.random.split(key, 4)
    net = (mlp(k_p, (inputs, 32, 32, actions), 0.01), mlp(k_c, (inputs, 32, 32, 1), 1.0))
    opt = optimiser.init(net)
    obs, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k_env, ENVS), params)
    carry, _ = jax.lax.scan(update, (net, opt, states, obs, key), None, count)
    return carry[0]

run = jax.jit(train, static_argnums=1)
jax.block_until_ready(run(jax.random.PRNGKey(0), updates))  # compiles
started = time.perf_counter()
jax.block_until_ready(run(jax.random.PRNGKey(1), updates))
print(json.dumps({"steps_per_second": updates * ENVS * ROLLOUT / (time.perf_counter() - started)}))
"""


def ours(task_id: str, updates: int, core: int) -> float:
    """Our trainer's environment steps per second on `task_id`, checkpoints off, one pinned core."""
    os.sched_setaffinity(0, {core})
    from wspbench.baselines.ppo import Budget, train
    from wspbench.evaluation.compiled.batch import warm_up
    from wspbench.tasks import get_task

    warm_up()
    task = get_task(task_id)
    sizes = Budget()
    train(task, Budget(steps=2 * sizes.environments * sizes.rollout, checkpoints=0))  # loads what it needs
    budget = Budget(steps=updates * sizes.environments * sizes.rollout, checkpoints=0)
    started = time.perf_counter()
    _, about = train(task, budget)
    return about["steps"] / (time.perf_counter() - started)


def peer(python: str | None, game: str, updates: int, core: int) -> float | None:
    if not python or not Path(python).exists():
        return None
    done = subprocess.run([python, "-c", PEER, game, str(updates), str(core)], capture_output=True, text=True)
    if done.returncode:
        print(f"gymnax {game}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])["steps_per_second"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="original/breakout")
    parser.add_argument("--updates", type=int, default=60, help="PPO updates timed (4,096 steps each)")
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--gymnax-python", default=os.environ.get("WSP_GYMNAX_PYTHON"), help="a Python with gymnax")
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; pinned to core {options.core}")
    game = options.task.rpartition("/")[2]
    mine = ours(options.task, options.updates, options.core)
    theirs = peer(options.gymnax_python, game, options.updates, options.core)
    print(f"{options.task}: ours {mine:,.0f} steps/s", end="")
    print(f"; PureJaxRL-style PPO on gymnax {theirs:,.0f} steps/s; ours / peer {mine / theirs:.2f}" if theirs else "")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
