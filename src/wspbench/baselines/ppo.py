"""The trained baseline: PPO (Schulman et al., 2017) on a network of exactly the task's shape, in numpy.

The policy is the task's network itself: MinAtar's 600-32-32-6 tanh network, whose softmax the grader samples
from, or SUPERBEAM's 8-16-6 ReLU network, trained through a softmax and played by argmax. A separate critic of
the same hidden shape estimates values. `environments` episodes run side by side in one batch
(`Task.environments`: compiled code for the original games), each slot taking the next of the task's training
episodes when its episode ends (never a scoring one). Every `rollout` steps, generalised advantage estimates
feed `epochs` passes of clipped-objective minibatch updates with Adam, the learning rate falling linearly to 0,
as in CleanRL's ppo.py. The gradients of a three-layer network are written out by hand, in float32. The
updates hold the rollout's inputs as a sparse matrix: a MinAtar observation has a few dozen of its 600 inputs
on, so the first layer's products, most of an update's work, shrink about tenfold.

Inputs are divided by a fixed scale per input, the largest magnitude the first rollout saw (at least 1); that
rollout only measures it. Rewards are divided by a running deviation of the discounted return. `checkpoints`
times during training the network is scored on the first training episodes exactly as the task scores it
(sampled for MinAtar, argmax for SUPERBEAM), and the best one is kept (KEPT). The input scale is folded into
W1, so the result is an ordinary network of the task's shape, in its orientation. With `mask_idle_actions`, the
actions that do nothing in the game (`Task.acting_actions`: breakout's up, down and fire) start with output
bias IDLE_BIAS and are never trained, so the entropy bonus keeps exploring the actions that act rather than
spreading over four equivalent no-ops (docs/training.md: with entropy 0.1 it took breakout from 6 to 26).
With `shaping`, the rewards it learns from gain the task's potential-based shaping (`Task.potential`), which
leaves the best policy unchanged; the checkpoints are still scored as the task scores.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit
from scipy import sparse

from wspbench.evaluation import ONE_WORKER
from wspbench.networks import Network, Weights
from wspbench.tasks.spec import TRAINED_NETWORKS, Task

IDLE_BIAS = -20.0  # the output bias of an action left out of training: sampled with probability below 1e-8
KEPT = "the checkpoint with the best score on the first training episodes, as the task scores it"
Params = list[np.ndarray]  # W1, b1, W2, b2, ... with Wk of shape (inputs, outputs)


@dataclass(frozen=True)
class Budget:
    steps: int = 10_000_000  # environment steps in all, the measuring rollout included, in whole rollouts
    environments: int = 32  # measured on the original games: 32 x 128 learns more per step than 128 x 128
    rollout: int = 128  # steps per environment between updates
    epochs: int = 4
    minibatches: int = 4
    learning_rate: float = 1e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    max_grad_norm: float = 0.5
    checkpoints: int = 10  # networks scored on training episodes during training; the best is kept (0: the last)
    checkpoint_episodes: int = 100  # the first training episodes, scored as the task scores (sampling or argmax)
    seed: int = 0
    mask_idle_actions: bool = False  # actions that do nothing in the game (Task.acting_actions) are never sampled
    shaping: bool = False  # train on rewards shaped by the task's potential (Task.potential); scores never see it

    def __post_init__(self):
        batch = self.environments * self.rollout
        if min(self.environments, self.rollout, self.epochs, self.minibatches) < 1 or batch % self.minibatches:
            raise ValueError("PPO needs positive sizes, with environments x rollout a multiple of minibatches")
        if self.steps < 2 * batch:
            raise ValueError(f"PPO needs at least two rollouts of {batch:,} steps")

    def describe(self) -> dict:
        method = "PPO, clipped objective, GAE, Adam, separate critic of the same hidden shape"
        fields = {key: value for key, value in asdict(self).items() if key != "shaping" or value}  # older records
        return {**fields, "method": method, "start": "orthogonal initialisation (CleanRL's gains)"}


def train(
    task: Task,
    budget: Budget = Budget(),
    progress: Callable[[int, float | None], None] | None = None,
) -> tuple[Weights, dict]:
    """The trained weights, in the task's network, and what the training did: its budget, the training episodes
    it played, the mean return of the episodes finished in each update and the seconds it took.
    `progress(steps, mean_return)` is called after every update."""
    network = task.network
    generator = np.random.default_rng(budget.seed)
    activation = network.activation
    policy = initial(network.sizes, 0.01, generator)
    acting = task.acting_actions() if budget.mask_idle_actions else None
    idle = np.setdiff1d(np.arange(network.sizes[-1]), acting) if acting is not None else np.array([], int)
    policy[-1][idle] = IDLE_BIAS  # never sampled; with their gradients zeroed (`learn`) they stay so
    critic = initial((*network.sizes[:-1], 1), 1.0, generator)
    policy_adam, critic_adam = Adam(policy), Adam(critic)
    pool = task.training_episodes(budget.steps)  # more than are played; SUPERBEAM's few levels come round again
    n, t_max = budget.environments, budget.rollout
    games = task.environments(pool, n)
    returns_so_far = np.zeros(n)
    discounted = np.zeros(n)
    deviation = RunningDeviation()
    observations = np.zeros((t_max, n, network.sizes[0]), dtype=np.float32)  # float32 halves the matrix work
    actions = np.zeros((t_max, n), dtype=np.int64)
    log_probs, values = np.zeros((t_max, n), np.float32), np.zeros((t_max, n), np.float32)  # float32 throughout
    rewards, dones = np.zeros((t_max, n)), np.zeros((t_max, n))
    scale = None
    steps, curve, started = 0, [], time.perf_counter()
    checkpoints, best = [], None
    updates = budget.steps // (n * t_max)
    x = np.array(games.observe(), dtype=np.float32)
    potential = task.potential(x) if budget.shaping else None  # of x, carried from step to step
    for update in range(updates):
        finished = []
        for t in range(t_max):
            observations[t] = x
            inputs = x if scale is None else x / scale
            probabilities = softmax(forward(policy, inputs, activation)[0])
            chosen = (probabilities.cumsum(axis=1) > generator.random((n, 1))).argmax(axis=1)
            actions[t] = chosen
            log_probs[t] = np.log(probabilities[np.arange(n), chosen] + 1e-12)
            values[t] = forward(critic, inputs, activation)[0][:, 0]
            reward, done = games.act(chosen)
            returns_so_far += reward
            if done.any():
                finished.extend(returns_so_far[done].tolist())
                returns_so_far[done] = 0.0
            x = np.array(games.observe(), dtype=np.float32)
            if budget.shaping:  # a finished episode's next potential is 0: x is already the next episode's start
                following = task.potential(x)
                reward = reward + budget.gamma * np.where(done, 0.0, following) - potential
                potential = following
            rewards[t], dones[t] = reward, done
            discounted = discounted * budget.gamma + rewards[t]
            deviation.update(discounted)
            discounted[done] = 0.0
        steps += n * t_max
        curve.append(float(np.mean(finished)) if finished else None)
        if scale is None:  # the first rollout measures the inputs' scale and trains nothing
            scale = np.maximum(1.0, np.abs(observations).max(axis=(0, 1))).astype(np.float32)
        else:
            last_value = forward(critic, x / scale, activation)[0][:, 0]
            advantages = gae(rewards / deviation.std(), values, dones, last_value, budget.gamma, budget.gae_lambda)
            advantages = advantages.astype(np.float32)
            rate = budget.learning_rate * (1.0 - update / updates)
            learn(policy, critic, policy_adam, critic_adam, budget, rate, activation, generator, idle,
                  sparse_inputs(observations.reshape(n * t_max, -1), scale), actions.reshape(-1), log_probs.reshape(-1),
                  advantages.reshape(-1), (advantages + values).reshape(-1).astype(np.float32))  # fmt: skip
        if scale is not None and budget.checkpoints and (update + 1) % max(1, updates // budget.checkpoints) == 0:
            candidate = weights_of(network, policy, scale)
            score = task.score(candidate, task.training_episodes(budget.checkpoint_episodes), ONE_WORKER)
            key = task.train_key(score)  # how the task orders candidates (SUPERBEAM: levels won, then progress)
            checkpoints.append({"steps": steps, "training_score": score.normalized, "key": [float(k) for k in key]})
            if best is None or key > best[0]:
                best = (key, candidate, steps)
        if progress is not None:
            progress(steps, curve[-1])
    final = weights_of(network, policy, scale)
    kept, kept_steps = (final, steps) if best is None else best[1:]
    about = {
        "budget": budget.describe(),
        "steps": steps,
        "kept": {"steps": kept_steps, "rule": KEPT if budget.checkpoints else "the last network"},
        "checkpoints": checkpoints,
        "training_episodes": {
            "played": games.started,  # some of them still running at the end
            "first": pool[0],
            "last": pool[min(games.started, len(pool)) - 1],
        },
        "curve": curve,
        "seconds": round(time.perf_counter() - started, 1),
    }
    return kept, about


def learn(policy, critic, policy_adam, critic_adam, budget, rate, activation, generator, idle, x, a, old_log_p, adv,
          ret):  # fmt: skip
    """`epochs` passes over the rollout in shuffled minibatches: the clipped policy objective with an entropy
    bonus, and the critic's squared error."""
    size = len(a) // budget.minibatches
    for _ in range(budget.epochs):
        order = generator.permutation(len(a))
        for start in range(0, len(a), size):
            batch = order[start : start + size]
            xb, ab, advantage = x[batch], a[batch], adv[batch]
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            logits, cache = forward(policy, xb, activation)
            probabilities = softmax(logits)
            log_p = np.log(probabilities + 1e-12)
            ratio = np.exp(log_p[np.arange(size), ab] - old_log_p[batch])
            unclipped = -advantage * ratio >= -advantage * np.clip(ratio, 1 - budget.clip, 1 + budget.clip)
            d_log_p = -advantage * ratio * unclipped / size  # d(loss)/d(log p of the action taken)
            d_logits = -probabilities * d_log_p[:, None]
            d_logits[np.arange(size), ab] += d_log_p
            entropy = -(probabilities * log_p).sum(axis=1, keepdims=True)
            d_logits += budget.entropy * probabilities * (log_p + entropy) / size  # minus the entropy bonus
            d_logits[:, idle] = 0.0  # exactly 0, or Adam would scale a tiny gradient up to full steps
            policy_adam.step(policy, clipped(backward(policy, cache, d_logits, activation), budget), rate)
            value, cache = forward(critic, xb, activation)
            d_value = (value[:, 0] - ret[batch])[:, None] / size
            critic_adam.step(critic, clipped(backward(critic, cache, d_value, activation), budget), rate)


