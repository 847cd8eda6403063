"""The reading and repair families (`wspbench/tasks/identify.py`, `wspbench/tasks/repair.py`): their tasks, prompts,
grading, shipped damage data and their place in `wsp run`."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from wspbench.baselines.ppo import trained_answer, trained_network
from wspbench.cli import app
from wspbench.evaluation import ONE_WORKER
from wspbench.games.minatar import all_games
from wspbench.networks import MINATAR_NETWORK
from wspbench.protocols import agent, make
from wspbench.statistics import aggregate_interval
from wspbench.tasks import get_task, select
from wspbench.tasks.identify import IdentifyTask, candidates, summary
from wspbench.tasks.reading_set import CHOICE_SEEDS, FREE_SEEDS, READING, REPAIR_ROUNDS, repair_seeds
from wspbench.tasks.repair import (
    BEHAVIOUR_EPISODES,
    BEHAVIOUR_STEPS,
    CLASSIC,
    DAMAGES,
    MIN_EPISODES,
    ROUNDS,
    chosen_kind,
    clear_kinds,
    damage,
    inverse,
    kind_order,
    load_damages,
    reach,
)
from wspbench.tasks.spec import Score

RUNNER = CliRunner()
NUMBER = re.compile(r"-?\d+\.\d{3}\b")


# --- identify -----------------------------------------------------------------------------------------
def test_identify_covers_every_game_with_every_seed_and_states_its_chance_level():
    games = [game.game for game in all_games()]
    choice = [task.id for task in select("identify-choice/*")]
    assert choice == [f"identify-choice/{g}/{s}" for g in sorted(games) for s in CHOICE_SEEDS]
    originals = sorted(game.game for game in all_games() if game.source == "original")
    assert [task.id for task in select("identify/*")] == [f"identify/{g}/{s}" for g in originals for s in FREE_SEEDS]
    assert len(CHOICE_SEEDS) >= 2 and not set(CHOICE_SEEDS) & set(FREE_SEEDS)
    assert len(candidates()) == len(games) == 25  # chance level of the choice variant: 1/25
    assert {task.family for task in select("identify,identify-choice")} == {"identify", "identify-choice"}


def test_the_table_of_rounded_weights_is_exact():
    from wspbench.tasks.minatar_prompt import _TABLE_LIMIT, _decimal, _decimals, _rounded

    steps = range(-_TABLE_LIMIT, _TABLE_LIMIT + 1)
    assert _decimals().tolist() == [_decimal(step) for step in steps]
    assert _rounded([[-20.0006, 25.5, -0.0004, 0.0005, 1e6]]) == ["[-20.001, 25.500, 0.000, 0.000, 1000000.000]"]


@pytest.mark.parametrize("task_id", ["identify/breakout/4", "identify-choice/snake_trail/1"])
def test_the_identify_prompt_lists_every_weight_rounded_and_names_no_game(task_id):
    task = get_task(task_id)
    system, user = (message["content"] for message in task.messages())
    listing = user.split("THE WEIGHTS", 1)[1].split("THE ANSWER", 1)[0]
    numbers = [float(n) for n in NUMBER.findall(listing)]
    assert len(numbers) == sum(int(np.prod(shape)) for shape in MINATAR_NETWORK.shapes.values()) == 20_486
    weights, _ = task.shown
    flat = np.concatenate([weights[name].ravel() for name in MINATAR_NETWORK.shapes])
    assert np.allclose(numbers, np.round(flat.astype(np.float64), 3), atol=1e-9)
    named = {game.game for game in candidates()} | {game.game.replace("_", " ") for game in candidates()}
    if task.choice:
        assert all(f"  {game.game}: {summary(game)}" in user for game in candidates())
        assert (
            summary(candidates()[9])
            == "Carry passengers across a river, timing each dash through the debris lanes between sandbars."
        )
    else:
        assert not [name for name in named if re.search(rf"\b{name}\b", user, re.IGNORECASE)]
    assert "six" in user and "i = (row*10 + col)*6 + channel" in user and "```game" in user
    assert task.game_source() == "" and task.protocols == ("one-shot", "agent")
    with pytest.raises(ValueError, match="no feedback protocol"):
        task.messages(make("feedback", rounds=2, episodes=10, train_episodes=10))


@pytest.mark.parametrize("task_id", ["identify-choice/snake_trail/1", "repair/breakout/swap_actions"])
def test_the_agent_prompt_gives_the_weights_as_exact_files_instead_of_a_listing(task_id):
    task = get_task(task_id)
    protocol = make("agent", rounds=20, train_episodes=10, passes=3)
    one_shot, user = task.messages()[1]["content"], task.messages(protocol)[1]["content"]
    assert len(NUMBER.findall(user)) < 300 < 20_486 < len(NUMBER.findall(one_shot))  # no listing of weights
    assert "W1.npy (600, 32)" in user and "THE AGENT PROTOCOL" in user and len(user) < len(one_shot) / 10
    files = agent.files(task, protocol)
    assert files["task.md"] == user.encode()
    for name, tensor in task.shown_network().items():
        stored = np.load(io.BytesIO(files[f"{name}.npy"]), allow_pickle=False)
        assert stored.dtype == np.float32 and np.array_equal(stored, tensor)  # exact, not rounded
    assert ("game.py" in files) == (task.family == "repair")


def test_identify_grades_the_named_game():
    task = get_task("identify/space_invaders/5")
    assert task.grade(task.offline_answer("reference")).normalized == 1.0
    assert task.grade(task.offline_answer("zero")).normalized == 0.0  # "asterix", the first candidate
    for spelling in ("Space Invaders", "`space-invaders`", "minatar/space_invaders.", "SPACE_INVADERS"):
        score = task.grade(f"I think it shoots aliens.\n```game\n{spelling}\n```\n")
        assert score.normalized == 1.0 and score.episodes == (0,) and score.values == (1.0,), spelling
    assert task.grade("```game\nbreakout\n```\n```game\nspace invaders\n```").normalized == 1.0  # the last counts
    pong = task.grade("```game\n**Pong**\n```")  # a name, but not of any game: wrong, not rejected
    assert pong.normalized == 0.0 and pong.error is None
    assert pong.metadata == {"answer": "pong", "note": "'pong' is not one of the 25 game names: a wrong answer"}
    assert "'***' is not one of" in task.grade("```game\n***\n```").metadata["note"]
    assert "no ```game block" in task.grade("space_invaders").error
    assert "one line" in task.grade("```game\nbreakout\nfreeway\n```").error
    assert "one line" in task.grade("```game\n```").error
    assert task.grade("İ" * 50 + "```GAME  \nspace invaders\n```").normalized == 1.0  # "İ".lower() is 2 characters
    assert "no ```game block" in task.grade("```gamespace_invaders```").error
    started = time.perf_counter()  # many unclosed openers: linear, not quadratic
    assert task.grade("```game\n" * 120_000).error is not None
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize(
    "written",
    [
        "**breakout**",
        "Breakout!",
        "MinAtar Breakout",
        "\uff22\uff52\uff45\uff41\uff4b\uff4f\uff55\uff54",  # full-width letters
        "break\u200bout",  # a zero-width space
        "\ufeffbreakout\u200d",
        "*The game:* `Breakout`.",
        "original/breakout",
        "MinAtar-Breakout game",
        "_Breakout_",
    ],
)
def test_identify_reads_a_plausibly_written_name(written):
    task = get_task("identify/breakout/4")
    score = task.grade(f"It bounces a ball.\n```game\n{written}\n```\n")
    assert score.normalized == 1.0 and score.metadata == {"answer": "breakout"}, written
    spaced = get_task("identify-choice/space_invaders/3").grade("```game\n**SpaceInvaders**\n```")
    assert spaced.normalized == 1.0


def test_zero_scores_the_chance_level_on_the_choice_variant():
    tasks = select("identify-choice/*")
    right = sum(task.grade(task.offline_answer("zero")).normalized for task in tasks)
    assert right / len(tasks) == 1 / len(candidates())
    assert all(task.grade(task.offline_answer("reference")).normalized == 1.0 for task in tasks)
    assert trained_answer(tasks[0]) is None  # an identify task has no network to answer with


# --- repair -------------------------------------------------------------------------------------------
def test_every_damage_and_its_inverse_edit_are_exact():
    generator = np.random.default_rng(0)
    weights = {name: generator.normal(size=shape).astype(np.float32) for name, shape in MINATAR_NETWORK.shapes.items()}
    from wspbench.answers import parse_edits

    for kind, parameter in {
        "swap_actions": [1, 4],
        "flip_units": [0, 3, 7, 9, 11, 20, 30, 31],
        "zero_channel": [2],
    }.items():
        damaged = damage(weights, kind, parameter)
        assert any(not np.array_equal(damaged[n], weights[n]) for n in weights), kind
        repaired, _ = parse_edits(inverse(weights, kind, parameter), MINATAR_NETWORK, base=damaged)
        assert all(np.array_equal(repaired[n], weights[n]) for n in weights), kind
        outside = {n: ~reach(kind, parameter)[n] for n in weights}  # the damage changes nothing outside its reach
        assert all(np.array_equal(damaged[n][outside[n]], weights[n][outside[n]]) for n in weights), kind
    assert list(DAMAGES) == list(CLASSIC) and len(ROUNDS) == REPAIR_ROUNDS


def test_a_damage_tries_seeded_parameters():
    from wspbench.baselines.reading_build import MAX_TRIES, choices

    for kind in CLASSIC:
        draws = choices(kind, 7)
        assert draws == choices(kind, 7) and 1 <= len(draws) <= MAX_TRIES and draws != choices(kind, 8)
    assert all(units == sorted(units) and len(set(units)) == 8 for units in choices("flip_units", 7))


def test_the_repair_tasks_come_from_the_shipped_damages():
    data = load_damages()
    tasks = select("repair/*")
    expected = []  # one task per network (its prompts would otherwise show one network twice), round by round
    for game in all_games():
        taken = []
        for index, seed in enumerate(repair_seeds(game.game)):
            entry = data["networks"].get(f"{game.game}.{seed}", {})
            kind = chosen_kind(game.game, clear_kinds(entry), index, taken)
            if kind:
                expected.append((f"repair/{game.game}/{kind}", seed))
                taken.append(kind)
                first = kind_order(game.game, index, taken[:-1])[0]  # measured first, kept or not
                assert kind in ROUNDS[index] and first in {**entry["damages"], **entry["skipped"]}
    assert [(t.id, t.seed) for t in tasks] == expected
    assert len(tasks) >= 20 and {"ferry.2", "treasure_dive.2"} <= set(data["skipped_networks"])
    assert {task.kind for task in tasks} == set(DAMAGES)
    for task in tasks:
        damaged, _ = task.read(task.offline_answer("zero"))
        assert all(np.array_equal(damaged[n], task.damaged[n]) for n in damaged)
        repaired, about = task.read(task.offline_answer("reference"))
        assert all(np.array_equal(repaired[n], task.trained[n]) for n in repaired), task.id
        assert about["changed_weights"] > 0
        gains = np.cumsum(np.subtract(task.returns("trained", range(200)), task.returns("damaged", range(200))))
        assert np.all(gains[MIN_EPISODES - 1 :] > 0), task.id  # every score has a positive denominator


def test_the_behaviour_states_are_the_trained_network_played_one_step_at_a_time():
    """`behaviour` plays the episodes side by side; the states are those of the reference rule, one episode at a
    time (`sample_action` on each observation)."""
    from wspbench.networks import sample_action

    task = get_task("repair/breakout/swap_actions")
    episodes = tuple(task.scoring_episodes()[:BEHAVIOUR_EPISODES])
    seen = []
    for episode in episodes:
        environment, action_random = task.binding.start_episode(episode)
        for _ in range(BEHAVIOUR_STEPS):
            seen.append(task.binding.observation(environment.state()))
            if environment.act(sample_action(MINATAR_NETWORK.forward_one(task.trained, seen[-1]), action_random))[1]:
                break
    assert np.array_equal(task.behaviour(episodes)[0], np.array(seen, dtype=np.float64))


@pytest.mark.parametrize("task_id", ["repair/breakout/swap_actions", "repair/space_invaders/zero_channel"])
def test_stored_returns_are_what_the_grader_plays_and_the_reference_scores_1(task_id):
    task = get_task(task_id)
    episodes = task.scoring_episodes(MIN_EPISODES)
    assert episodes == list(range(MIN_EPISODES)) and task.scoring_episodes(1) == episodes
    trained = task.playing.score(task.trained, episodes, ONE_WORKER)
    damaged = task.playing.score(task.damaged, episodes, ONE_WORKER)
    assert list(trained.values) == task.returns("trained", episodes)
    assert list(damaged.values) == task.returns("damaged", episodes)
    reference = task.grade(task.offline_answer("reference"), episodes, ONE_WORKER)
    assert reference.normalized == 1.0 and reference.metadata["mean_return"] == trained.raw
    assert reference.interval() == (1.0, 1.0) and aggregate_interval([reference.sample()] * 3) == (1.0, 1.0)
    assert Score.from_json(json.loads(json.dumps(reference.to_json()))) == reference  # with its episode caps
    assert list(reference.episode_caps) == list(np.subtract(trained.values, damaged.values))
    assert reference.score_cap == pytest.approx(trained.raw - damaged.raw)
    assert reference.metadata["restored"] == 1.0
    zero = task.grade(task.offline_answer("zero"), episodes, ONE_WORKER)
    assert zero.normalized == 0.0 and zero.metadata["restored"] == 0.0
    # the offline model "trained" answers with another network (the baseline's): a replacement, not a repair
    baseline, _ = trained_network(task.playing)
    assert task.write(baseline) == trained_answer(task).split("\n", 1)[1]
    assert "outside the damage's reach" in task.check(trained_answer(task))[2]


def test_wiping_the_network_and_writing_a_program_is_not_a_repair():
    """The reference program of a game out-plays its weak trained network; written over a wiped damaged network it
    once scored 1.0 on every repair task. It changes far more than STRAY_LIMIT weights outside the damage's reach."""
    wipe = "\n".join(f"{name}[:] = 0" for name in MINATAR_NETWORK.shapes)
    for task in select("repair/*"):
        program = task.playing.offline_answer("reference").rsplit("```edits\n", 1)[1]
        error = task.check(f"```edits\n{wipe}\n{program}")[2]
        assert error and "outside the damage's reach" in error, task.id
    task = get_task("repair/crossfire/zero_channel")
    score = task.grade(f"```edits\n{wipe}\n{program}", task.scoring_episodes(MIN_EPISODES), ONE_WORKER)
    assert score.normalized == 0.0 and "at most 64" in score.error


