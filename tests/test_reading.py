"""The reading and repair families (`wspbench/tasks/identify.py`, `wspbench/tasks/repair.py`): their tasks, prompts,
grading, shipped damage data and their place in `wsp run`."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.games.minatar import all_games
from wspbench.networks import MINATAR_NETWORK
from wspbench.statistics import aggregate_interval
from wspbench.tasks import get_task, select
from wspbench.tasks.identify import SEEDS, candidates, summary
from wspbench.tasks.ppo import READING, trained_answer, trained_network
from wspbench.tasks.repair import (
    BEHAVIOUR_EPISODES,
    BEHAVIOUR_STEPS,
    DAMAGES,
    MIN_EPISODES,
    chosen_kind,
    clear_kinds,
    damage,
    inverse,
    load_damages,
    reach,
)
from wspbench.tasks.spec import Protocol, Score

RUNNER = CliRunner()
NUMBER = re.compile(r"-?\d+\.\d{3}\b")


# --- identify -----------------------------------------------------------------------------------------
def test_identify_covers_every_game_with_every_seed_and_states_its_chance_level():
    games = [game.game for game in all_games()]
    choice = [task.id for task in select("identify-choice/*")]
    assert choice == [f"identify-choice/{g}/{s}" for g in sorted(games) for s in SEEDS] and len(SEEDS) >= 2
    originals = sorted(game.game for game in all_games() if game.source == "original")
    assert [task.id for task in select("identify/*")] == [f"identify/{g}/{s}" for g in originals for s in SEEDS]
    assert len(candidates()) == len(games) == 25  # chance level of the choice variant: 1/25
    assert select("identify") == select("identify/*") + select("identify-choice/*")  # the family: both variants


@pytest.mark.parametrize("task_id", ["identify/breakout/0", "identify-choice/snake_trail/1"])
def test_the_identify_prompt_lists_every_weight_rounded_and_names_no_game(task_id):
    task = get_task(task_id)
    system, user = (message["content"] for message in task.messages())
    listing = user.split("THE WEIGHTS", 1)[1].split("THE ANSWER", 1)[0]
    numbers = [float(n) for n in NUMBER.findall(listing)]
    assert len(numbers) == sum(int(np.prod(shape)) for shape in MINATAR_NETWORK.shapes.values()) == 20_486
    weights, _ = trained_network(task, task.seed, READING)
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
    assert task.game_source() == "" and task.protocols == ("one-shot",)
    with pytest.raises(ValueError, match="one-shot only"):
        task.messages(Protocol("feedback", 2, 10, 10))


def test_identify_grades_the_named_game():
    task = get_task("identify/space_invaders/1")
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
    task = get_task("identify/breakout/0")
    score = task.grade(f"It bounces a ball.\n```game\n{written}\n```\n")
    assert score.normalized == 1.0 and score.metadata == {"answer": "breakout"}, written
    spaced = get_task("identify-choice/space_invaders/0").grade("```game\n**SpaceInvaders**\n```")
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
    assert set(DAMAGES) == {"swap_actions", "flip_units", "zero_channel"}


def test_the_repair_tasks_come_from_the_shipped_damages():
    data = load_damages()
    tasks = select("repair/*")
    clear = {game: clear_kinds(entry) for game, entry in data["games"].items() if clear_kinds(entry)}
    assert [t.id for t in tasks] == [  # one task per game (its prompts would otherwise share one network)
        f"repair/{game.game}/{chosen_kind(game.game, clear[game.game])}" for game in all_games() if game.game in clear
    ]
    assert len(tasks) >= 20 and {"ferry", "treasure_dive"} <= set(data["skipped_games"])
    assert len({task.kind for task in tasks}) == len(DAMAGES)
    for task in tasks:
        damaged, _ = task.read(task.offline_answer("zero"))
        assert all(np.array_equal(damaged[n], task.damaged[n]) for n in damaged)
        repaired, about = task.read(task.offline_answer("reference"))
        assert all(np.array_equal(repaired[n], task.trained[n]) for n in repaired), task.id
        assert about["changed_weights"] > 0
        gains = np.cumsum(np.subtract(task.returns("trained", range(200)), task.returns("damaged", range(200))))
        assert np.all(gains[MIN_EPISODES - 1 :] > 0), task.id  # every score has a positive denominator


@pytest.mark.parametrize("task_id", ["repair/breakout/swap_actions", "repair/space_invaders/zero_channel"])
def test_stored_returns_are_what_the_grader_plays_and_the_reference_scores_1(task_id):
    task = get_task(task_id)
    episodes = task.scoring_episodes(MIN_EPISODES)
    assert episodes == list(range(MIN_EPISODES)) and task.scoring_episodes(1) == episodes
    trained = task.playing.score(task.trained, episodes, workers=1)
    damaged = task.playing.score(task.damaged, episodes, workers=1)
    assert list(trained.values) == task.returns("trained", episodes)
    assert list(damaged.values) == task.returns("damaged", episodes)
    reference = task.grade(task.offline_answer("reference"), episodes, workers=1)
    assert reference.normalized == 1.0 and reference.metadata["mean_return"] == trained.raw
    assert reference.interval() == (1.0, 1.0) and aggregate_interval([reference.sample()] * 3) == (1.0, 1.0)
    assert Score.from_json(json.loads(json.dumps(reference.to_json()))) == reference  # with its episode caps
    assert list(reference.episode_caps) == list(np.subtract(trained.values, damaged.values))
    assert reference.score_cap == pytest.approx(trained.raw - damaged.raw)
    assert reference.metadata["restored"] == 1.0
    zero = task.grade(task.offline_answer("zero"), episodes, workers=1)
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
    score = task.grade(f"```edits\n{wipe}\n{program}", task.scoring_episodes(MIN_EPISODES), workers=1)
    assert score.normalized == 0.0 and "at most 64" in score.error


def test_a_repair_counts_only_the_behaviour_it_restores():
    """A one-weight change that plays a constant action (within STRAY_LIMIT) is far from the trained behaviour."""
    task = get_task("repair/crossfire/zero_channel")
    episodes = task.scoring_episodes(MIN_EPISODES)
    for action in range(6):
        score = task.grade(f"```edits\nb3[{action}] += 20\n```", episodes, workers=1)
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
    assert task.game_source() in prompt and all(text in prompt for text in DAMAGES.values())


def test_repair_feedback_compares_with_both_networks_on_the_training_episodes():
    task = get_task("repair/breakout/swap_actions")
    train = task.grade(task.offline_answer("zero"), task.training_episodes(5), workers=1)
    assert len(train.episodes) == MIN_EPISODES and train.episodes[0] == 100_000
    assert train.normalized == 0.0 and "damaged network's mean return" in task.feedback(train)


def test_docs_show_two_prompts_as_the_registry_renders_them():
    """docs/reading.md holds one identify and one repair prompt in full (benchmarks/reading.py --write-doc)."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "reading.md").read_text()
    for task_id in ("identify/breakout/0", "repair/breakout/swap_actions"):
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


