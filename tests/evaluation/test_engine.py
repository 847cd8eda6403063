"""The fast and compiled engines equal the reference engine episode by episode, and their parts equal the
reference's."""

import subprocess
import sys

import numpy as np
import pytest

from wspbench.evaluation import engine as engine_module
from wspbench.evaluation import evaluate
from wspbench.evaluation.engine import play_compiled, play_lockstep, play_reference, resolve_engine, sample_batch
from wspbench.games.minatar import MinAtarGame
from wspbench.networks import MINATAR_NETWORK, SUPERBEAM_NETWORK, sample_action, softmax_cdf

GAMES = ["asterix", "breakout", "freeway", "seaquest", "space_invaders"]


def random_dense(seed: int, scale: float = 0.6):
    generator = np.random.default_rng(seed)
    return {
        name: (generator.standard_normal(shape) * scale).astype(np.float32)
        for name, shape in MINATAR_NETWORK.shapes.items()
    }


def random_sparse(seed: int):
    """A hand-written-looking program: a few large W1 entries, a diagonal W2, a few W3 entries."""
    generator = np.random.default_rng(seed)
    weights = MINATAR_NETWORK.zeros()
    rows, columns = generator.integers(0, 600, 40), generator.integers(0, 32, 40)
    weights["W1"][rows, columns] = generator.choice([-3.0, -1.5, 1.5, 3.0], 40)
    weights["W2"][np.arange(32), np.arange(32)] = 2.0
    weights["W3"][generator.integers(0, 32, 12), generator.integers(0, 6, 12)] = generator.normal(0, 4, 12)
    weights["b3"][:] = generator.normal(0, 1, 6)
    return {name: value.astype(np.float32) for name, value in weights.items()}


@pytest.mark.parametrize("game", GAMES)
def test_compiled_equals_reference_on_random_dense_and_sparse_programs(game):
    """With 1 and 2 workers, and with 3 slots reused across the episodes."""
    task = MinAtarGame(game)
    episodes = list(range(4)) if game == "freeway" else list(range(30))
    for weights in (random_dense(1), random_dense(2, scale=2.0), random_sparse(3), random_sparse(4)):
        reference = evaluate(task, weights, episodes, engine="reference", workers=1)
        for workers in (1, 2):
            assert evaluate(task, weights, episodes, engine="compiled", workers=workers) == reference
        reused = play_compiled(task, weights, episodes, batch_size=3)
        assert reused == list(zip(reference.returns, reference.lengths, strict=True))


@pytest.mark.parametrize("game", ["breakout", "seaquest"])
def test_compiled_with_two_workers_when_a_pool_is_worth_it(game, monkeypatch):
    monkeypatch.setattr(engine_module, "POOL_WORTH_SECONDS", 0.0)
    task, weights = MinAtarGame(game), random_sparse(11)
    reported = []
    run = evaluate(task, weights, 150, engine="compiled", workers=2, progress=reported.append)
    assert run == evaluate(task, weights, 150, engine="reference", workers=1)
    assert sum(reported) == 150


def test_compiled_episode_ids_and_progress():
    """Progress reports arrive while some slots wait for the reference's decision (large weights: wide bounds)."""
    for weights in (random_dense(3), random_dense(4, scale=4.0)):
        task, reported = MinAtarGame("breakout"), []
        ids = [5, 70, 71, 2] + list(range(100, 160))
        run = play_compiled(task, weights, ids, progress=reported.append, batch_size=8)
        assert run == play_reference(task, weights, ids)
        assert sum(reported) == len(ids)


def test_compiled_engine_rejects_or_defers_weights_it_cannot_trust():
    task = MinAtarGame("breakout")
    weights = random_dense(5)
    weights["W2"] = weights["W2"][:, :10]
    with pytest.raises(ValueError, match="shape"):
        play_compiled(task, weights, [0, 1])
    weights = random_dense(5)
    weights["b3"][2] = np.inf  # never from an answer (edits are checked); the fast engine's handling
    with np.errstate(invalid="ignore"):
        assert play_compiled(task, weights, [0, 1]) == play_lockstep(task, weights, [0, 1])