def test_a_repair_counts_only_the_behaviour_it_restores():
    """A one-weight change that plays a constant action (within STRAY_LIMIT) is far from the trained behaviour."""
    task = get_task("repair/crossfire/zero_channel")
    episodes = task.scoring_episodes(MIN_EPISODES)
    for action in range(6):
        score = task.grade(f"```edits\nb3[{action}] += 20\n```", episodes, ONE_WORKER)
        assert score.metadata["stray_weights"] == 1 and score.metadata["restored"] < 0.05
        assert score.normalized < 0.05
    states = task.behaviour(tuple(episodes[:BEHAVIOUR_EPISODES]))[0]
    assert 0 < len(states) <= BEHAVIOUR_EPISODES * BEHAVIOUR_STEPS
    assert task.restored(task.trained, episodes) == 1.0 and task.restored(task.damaged, episodes) == 0.0


def test_a_repair_edit_acts_on_the_damaged_network():
    task = get_task("repair/breakout/swap_actions")
    weights, about = task.read("```edits\nb3[4] += 0.5\n```")
    assert weights["b3"][4] == task.damaged["b3"][4] + np.float32(0.5) and about["edit_count"] == 1
    assert np.array_equal(weights["W3"], task.damaged["W3"])  # untouched tensors keep their damaged values
    record = task.answer_record(weights)
    assert record["format"] == "changed" and [row[0] for row in record["changed"]["b3"]] == [4]
    prompt = task.messages()[1]["content"]
    assert "ON TOP of the damaged network" in prompt and "THE DAMAGED NETWORK" in prompt
    flat = " ".join(prompt.split())
    assert task.game_source() in prompt and all(
        damage.does in flat and damage.reach in flat for damage in DAMAGES.values()
    )
    assert "HOW THE NETWORK WAS TRAINED" in prompt and "*= -1" in prompt


