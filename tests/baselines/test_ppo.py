"""The PPO baseline (src/wspbench/baselines/ppo.py): it learns, plays only training episodes, is reproducible, gives
a network of the task's exact shape, and that network written as an answer grades exactly like the weights."""

from dataclasses import replace

import numpy as np
import pytest

from tests.toy_family import SignTask
from wspbench.answers.edits import parse_edits, write_edits
from wspbench.baselines.ppo import (
    IDLE_BIAS,
    Budget,
    backward,
    forward,
    initial,
    sparse_inputs,
    train,
    trained_network,
)
from wspbench.evaluation import ONE_WORKER
from wspbench.networks import MINATAR_NETWORK
from wspbench.tasks import get_task, select
from wspbench.tasks.reading_set import PUBLIC


def same(graded, scored) -> bool:
    """The same result, episode by episode (a grade also records the answer, and both their seconds)."""
    return graded.error is None and (graded.normalized, graded.values, graded.lengths) == (
        scored.normalized,
        scored.values,
        scored.lengths,
    )


class Watched(SignTask):
    """The toy task, noting every episode a learner starts."""

    started: list[int]

    def environment(self, episode):
        self.started.append(episode)
        return super().environment(episode)


def test_ppo_learns_the_toy_task_on_training_episodes_only():
    task = Watched()
    task.started = []
    weights, about = train(task, Budget(steps=8192, environments=8, rollout=64, learning_rate=0.01))
    assert about["steps"] == 8192 and about["budget"]["steps"] == 8192
    assert task.started and not set(task.started) & set(range(task.max_episodes))  # no scoring episode
    scoring = task.scoring_episodes(100)
    assert task.score(task.network.zeros(), scoring).normalized < 0.6
    assert task.score(weights, scoring).normalized >= 0.9
    assert same(task.grade(task.write(weights), scoring), task.score(weights, scoring))


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_the_hand_written_gradients_match_finite_differences(activation):
    generator = np.random.default_rng(1)
    params = [p.astype(np.float64) for p in initial((5, 4, 3, 2), 1.0, generator)]
    params[1::2] = [generator.standard_normal(b.shape) for b in params[1::2]]  # zero biases put ReLU on its kink
    x, target = generator.standard_normal((7, 5)), generator.standard_normal((7, 2))

    def loss(ps):
        return 0.5 * float(((forward(ps, x, activation)[0] - target) ** 2).sum())

    out, cache = forward(params, x, activation)
    grads = backward(params, cache, out - target, activation)
    for p, g in zip(params, grads, strict=True):
        for index in [(0,) * p.ndim, tuple(s - 1 for s in p.shape)]:
            p[index] += 1e-6
            up = loss(params)
            p[index] -= 2e-6
            down = loss(params)
            p[index] += 1e-6
            assert (up - down) / 2e-6 == pytest.approx(g[index], rel=1e-4, abs=1e-7)