def sparse_inputs(x: np.ndarray, scale: np.ndarray) -> sparse.csr_array:
    """x / scale as a sparse matrix (scipy's own conversion scans the dense rollout several times slower)."""
    return sparse.csr_array(_nonzero_rows(x, scale), shape=x.shape)


@njit(cache=True)
def _nonzero_rows(x, scale):
    """The CSR arrays (data, indices, indptr) of x / scale."""
    indptr = np.zeros(x.shape[0] + 1, np.int32)
    for i in range(x.shape[0]):
        indptr[i + 1] = indptr[i] + np.count_nonzero(x[i])
    data, indices = np.empty(indptr[-1], np.float32), np.empty(indptr[-1], np.int32)
    k = 0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] != 0:
                data[k], indices[k] = x[i, j] / scale[j], j
                k += 1
    return data, indices, indptr


def initial(sizes, output_gain: float, generator: np.random.Generator) -> Params:
    """Orthogonal weights with gain sqrt(2) and zero biases; the last layer's gain is `output_gain`."""
    params = []
    for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        q, r = np.linalg.qr(generator.standard_normal((max(n_in, n_out), min(n_in, n_out))))
        q = q * np.sign(np.diag(r))
        w = q if n_in >= n_out else q.T
        gain = output_gain if k == len(sizes) - 2 else np.sqrt(2.0)
        params += [(w * gain).astype(np.float32), np.zeros(n_out, dtype=np.float32)]
    return params