def test_repair_feedback_compares_with_both_networks_on_the_training_episodes():
    task = get_task("repair/breakout/swap_actions")
    train = task.grade(task.offline_answer("zero"), task.training_episodes(5), ONE_WORKER)
    assert len(train.episodes) == MIN_EPISODES and train.episodes[0] == 100_000
    assert train.normalized == 0.0 and "damaged network's mean return" in task.feedback(train)


def test_docs_show_two_prompts_as_the_registry_renders_them():
    """docs/reading.md holds one identify and one repair prompt in full (benchmarks/reading.py --write-doc)."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "reading.md").read_text()
    for task_id in ("identify/breakout/4", "repair/breakout/swap_actions"):
        system, user = (message["content"] for message in get_task(task_id).messages())
        assert f"`````text\n{system}\n`````" in doc and f"`````text\n{user}`````" in doc, task_id


# --- through the command line -------------------------------------------------------------------------
def test_wsp_run_reference_reads_and_repairs_offline(tmp_path):
    result = RUNNER.invoke(
        app,
        ["run", "--model", "reference", "--tasks", "identify/*,repair/breakout/*", "--out", str(tmp_path / "r")],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(path.read_text()) for path in (tmp_path / "r" / "tasks").glob("*.json")]
    assert {row["task"] for row in rows} == {t.id for t in select("identify/*,repair/breakout/*")}
    assert all(row["test"]["normalized"] == 1.0 for row in rows)
    assert (
        "| repair: swap_actions | reading | 1 | 1.0000 | 1.0000 to 1.0000 |"
        in (tmp_path / "r" / "summary.md").read_text()
    )
    assert re.search(r"^\s+swap_actions +1\.0000 \(1\.0000 to 1\.0000\), 1 task", result.output, re.MULTILINE)


def test_wsp_run_skips_what_does_not_fit(tmp_path):
    result = RUNNER.invoke(
        app,
        [
            "run",
            "--model",
            "zero",
            "--tasks",
            "identify/breakout/4,original/breakout",
            "--max-prompt-tokens",
            "20000",
            "--episodes",
            "2",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "skipped 1 task whose prompts have more than 20,000 tokens" in result.output
    feedback = RUNNER.invoke(app, ["run", "--model", "zero", "--tasks", "identify/*", "--protocol", "feedback"])
    assert feedback.exit_code == 2 and "no feedback protocol" in feedback.output


def test_no_reading_network_keeps_a_row_of_its_initial_values():
    """issue 24.2: PPO leaves the row of an input that is never on as `initial` drew it from the public seed; every
    shipped reading network was refilled (benchmarks/refill.py), so none of its W1 rows is its initial one."""
    from wspbench.baselines.ppo import initial

    for path in sorted((Path(__file__).parents[2] / "src" / "wspbench" / "tasks" / READING).glob("*.npz")):
        seed = int(path.name.split(".")[1])
        start = initial(MINATAR_NETWORK.sizes, 0.01, np.random.default_rng(seed))[0]
        with np.load(path) as arrays:
            assert not (arrays["W1"] == start).all(axis=1).any(), path.name
        assert "refill" in json.loads(path.with_suffix(".json").read_text()), path.name


def test_refilling_unused_rows_changes_no_return(monkeypatch):
    """The refill identity: rows of inputs that are never on in the episodes played contribute exactly 0, so
    the refilled network plays those episodes exactly as before, while every refilled value is new."""
    import importlib

    refill = importlib.import_module("wspbench.baselines.reading_build")
    task = get_task("original/breakout")
    generator = np.random.default_rng(7)
    weights = {name: generator.normal(0, 0.3, shape).astype(np.float32) for name, shape in task.network.shapes.items()}
    episodes = task.scoring_episodes(4) + task.training_episodes(2)
    used = refill.used_inputs(task.binding, [weights], episodes)
    assert 0 < used.sum() < 600
    new = refill.refilled(weights, ~used, np.random.default_rng(1))
    assert np.array_equal(new["W1"][used], weights["W1"][used])
    for column in range(32):  # drawn from the used rows' values in the column, never a copy of one
        assert not np.isin(new["W1"][~used, column], weights["W1"][used, column]).any()
    assert list(task.score(new, episodes, ONE_WORKER).values) == list(task.score(weights, episodes, ONE_WORKER).values)


# --- one network per task, opaque exports, private sets (issue 24) --------------------------------------
def test_no_two_reading_tasks_or_a_baseline_share_a_network():
    """Each reading task shows its own network (its own training seed): no W2 (which no damage touches) and no
    W1 of an identify network appears twice among the reading tasks' networks and the `trained` baselines."""
    shown = {task.id: task.shown[0] for task in select("identify,identify-choice")}
    shown |= {task.id: task.damaged for task in select("repair/*")}
    baselines = {task.id: trained_network(task)[0] for task in select("original/*,synth/*")}
    for tensor in ("W2", "W1"):
        seen: dict[bytes, str] = {}
        for task_id, weights in (shown | baselines).items():
            if tensor == "W1" and task_id.startswith("repair/"):
                continue  # a zeroed channel leaves W1 damaged: W2 speaks for the repair networks
            key = weights[tensor].tobytes()
            assert key not in seen, f"{task_id} and {seen.get(key)} share {tensor}"
            seen[key] = task_id
    assert len(shown) == len(select("identify,identify-choice,repair"))


