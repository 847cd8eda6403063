"""Is numpy or torch faster for the trainer's updates here? One PPO update's learning (`epochs` passes of
minibatches over a rollout: policy and critic forward and backward, Adam) on one core, for a MinAtar-shaped
network: numpy with the hand-written gradients of `src/wspbench/baselines/ppo.py`, and torch (autograd, float32,
one thread) on the same arrays. torch is not a dependency: run this where it is installed
(`pip install torch==<a CPU build>`); without it the script says so and times numpy alone.

    python benchmarks/ppo_numpy_vs_torch.py [--repeats 5]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import time  # noqa: E402

import numpy as np  # noqa: E402

from wspbench.baselines.ppo import Adam, Budget, initial, learn  # noqa: E402
from wspbench.networks import MINATAR_NETWORK  # noqa: E402


def rollout(budget: Budget, generator: np.random.Generator):
    rows = budget.environments * budget.rollout
    x = (generator.random((rows, 600)) < 0.05).astype(np.float32)  # sparse 0/1 inputs, as MinAtar's
    actions = generator.integers(0, 6, rows)
    old_log_p = np.full(rows, np.log(1 / 6), np.float32)
    advantages = generator.standard_normal(rows).astype(np.float32)
    returns = generator.standard_normal(rows).astype(np.float32)
    return x, actions, old_log_p, advantages, returns


def numpy_update(budget: Budget, data, repeats: int) -> float:
    generator = np.random.default_rng(0)
    policy = initial(MINATAR_NETWORK.sizes, 0.01, generator)
    critic = initial((*MINATAR_NETWORK.sizes[:-1], 1), 1.0, generator)
    adams = Adam(policy), Adam(critic)
    started = time.perf_counter()
    for _ in range(repeats):
        learn(policy, critic, *adams, budget, 1e-3, "tanh", generator, *data)
    return (time.perf_counter() - started) / repeats


def torch_update(budget: Budget, data, repeats: int) -> float:
    import torch

    torch.set_num_threads(1)
    x, actions, old_log_p, advantages, returns = (torch.from_numpy(np.ascontiguousarray(a)) for a in data)

    def mlp(outputs):
        return torch.nn.Sequential(
            torch.nn.Linear(600, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32), torch.nn.Tanh(),
            torch.nn.Linear(32, outputs),
        )  # fmt: skip

    policy, critic = mlp(6), mlp(1)
    optimizers = [torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-5) for net in (policy, critic)]
    size = len(actions) // budget.minibatches
    started = time.perf_counter()
    for _ in range(repeats):
        for _ in range(budget.epochs):
            order = torch.randperm(len(actions))
            for start in range(0, len(actions), size):
                batch = order[start : start + size]
                advantage = advantages[batch]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                log_p = torch.log_softmax(policy(x[batch]), dim=1)
                ratio = torch.exp(log_p[torch.arange(size), actions[batch]] - old_log_p[batch])
                clipped = torch.clamp(ratio, 1 - budget.clip, 1 + budget.clip)
                entropy = -(log_p.exp() * log_p).sum(dim=1).mean()
                loss = -torch.min(advantage * ratio, advantage * clipped).mean() - budget.entropy * entropy
                value_loss = 0.5 * ((critic(x[batch])[:, 0] - returns[batch]) ** 2).mean()
                for net, optimizer, objective in zip((policy, critic), optimizers, (loss, value_loss), strict=True):
                    optimizer.zero_grad()
                    objective.backward()
                    torch.nn.utils.clip_grad_norm_(net.parameters(), budget.max_grad_norm)
                    optimizer.step()
    return (time.perf_counter() - started) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    budget = Budget()
    data = rollout(budget, np.random.default_rng(1))
    rows = budget.environments * budget.rollout
    print(f"one update: {budget.epochs} epochs x {budget.minibatches} minibatches of {rows // budget.minibatches} "
          f"rows; load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    seconds = numpy_update(budget, data, options.repeats)
    print(f"numpy: {seconds * 1e3:.1f} ms per update ({rows / seconds:,.0f} steps/s of learning)")
    try:
        import torch
    except ImportError:
        print("torch: not installed here")
        return
    other = torch_update(budget, data, options.repeats)
    print(f"torch {torch.__version__}: {other * 1e3:.1f} ms per update ({rows / other:,.0f} steps/s of learning); "
          f"numpy is {other / seconds:.2f}x as fast")  # fmt: skip


if __name__ == "__main__":
    main()