def test_auto_engine_picks_compiled_unless_the_work_is_too_small_to_load_numba():
    for task in (MinAtarGame("breakout"), MinAtarGame("fruit_catch", "synth"), MinAtarGame("gen_00100", "gen")):
        assert resolve_engine(task, "auto") == "compiled"
        assert resolve_engine(task, "auto", 1000) == "compiled"
    code = (  # in a fresh process: without numba loaded, ten episodes play in Python
        "import sys; from wspbench.evaluation.engine import resolve_engine; "
        "from wspbench.games.minatar import MinAtarGame; "
        "assert resolve_engine(MinAtarGame('fruit_catch', 'synth'), 'auto', 10) == 'fast'; "
        "assert resolve_engine(MinAtarGame('fruit_catch', 'synth'), 'auto', 11) == 'compiled'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    task, weights = MinAtarGame("fruit_catch", "synth"), random_dense(5)
    assert evaluate(task, weights, 6, engine="compiled", workers=1) == evaluate(
        task, weights, 6, engine="reference", workers=1
    )


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("game", GAMES)
def test_fast_equals_reference_on_random_dense_programs(game, workers):
    task = MinAtarGame(game)
    episodes = 8 if game == "freeway" else 24
    for seed in (1, 2):
        weights = random_dense(seed)
        fast = evaluate(task, weights, episodes, engine="fast", workers=workers)
        reference = evaluate(task, weights, episodes, engine="reference", workers=1)
        assert fast == reference


@pytest.mark.parametrize("game", GAMES)
def test_slots_reused_across_episodes_give_reference_results(game):
    """A small batch makes every slot play many episodes in turn, reusing its environment."""
    task, weights = MinAtarGame(game), random_dense(7)
    episodes = list(range(6)) if game == "freeway" else list(range(30))
    assert play_lockstep(task, weights, episodes, batch_size=3) == play_reference(task, weights, episodes)


def test_episode_ids_are_respected():
    task, weights = MinAtarGame("breakout"), random_dense(3)
    run = evaluate(task, weights, [5, 70, 71, 2], engine="fast", workers=2)
    single = [evaluate(task, weights, [e], engine="reference", workers=1) for e in (5, 70, 71, 2)]
    assert run.returns == tuple(r.returns[0] for r in single)
    assert run.lengths == tuple(r.lengths[0] for r in single)


def test_softmax_cdf_reproduces_random_choice():
    generator = np.random.default_rng(0)
    for trial in range(2000):
        logits = (generator.standard_normal(6) * 10 ** generator.uniform(-3, 2)).astype(np.float32)
        state = np.random.RandomState(trial)
        twin = np.random.RandomState(trial)
        expected = sample_action(logits, state)
        assert int(np.searchsorted(softmax_cdf(logits), twin.random_sample(), side="right")) == expected


def test_near_ties_fall_back_to_the_exact_action():
    """Uniform draws placed on and next to every cumulative boundary give the reference's action."""
    weights = random_dense(4, scale=1.0)
    generator = np.random.default_rng(1)
    xs = (generator.random((64, 600)) < 0.05).astype(np.float32)
    exact_cdfs = [softmax_cdf(MINATAR_NETWORK.forward_one(weights, x.copy())) for x in xs]
    for offset in (-1e-9, 0.0, 1e-9, 1e-6):
        uniforms = np.array([min(max(cdf[i % 5] + offset, 0.0), 1 - 1e-16) for i, cdf in enumerate(exact_cdfs)])
        actions = sample_batch(MINATAR_NETWORK, weights, MINATAR_NETWORK.batched(weights), xs, uniforms)
        expected = [int(np.searchsorted(cdf, u, side="right")) for cdf, u in zip(exact_cdfs, uniforms, strict=True)]
        assert actions.tolist() == expected


def test_batched_bound_holds():
    for seed in range(5):
        weights = random_dense(seed, scale=2.0)
        xs = (np.random.default_rng(seed).random((128, 600)) < 0.1).astype(np.float32)
        logits, bound = MINATAR_NETWORK.batched(weights)(xs)
        exact = np.array([MINATAR_NETWORK.forward_one(weights, x.copy()) for x in xs])
        assert (np.abs(logits - exact).max(axis=1) <= bound).all()


def test_superbeam_network_shape_and_orientation():
    assert SUPERBEAM_NETWORK.shapes == {"W1": (16, 8), "b1": (16,), "W2": (6, 16), "b2": (6,)}
    weights = SUPERBEAM_NETWORK.zeros()
    weights["W1"][0, 2] = 1.0
    weights["W2"][4, 0] = 1.0
    x = np.array([0, 0, 3.0, 0, 0, 0, 0, 0])
    logits = SUPERBEAM_NETWORK.forward_one(weights, x)
    assert logits.tolist() == [0, 0, 0, 0, 3.0, 0]
    batched, _ = SUPERBEAM_NETWORK.batched(weights)(x[None, :])
    assert batched[0].tolist() == logits.tolist()


def test_unknown_engine_and_empty_episodes():
    with pytest.raises(ValueError, match="unknown engine"):
        evaluate(MinAtarGame("breakout"), random_dense(0), 3, engine="warp")
    with pytest.raises(ValueError, match="no episodes"):
        evaluate(MinAtarGame("breakout"), random_dense(0), [], engine="fast")


def test_numba_is_imported_only_when_the_compiled_engine_plays():
    """`auto` plays a first episode in Python and stays there when the rest would take less than numba's load
    (zero weights: short episodes); long work (breakout's reference program, 1,600 steps an episode) loads it.
    The choice rests on timing the first episodes, so each case is far from the bound (0.45 s): 3 episodes of about
    1 ms, and 500 of about 15 ms (issue 52: with 20 of each, a busy machine crossed it, in either direction)."""
    code = (
        "import sys; import wspbench.cli; from wspbench.evaluation import evaluate; "
        "from wspbench.games.minatar import MinAtarGame; from wspbench.networks import MINATAR_NETWORK; "
        "from wspbench.tasks import get_task; task = get_task('original/breakout'); "
        "w = MINATAR_NETWORK.zeros(); evaluate(MinAtarGame('fruit_catch', 'synth'), w, 2, workers=1); "
        "evaluate(MinAtarGame('breakout'), w, 50, engine='fast', workers=1); assert 'numba' not in sys.modules; "
        "evaluate(MinAtarGame('breakout'), w, 3, workers=1); assert 'numba' not in sys.modules; "
        "evaluate(MinAtarGame('breakout'), task.parse(task.offline_answer('reference')), 500, workers=1); "
        "assert 'numba' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


@pytest.mark.parametrize("game", ["asterix", "breakout", "freeway", "seaquest", "space_invaders"])
def test_a_games_facts_read_from_its_file_alone_are_minatars(game):
    """Prompts read an original game's channels, actions and source from its file without importing `minatar`
    (whose display code loads seaborn): the same facts as `minatar.Environment` and the imported module give."""
    import importlib
    import inspect

    from minatar import Environment

    from wspbench.games import minatar_original

    environment = Environment(game, sticky_action_prob=0.1, difficulty_ramping=False)
    channels, actions = minatar_original.own_facts(game)
    assert channels == environment.env.channels and list(actions) == list(environment.minimal_action_set())
    module = importlib.import_module(f"minatar.environments.{game}")
    assert minatar_original.source_file(game).read_text() == open(inspect.getsourcefile(module)).read()
    assert MinAtarGame(game).acting_actions() == actions


@pytest.mark.parametrize("game", ["asterix", "breakout", "freeway", "seaquest", "space_invaders"])
def test_an_original_game_plays_as_minatars_environment_plays_it(game):
    """The Python engines play an original game through `minatar_original.Environment` (its module loaded from its
    file alone): seeded alike and sent the same random actions, it gives `minatar.Environment`'s states, rewards
    and ends, step by step, sticky actions included, over several episodes."""
    from minatar import Environment

    from wspbench.games import minatar_original

    for episode in range(6):
        ours = minatar_original.make_environment(game, 0.1)
        theirs = Environment(game, sticky_action_prob=0.1, difficulty_ramping=False)
        for environment in (ours, theirs):
            environment.seed(1729 + episode)
            environment.reset()
        actions = np.random.RandomState(episode)
        for _ in range(3000):
            action = int(actions.randint(6))
            assert ours.act(action) == theirs.act(action)
            assert np.array_equal(ours.state(), theirs.state()) and ours.last_action == theirs.last_action
            if theirs.env.terminal:
                break