def test_exports_name_a_reading_task_by_an_opaque_id_that_the_registry_resolves():
    for task in select("identify,identify-choice,repair"):
        public = task.public()
        assert public.id != task.id and re.fullmatch(r"(identify|identify-choice|repair)/[0-9a-f]{12}", public.id)
        assert get_task(public.id) is task
        assert public.game == ("" if isinstance(task, IdentifyTask) else task.binding.game)
        assert task.binding.game not in public.description if isinstance(task, IdentifyTask) else True
        assert not any(kind in public.description or said.does in public.description for kind, said in DAMAGES.items())
    assert get_task("original/breakout").public().id == "original/breakout"


def _answers_in(text: str, task) -> list[str]:
    """The game names (identify) or damage names and texts (repair) that `text` holds."""
    if isinstance(task, IdentifyTask):
        names = {game.game for game in candidates()} | {game.game.replace("_", " ") for game in candidates()}
        return [name for name in names if re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE)]
    return [word for kind, said in DAMAGES.items() for word in (kind, said.does) if word in " ".join(text.split())]


def test_no_export_a_model_sees_names_a_reading_tasks_answer(tmp_path):
    """issue 24.5: Harbor's task name, folder, task.toml and instruction, and the JSONL input columns, of every
    reading task: no game name (identify) and no damage (repair), except in the prompt's own lists of candidates
    and damages, which every task of the variant shows alike."""
    from wspbench.export.harbor import Resources, exported, task_toml
    from wspbench.export.jsonl import row
    from wspbench.tasks import suite

    facts = suite().to_json()
    items = exported(select("identify,identify-choice,repair"), 1)
    lists = {}
    for item in items:
        task = item.task
        toml = task_toml(item, 300, 1800, Resources(), "0", 0.1, facts)
        fields = row(item, facts)
        prompt = fields.pop("prompt")
        shown = [item.harbor_name, item.public.slug, toml, json.dumps(fields)]
        assert not _answers_in("\n".join(shown), task), (task.id, _answers_in("\n".join(shown), task))
        assert task.id not in "\n".join(shown)
        weights = prompt.split("THE WEIGHTS", 1)[0].split("THE DAMAGED NETWORK", 1)[0]
        variant = task.id.split("/")[0]
        if isinstance(task, IdentifyTask):
            lists.setdefault(variant, set()).add(weights)  # one text for every task of the variant
        else:
            flat = " ".join(prompt.split())
            assert all(flat.count(said.does) == 1 for said in DAMAGES.values()), task.id  # the list, once each
    assert {variant: len(texts) for variant, texts in lists.items()} == {"identify": 1, "identify-choice": 1}