def test_sparse_inputs_give_the_dense_inputs_outputs_and_gradients():
    """The updates hold the rollout's inputs as a sparse matrix (`ppo.py`); the first layer's products then
    sum fewer terms, in another order, so they agree to float32 rounding."""
    generator = np.random.default_rng(2)
    params = initial((600, 32, 32, 6), 1.0, generator)
    x = ((generator.random((64, 600)) < 0.05) / generator.uniform(1, 3, 600)).astype(np.float32)
    scale = (1 + np.arange(600) % 3).astype(np.float32)
    assert np.array_equal(sparse_inputs(x, scale).toarray(), x / scale)
    dense_out, dense_cache = forward(params, x / scale, "tanh")
    sparse_out, sparse_cache = forward(params, sparse_inputs(x, scale)[np.arange(64)], "tanh")
    d_out = generator.standard_normal(dense_out.shape).astype(np.float32)
    assert np.allclose(sparse_out, dense_out, rtol=1e-5, atol=1e-6)
    thins = backward(params, sparse_cache, d_out, "tanh")
    for dense, thin in zip(backward(params, dense_cache, d_out, "tanh"), thins, strict=True):
        assert isinstance(thin, np.ndarray) and thin.dtype == np.float32
        assert np.allclose(thin, dense, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("task_id", ["original/breakout", "synth/ferry", "superbeam"])
def test_a_tiny_training_on_a_real_task_is_reproducible_and_its_answer_grades_like_its_weights(task_id):
    task = get_task(task_id)
    budget = Budget(steps=512, environments=4, rollout=64, epochs=1, minibatches=2, checkpoint_episodes=3)
    first, about = train(task, budget)
    best = max(about["checkpoints"], key=lambda c: c["key"])
    assert about["kept"]["steps"] == best["steps"]  # the best checkpoint on training episodes, the earliest on ties
    again, _ = train(task, budget)
    for name, shape in task.network.shapes.items():
        assert first[name].shape == shape and first[name].dtype == task.network.dtype
        assert np.array_equal(first[name], again[name])
    training = about["training_episodes"]
    assert training["first"] == task.training_episodes(1)[0] and training["played"] >= 4
    assert not set(task.training_episodes(training["played"])) & set(task.scoring_episodes())
    episodes = task.scoring_episodes(3)
    assert same(task.grade(task.write(first), episodes), task.score(first, episodes))


def test_masked_idle_actions_keep_their_bias_and_are_never_sampled():
    """breakout's up, down and fire do nothing: with mask_idle_actions they start at IDLE_BIAS and no update
    moves them (an exact 0 gradient, which Adam leaves at 0), so the kept network never samples them."""
    task = get_task("original/breakout")
    assert task.acting_actions() == (0, 1, 3) and get_task("synth/ferry").acting_actions() is None
    budget = Budget(steps=512, environments=4, rollout=64, epochs=1, minibatches=2, checkpoints=0)
    weights, about = train(task, replace(budget, mask_idle_actions=True))
    assert about["budget"]["mask_idle_actions"] is True
    assert weights["b3"][[2, 4, 5]].tolist() == [IDLE_BIAS] * 3
    start = initial(task.network.sizes, 0.01, np.random.default_rng(budget.seed))
    assert np.array_equal(weights["W3"][:, [2, 4, 5]], start[-2][:, [2, 4, 5]])
    unmasked, _ = train(task, budget)
    assert not np.any(unmasked["b3"] == IDLE_BIAS)


def test_an_edits_answer_holds_any_float32_network_exactly():
    generator = np.random.default_rng(0)
    weights = {
        name: (generator.standard_normal(shape) * generator.choice([1e-7, 1e-3, 1.0, 300.0], size=shape)).astype(
            np.float32
        )
        for name, shape in MINATAR_NETWORK.shapes.items()
    }
    weights["W1"][:7] = 0.0  # rows of zeros are left out
    text = write_edits(weights)
    parsed, statements = parse_edits(text)
    assert statements == (600 - 7) + 1 + 32 + 1 + 32 + 1 and "e" not in text.split("```edits")[1]
    assert all(np.array_equal(parsed[name], weights[name]) for name in weights)


def test_a_budget_is_checked():
    with pytest.raises(ValueError, match="multiple of minibatches"):
        Budget(environments=3, rollout=5, minibatches=2)
    with pytest.raises(ValueError, match="two rollouts"):
        Budget(steps=100)


@pytest.mark.parametrize(
    "seed, selector",
    [
        (None, "original/*,synth/*,superbeam,superbeam/extended"),  # the baseline's (wspbench/baselines/trained/)
        (1, "original/*,synth/*"),  # identify-choice
        (2, "original/*,synth/*"),  # repair
        (3, "original/*,synth/*"),  # identify-choice
        (4, "original/*"),  # identify
        (5, "original/*"),  # identify
    ],
)  # the baseline's networks, and the public reading set's (wspbench/tasks/reading_set.py)
def test_every_game_has_its_trained_networks_and_tasks_of_one_game_share_them(seed, selector):
    for task in select(selector):  # the games' own tasks
        if seed is None:
            weights, about = trained_network(task)
        else:
            weights, about = PUBLIC.network(task.game.name, seed, task.network)
        assert about["budget"]["seed"] == (seed or 0)
        assert {name: w.shape for name, w in weights.items()} == task.network.shapes
        budget = about["budget"]
        batch = budget["environments"] * budget["rollout"]
        assert about["steps"] == budget["steps"] // batch * batch  # whole rollouts
        assert about["training_episodes"]["first"] == task.training_episodes(1)[0]


def test_the_offline_model_trained_answers_with_the_shipped_network():
    from wspbench.harness.clients import make_client

    task = get_task("synth/ferry")
    reply = make_client("trained").complete(task.messages(), task)
    weights, _ = trained_network(task)
    parsed = task.parse(reply.content)
    assert all(np.array_equal(parsed[name], weights[name]) for name in weights)


@pytest.mark.parametrize(
    "task_id", ["original/asterix", "original/breakout", "original/freeway", "original/seaquest",
                "original/space_invaders", "synth/ferry", "synth/heat_gun", "gen/00100", "gen/00140", "superbeam"]
)  # fmt: skip
def test_a_batch_of_training_environments_steps_like_the_reference_engine(task_id):
    """`Task.environments` (compiled twins for the MinAtar games) against one `Task.environment` per episode (the
    `minatar` package, the synthetic game's module, the CHIP-8 machine), the same actions, step by step, through
    episode ends and restarts, with the episodes coming round again."""
    task = get_task(task_id)
    episodes = task.training_episodes(12)
    batch = task.environments(episodes, 4)
    slots = [task.environment(episodes[i]) for i in range(4)]
    started = 4
    generator = np.random.default_rng(7)
    steps = 300 if task_id == "superbeam" else 2600  # freeway ends at its 2,500-step limit
    ended = 0
    for step in range(steps):
        expected = np.stack([slot.observe() for slot in slots]).astype(np.float32)
        assert np.array_equal(batch.observe(), expected), step
        actions = generator.integers(0, task.network.sizes[-1], 4)
        rewards, dones = batch.act(actions)
        for i, slot in enumerate(slots):
            reward, done = slot.act(int(actions[i]))
            assert (rewards[i], bool(dones[i])) == (reward, done), (step, i)
            if done:
                slots[i] = slot.restart(episodes[started % len(episodes)])
                started += 1
                ended += 1
    assert batch.started == started
    assert ended >= (0 if task_id == "superbeam" else 4)


@pytest.mark.parametrize("task_id", ["original/breakout", "synth/ferry"])
def test_training_batches_hold_training_episodes_only(task_id, monkeypatch):
    task = get_task(task_id)
    given = []
    batches = task.environments
    monkeypatch.setattr(
        task, "environments", lambda episodes, count: given.append(episodes) or batches(episodes, count)
    )
    train(task, Budget(steps=512, environments=4, rollout=64, epochs=1, minibatches=2, checkpoints=0))
    (episodes,) = given
    assert set(episodes) <= set(task.training_episodes(10**9))
    assert not set(episodes) & (set(task.scoring_episodes(10**9)) | set(task.calibration_episodes(10**9)))


def test_shaping_follows_the_potential_and_never_reaches_a_score():
    """ferry's potential: minus the distance from the player to the nearest reward cell, over 18; a shaped
    training records its budget and its checkpoints are scored as the task scores."""
    task = get_task("synth/ferry")
    grid = np.zeros((3, 10, 10, 6), np.float32)
    grid[0, 9, 2, 0], grid[0, 9, 6, 2], grid[0, 0, 1, 2] = 1, 1, 1  # player (9, 2); rewards at (9, 6) and (0, 1)
    grid[1, 4, 4, 0] = 1  # no reward on the grid
    grid[2, 0, 0, 0], grid[2, 9, 9, 2] = 1, 1  # the farthest a reward can be
    assert task.potential(grid.reshape(3, 600)).tolist() == [-4 / 18, 0.0, -1.0]
    assert get_task("superbeam").potential(np.zeros((1, 8))) is None
    weights, about = train(task, Budget(steps=2 * 32 * 128, checkpoints=1, checkpoint_episodes=2, shaping=True))
    assert about["budget"]["shaping"] is True and "shaping" not in Budget().describe()
    (checkpoint,) = about["checkpoints"]
    assert checkpoint["training_score"] == task.score(weights, task.training_episodes(2), ONE_WORKER).normalized
