"""Generated games (`minatar_synth.generator`): deterministic text, and modules that keep the game contract."""

import ast
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minatar_synth import generator

SEEDS = range(30)


def load(seed: int, folder: Path, score_cap: float | None = None):
    """The generated module, loaded from a file in `folder` (not from any package)."""
    path = generator.write(seed, folder, score_cap)
    spec = importlib.util.spec_from_file_location(f"generated_{folder.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def environment_class(module):
    classes = [value for name, value in vars(module).items() if name.endswith("Environment") and inspect.isclass(value)]
    assert len(classes) == 1
    return classes[0]


def play(cls, seed: int, actions: list[int], sticky: float = 0.1) -> tuple[list[float], list[np.ndarray], int]:
    """Rewards, states and steps of one episode with `actions` repeated as needed."""
    environment = cls(sticky_action_prob=sticky)
    environment.seed(seed)
    environment.reset()
    rewards, states = [], [environment.state()]
    for step in range(cls.max_steps + 5):
        reward, terminal = environment.act(actions[step % len(actions)])
        rewards.append(reward)
        states.append(environment.state())
        if terminal:
            return rewards, states, step + 1
    raise AssertionError("the episode did not end by max_steps")


def test_same_seed_same_text():
    for seed in (0, 7, 12345, 99999):
        assert generator.generate(seed) == generator.generate(seed)
    assert generator.generate(3, 42.0) == generator.generate(3, 42.0)


def test_same_text_in_a_fresh_process_with_another_hash_seed():
    run = subprocess.run(
        [sys.executable, "-m", "minatar_synth.generator", "11"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PYTHONPATH": str(Path(generator.__file__).parents[1])},
    )
    assert run.stdout == generator.generate(11)


def test_different_seeds_give_different_games():
    texts = {generator.generate(seed) for seed in SEEDS}
    assert len(texts) == len(SEEDS)
    designs = [generator.design(seed) for seed in SEEDS]
    assert {d.layout for d in designs} == {"bottom", "left", "free"}
    assert {d.ending for d in designs} == {"crash", "lives", "penalty"}
    assert {d.scoring for d in designs} == {"collect", "shoot", "both"}
    assert {d.danger.motion for d in designs} >= {"fall", "zigzag", "chase"}


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_module_keeps_the_contract(seed, tmp_path):
    text = generator.generate(seed)
    ast.parse(text)
    assert 40 <= len(text.splitlines()) <= 220
    module = load(seed, tmp_path)
    assert module.__doc__.splitlines()[0].startswith(f"Gen {seed:05d}: move a ")
    assert all(word in module.__doc__ for word in ("Rules", "Channels of state()", "Actions", "Reward"))
    cls = environment_class(module)
    assert cls.__name__ == generator.class_name(seed) == f"Gen{seed:05d}Environment"
    assert cls.score_cap == generator.PLACEHOLDER_CAP and 200 <= cls.max_steps <= 500

    actions = np.random.RandomState(seed).randint(6, size=cls.max_steps).tolist()
    rewards, states, steps = play(cls, 1729 + seed, actions)
    assert all(state.shape == (10, 10, 6) and state.dtype == bool for state in states)
    assert all(np.isfinite(reward) for reward in rewards) and steps <= cls.max_steps
    assert all(state[:, :, 0].sum() == 1 for state in states)  # exactly one player cell
    assert (rewards, steps) == play(cls, 1729 + seed, actions)[::2]  # replayed: the same episode

    # Actions taken after the episode ended change nothing.
    environment = cls()
    environment.seed(seed)
    environment.reset()
    environment.terminal = True
    assert environment.act(3) == (0.0, True)


@pytest.mark.parametrize("seed", [0, 5, 9, 21])
def test_sticky_actions_and_reset(seed, tmp_path):
    cls = environment_class(load(seed, tmp_path))
    # With sticky_action_prob 1 every action repeats the first (no-op): the actions given change nothing.
    busy = play(cls, 3, [1, 2, 3, 4, 5], sticky=1.0)
    idle = play(cls, 3, [0], sticky=1.0)
    assert busy[0] == idle[0] and all((a == b).all() for a, b in zip(busy[1], idle[1], strict=True))
    # seed() then reset() starts the same episode again, on a used environment too.
    environment = cls()
    environment.seed(8)
    environment.reset()
    first = [environment.act(a) for a in (1, 3, 5, 2, 4) * 20]
    environment.seed(8)
    environment.reset()
    assert [environment.act(a) for a in (1, 3, 5, 2, 4) * 20] == first


def test_an_episode_lasts_max_steps_when_nothing_ends_it_sooner(tmp_path):
    seed = next(s for s in SEEDS if generator.design(s).ending == "penalty")
    cls = environment_class(load(seed, tmp_path))
    assert play(cls, 0, [0])[2] == cls.max_steps


def test_score_cap_written_and_cli(tmp_path, capsys):
    module = load(4, tmp_path, score_cap=37.0)
    assert environment_class(module).score_cap == 37.0
    generator.main(["4", "--out", str(tmp_path / "cli")])
    assert (tmp_path / "cli" / "gen_00004.py").read_text() == generator.generate(4)
    generator.main(["4"])
    assert capsys.readouterr().out.endswith(generator.generate(4))
    with pytest.raises(ValueError):
        generator.generate(-1)


def test_nothing_that_scores_homes_in_on_the_player():
    designs = [generator.design(seed) for seed in range(200)]
    assert all(d.reward is None or d.reward.motion != "chase" for d in designs)
    assert all(d.scoring == "collect" for d in designs if d.danger.motion == "chase")
    assert any(d.danger.motion == "chase" for d in designs)


@pytest.mark.parametrize("seed", [2, 9])  # shooting games: bottom row and free layout
def test_where_shots_score_a_miss_costs_one(seed, tmp_path):
    d = generator.design(seed)
    assert d.scoring == "shoot" and generator.shots_score(d)
    module = load(seed, tmp_path)
    setattr(module, f"{d.danger.constant}_CHANCE", 0.0)  # an empty grid: every shot misses
    environment = environment_class(module)(sticky_action_prob=0.0)
    environment.seed(0)
    environment.reset()
    rewards = [environment.act(5)[0] for _ in range(40)]
    assert sum(rewards) == -rewards.count(-1.0) and rewards.count(-1.0) >= 3
    assert "reward -= 1.0  # a miss" not in generator.generate(next(s for s in SEEDS if not generator.design(s).fire))


def test_generated_modules_are_ruff_clean(tmp_path):
    ruff = Path(sys.executable).parent / "ruff"
    if not ruff.is_file():
        pytest.skip("ruff is not installed next to this Python")
    for seed in range(10):
        generator.write(seed, tmp_path)
    config = Path(__file__).parents[2] / "pyproject.toml"
    for command in (["check"], ["format", "--check"]):
        run = subprocess.run([str(ruff), *command, "--config", str(config), str(tmp_path)], capture_output=True)
        assert run.returncode == 0, run.stdout.decode() + run.stderr.decode()