TINY_SET = ["reading", "build", "--key", "k", "--out", "OUT", "--games", "breakout", "--steps", "4096"]


@pytest.fixture(scope="module")
def tiny_set(tmp_path_factory):
    """A private set of breakout's networks at 4,096 PPO steps, built once (about 15 s)."""
    out = tmp_path_factory.mktemp("private") / "set"
    built = RUNNER.invoke(app, [*TINY_SET[:5], str(out), *TINY_SET[6:], "--workers", "1"])
    assert built.exit_code == 0, built.output
    assert "2 tasks" in built.output
    return out


def test_a_private_set_is_built_from_a_key_and_graded(tiny_set, tmp_path, monkeypatch):
    """issue 24.6: `wsp reading build` with a tiny budget; the set loads through WSP_PRIVATE_SETS into `wsp run`,
    with opaque ids, and the reference scores 1 and zero 0 on it. Same key, same set."""
    out, args = tiny_set, TINY_SET
    assert (out / "set.json").is_file()
    assert "k" not in json.loads((out / "set.json").read_text()).values()
    monkeypatch.setenv("WSP_PRIVATE_SETS", str(out))
    from wspbench.tasks import registry

    monkeypatch.setattr(registry, "_tasks", None)
    private = [task for task in registry.all_tasks() if task.id.startswith("private.")]
    assert sorted(task.id.split("/")[0] for task in private) == ["private.identify", "private.identify-choice"]
    assert all(re.fullmatch(r"private\.[a-z-]+/[0-9a-f]{12}", task.id) for task in private)
    assert registry.suite().tasks == len(registry._load().builtin)  # outside the suite
    for model, expected in (("reference", 1.0), ("zero", 0.0)):
        run = RUNNER.invoke(app, ["run", "--model", model, "--tasks", "private.*", "--out", str(tmp_path / model)])
        assert run.exit_code == 0, run.output
        rows = [json.loads(path.read_text()) for path in (tmp_path / model / "tasks").glob("*.json")]
        assert len(rows) == 2 and all(row["test"]["normalized"] == expected for row in rows), model
    again = RUNNER.invoke(app, [*args[:5], str(tmp_path / "again"), *args[6:]])
    assert again.exit_code == 0, again.output
    for path in sorted(out.glob("*.npz")):
        with np.load(path) as one, np.load(tmp_path / "again" / path.name) as two:
            assert all(np.array_equal(one[name], two[name]) for name in one.files), path.name
    refused = RUNNER.invoke(app, [*args[:5], str(out), *args[6:]])
    assert refused.exit_code == 2 and "not an empty folder" in refused.output
    monkeypatch.setenv("WSP_PRIVATE_SETS", str(tmp_path / "nowhere"))  # not a set: a usage error naming it
    monkeypatch.setattr(registry, "_tasks", None)
    missing = RUNNER.invoke(app, ["run", "--model", "zero", "--tasks", "private.*"])
    assert missing.exit_code == 2 and "nowhere is not a private reading set" in " ".join(missing.output.split())
    monkeypatch.setattr(registry, "_tasks", None)