def test_wsp_run_skips_what_does_not_fit(tmp_path):
    result = RUNNER.invoke(
        app,
        [
            "run",
            "--model",
            "zero",
            "--tasks",
            "identify/breakout/0,original/breakout",
            "--max-prompt-tokens",
            "20000",
            "--episodes",
            "2",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "skipped 1 tasks whose prompts have more than 20,000 tokens" in result.output
    feedback = RUNNER.invoke(app, ["run", "--model", "zero", "--tasks", "identify/*", "--protocol", "feedback"])
    assert feedback.exit_code == 2 and "no feedback protocol" in feedback.output


def test_no_reading_network_keeps_a_row_of_its_initial_values():
    """issue 24.2: PPO leaves the row of an input that is never on as `initial` drew it from the public seed; every
    shipped reading network was refilled (benchmarks/refill.py), so none of its W1 rows is its initial one."""
    from wspbench.tasks.ppo import initial

    for path in sorted((Path(__file__).parents[1] / "src" / "wspbench" / "tasks" / READING).glob("*.npz")):
        seed = int(path.name.split(".")[1])
        start = initial(MINATAR_NETWORK.sizes, 0.01, np.random.default_rng(seed))[0]
        with np.load(path) as arrays:
            assert not (arrays["W1"] == start).all(axis=1).any(), path.name
        assert "refill" in json.loads(path.with_suffix(".json").read_text()), path.name


def test_refilling_unused_rows_changes_no_return(monkeypatch):
    """The refill identity: rows of inputs that are never on in the episodes played contribute exactly 0, so
    the refilled network plays those episodes exactly as before, while every refilled value is new."""
    import importlib

    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "benchmarks"))
    refill = importlib.import_module("refill")
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
    assert list(task.score(new, episodes, workers=1).values) == list(task.score(weights, episodes, workers=1).values)