def forward(params: Params, x: np.ndarray, activation: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """The outputs for a batch of inputs, and each layer's input (what `backward` needs)."""
    cache, a = [], x
    for k in range(0, len(params), 2):
        cache.append(a)
        z = a @ params[k] + params[k + 1]
        a = z if k == len(params) - 2 else (np.tanh(z) if activation == "tanh" else np.maximum(z, 0.0))
    return a, cache


def backward(params: Params, cache: list[np.ndarray], d_out: np.ndarray, activation: str) -> Params:
    """The gradients of every parameter, given the gradient at the outputs."""
    grads: Params = [np.zeros(0)] * len(params)
    d = d_out
    for k in range(len(params) - 2, -1, -2):
        a = cache[k // 2]
        grads[k], grads[k + 1] = a.T @ d, d.sum(axis=0)
        if k:
            d = (d @ params[k].T) * ((1.0 - a * a) if activation == "tanh" else (a > 0.0))
    return grads


def clipped(grads: Params, budget: Budget) -> Params:
    norm = np.sqrt(sum(float((g * g).sum()) for g in grads))
    return [g * min(1.0, budget.max_grad_norm / (norm + 1e-6)) for g in grads]


class Adam:
    def __init__(self, params: Params):
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, params: Params, grads: Params, rate: float) -> None:
        self.t += 1
        for p, g, m, v in zip(params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= rate * (m / (1 - 0.9**self.t)) / (np.sqrt(v / (1 - 0.999**self.t)) + 1e-5)


class RunningDeviation:
    """The standard deviation of every value seen so far (Chan et al.'s parallel update)."""

    def __init__(self):
        self.count, self.mean, self.variance = 1e-4, 0.0, 1.0

    def update(self, values: np.ndarray) -> None:
        count = self.count + len(values)
        delta = values.mean() - self.mean
        self.variance = (
            self.variance * self.count + values.var() * len(values) + delta**2 * self.count * len(values) / count
        ) / count
        self.mean += delta * len(values) / count
        self.count = count

    def std(self) -> float:
        return float(np.sqrt(self.variance + 1e-8))


def gae(rewards, values, dones, last_value, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimates; an episode's end (done after the step) cuts the bootstrap."""
    advantages = np.zeros_like(rewards)
    running = np.zeros(rewards.shape[1])
    for t in range(len(rewards) - 1, -1, -1):
        next_value = last_value if t == len(rewards) - 1 else values[t + 1]
        alive = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_value * alive - values[t]
        running = delta + gamma * lam * alive * running
        advantages[t] = running
    return advantages


def softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def weights_of(network: Network, params: Params, scale: np.ndarray) -> Weights:
    """The parameters as the task's tensors, in its orientation and precision; W1 takes the input scale in, so
    the network reads raw inputs."""
    params = [params[0] / scale[:, None], *params[1:]]
    weights = {}
    for k in range(network.layers):
        w = params[2 * k] if network.orientation == "x@W" else params[2 * k].T
        weights[f"W{k + 1}"] = w.astype(network.dtype)
        weights[f"b{k + 1}"] = params[2 * k + 1].astype(network.dtype)
    return weights


TRAINED = TRAINED_NETWORKS  # this package's folder of the trained baseline's networks: <game>.0.npz and .json


def trained_network(task: Task, seed: int = 0) -> tuple[Weights, dict] | None:
    """The shipped baseline network trained for this task's game with this seed, and what its training did, or
    None (`Task.trained_network`: the task says where its networks are)."""
    return task.trained_network(seed)


def trained_answer(task: Task) -> str | None:
    """The reply of the offline model "trained": the task's shipped network in the task's answer format."""
    return task.offline_reply("trained")