def test_a_private_repair_task_grades_like_a_public_one(tmp_path, monkeypatch):
    """A private set's repair task, here made from the public breakout repair network under the private seed's
    name: the reference repair scores 1 and the empty edit 0, under an id that names neither game nor damage."""
    from wspbench.tasks import registry
    from wspbench.tasks.reading_set import SET_FORMAT, ReadingSet

    out = tmp_path / "set"
    out.mkdir()
    tag = "0123456789abcdef"
    seed = ReadingSet(out, "mine", (0, 0), tag, frozenset({"breakout"})).seeds("repair", "breakout")[0]
    public = Path(__file__).parents[2] / "src" / "wspbench" / "tasks" / READING
    for suffix in (".npz", ".json"):
        shutil.copyfile(public / f"breakout.2{suffix}", out / f"breakout.{seed}{suffix}")
    damages = load_damages()
    networks = {f"breakout.{seed}": damages["networks"]["breakout.2"]}
    (out / "damages.json").write_text(json.dumps({**damages, "networks": networks}))
    facts = {"format": SET_FORMAT, "name": "mine", "tag": tag, "identify": 0, "identify_choice": 0}
    (out / "set.json").write_text(json.dumps({**facts, "games": ["breakout"]}))
    monkeypatch.setenv("WSP_PRIVATE_SETS", str(out))
    monkeypatch.setattr(registry, "_tasks", None)
    (task,) = select("mine.repair")
    assert re.fullmatch(r"mine\.repair/[0-9a-f]{12}", task.id) and task.public().id == task.id
    assert task.grade(task.offline_answer("reference"), range(50)).normalized == 1.0
    assert task.grade(task.offline_answer("zero"), range(50)).normalized == 0.0
    monkeypatch.setattr(registry, "_tasks", None)


def test_a_private_sets_task_is_exported_with_its_set_for_the_grader(tiny_set, tmp_path, monkeypatch):
    """Harbor: the verifier's image (tests/) carries the private set and test.sh names it; the agent's image
    (environment/) and what it sees name no game. The exported verifier grades the reference 1."""
    import subprocess
    import sys

    from tests.export.test_harbor import rewards, stand_in_wheel
    from wspbench.export.harbor import export_harbor, exported
    from wspbench.tasks import registry

    out = tmp_path / "set"
    shutil.copytree(tiny_set, out)
    monkeypatch.setenv("WSP_PRIVATE_SETS", str(out))
    monkeypatch.setattr(registry, "_tasks", None)
    (task,) = select("private.identify-choice")
    (folder,) = export_harbor(tmp_path / "harbor", exported([task], 1), wheel=stand_in_wheel(tmp_path))
    assert folder.name == task.id.replace("/", "-") and "breakout" not in (folder / "task.toml").read_text()
    assert (folder / "tests" / "sets" / "set" / "set.json").is_file()
    assert "COPY sets /opt/wspbench/sets" in (folder / "tests" / "Dockerfile").read_text()
    assert not (folder / "environment" / "sets").exists()
    test_sh = (folder / "tests" / "test.sh").read_text()
    assert 'WSP_PRIVATE_SETS="${WSP_PRIVATE_SETS:-/opt/wspbench/sets/set}"' in test_sh
    answer = tmp_path / "answer.md"
    answer.write_text(task.offline_answer("reference"))
    shutil.move(str(out), tmp_path / "elsewhere")  # the grader reads the exported copy, not the original
    logs = tmp_path / "logs"
    env = {**os.environ, "WSP_PRIVATE_SETS": str(folder / "tests" / "sets" / "set")}
    done = subprocess.run(
        [sys.executable, "-m", "wspbench.verifier", task.id, str(answer), str(logs)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert rewards(logs)[0]["reward"] == 1.0
    monkeypatch.setattr(registry, "_tasks", None)


def test_wsp_reading_build_says_why_a_game_gave_no_repair_task():
    from wspbench.baselines.reading_build import no_repair_because

    unlearned = {"skipped": "its trained network's mean return on training episodes is 0, the best of ... 0"}
    assert no_repair_because(unlearned) == unlearned["skipped"]
    unclear = {"trained": [1.0], "damages": {"flip_units": {"damaged": [0.9]}}, "skipped": {"zero_channel": "none"}}
    why = no_repair_because(unclear)
    assert why.startswith("zero_channel: none; flip_units: the damaged network keeps more than") and "standard" in why
