"""Rendered prompts: every required section in order, the game's exact source, the flattening formula,
the edits grammar and the facts the grader uses (seeds, sticky actions, caps, bounds); a snapshot that
only changes with the template version; task selectors."""

from __future__ import annotations

import hashlib
import importlib
import inspect
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from wspbench.answers import edits
from wspbench.games.minatar import ACTION_NAMES, ACTION_SEED, CHANNEL_NAMES, EPISODE_SEED, STICKY_ACTION_PROB
from wspbench.harness.record import RunConfig
from wspbench.protocols import ONE_SHOT, make
from wspbench.tasks import UnknownTask, get_task, select
from wspbench.tasks.minatar_prompt import (
    MINATAR_PROMPT_VERSION,
    MINATAR_SYSTEM,
    SECTION_TITLES,
    GameFacts,
    render_minatar,
)

# sha256 of the template rendered for a fixed fake game (below): the one-shot prompt (the task's own text, which
# the suite digest covers), then the feedback prompt, which adds the protocol's rules. A change of the one-shot text
# must come with a new MINATAR_PROMPT_VERSION and a new line here; a change of what a protocol adds, with a new
# line in PROTOCOL_SNAPSHOTS and a CHANGELOG entry (runs record the protocol's rule: RunConfig.held_out).
SNAPSHOTS = {
    "minatar-v1": "9381ce2f19b671730f8d522b9bae520ebe166c1b04889462a961f1ece079a933",  # history: both prompts
    "minatar-v2": "23f1796a92ac9d67a676d99032c6ecd3b52dca194f44457e0aa7e93784eb806c",  # history: both prompts
    "minatar-v2 one-shot": "1ddf908b0d8a67f0f8f5a7c6d6b69031908fb7e2d12468b345b7442e9ad96231",
}
PROTOCOL_SNAPSHOTS = {  # the feedback prompt, by (template version, held-out rule)
    # issues 53 and 51: drawn held-out episodes, and the statement written once by the feedback protocol
    ("minatar-v2", "secret"): "696d069e8011ec170337f9b83dcc9b2b8e4c2879f23d8b91c4c295b7968bb46c",
}
FAKE_TASK = SimpleNamespace(answer_format="edits", training_episodes=lambda count: list(range(count)))  # what a
# protocol's words ask of a task
FAKE_GAME = GameFacts(
    "synth/fake",
    "fake",
    "A fake game.",
    "minatar_synth/games/fake.py",
    "SOURCE = 1\n",
    "CHANNEL NOTES",
    "ACTION NOTES",
    50.0,
    1000,
)


def user_prompt(task_id: str, protocol: str = "one-shot") -> str:
    shape = make(protocol, rounds=4, episodes=1000, train_episodes=100)
    messages = get_task(task_id).messages(shape)
    assert messages[0] == {"role": "system", "content": MINATAR_SYSTEM}
    return messages[1]["content"]


def assert_sections_in_order(text: str) -> None:
    positions = [
        text.index(f"\n{title}\n") if i else text.index(f"{title}\n") for i, title in enumerate(SECTION_TITLES)
    ]
    assert positions == sorted(positions) and positions[0] == 0


@pytest.mark.parametrize("task_id", ["original/breakout", "original/seaquest", "synth/ferry"])
def test_minatar_prompt_has_every_section_in_order_and_the_exact_source(task_id):
    text = user_prompt(task_id)
    assert_sections_in_order(text)
    task = get_task(task_id)
    module = importlib.import_module(task.game.source_path.removesuffix(".py").replace("/", "."))
    assert Path(inspect.getsourcefile(module)).read_text().rstrip() in text
    assert task.game_source().rstrip() in text
    assert "i = (row*10 + col)*6 + channel" in text
    assert "T[index] = value        T[index] += value        T[index] -= value        T[index] *= value" in text
    for constraint in (
        "from scratch",
        "no training",
        "no code execution",
        "no calculator",
        "no feedback from the environment",
        "ONE reply",
        "LAST ```edits block",
        "start at 0",
        "softmax",
        "Sticky actions",
        "W1[i, j] is the weight from input i",
    ):
        assert constraint in text, constraint


@pytest.mark.parametrize("task_id", ["original/freeway", "synth/ferry"])
def test_the_prompt_states_the_facts_the_grader_uses(task_id):
    """Each fact comes from its one definition: a change there changes the prompt (and the snapshot)."""
    task = get_task(task_id)
    text = user_prompt(task.id)
    assert f"{EPISODE_SEED} + e" in text and f"RandomState({ACTION_SEED} + e)" in text
    assert f"with probability {STICKY_ACTION_PROB:g} on every step" in text
    assert f"sticky actions {STICKY_ACTION_PROB:g};" in text
    assert f"at most {task.game.max_steps:,} steps" in text
    assert f"min(max(raw, 0), {task.game.score_cap:g}) / {task.game.score_cap:g}" in text
    assert ", ".join(f"{i} {name}" for i, name in enumerate(ACTION_NAMES)) in text
    assert all(f"  {i} {name}\n" in text for i, name in enumerate(CHANNEL_NAMES))
    assert task.game.action_names == ACTION_NAMES and task.game.input_names == CHANNEL_NAMES
    for bound in (edits.MAX_ANSWER_CHARS, edits.MAX_TOKENS, edits.MAX_STATEMENTS):
        assert f"{bound:,}" in text
    assert " -> ".join(map(str, task.network.sizes)) in text
    assert task.prompt_version == MINATAR_PROMPT_VERSION


def test_feedback_prompt_describes_training_episodes():
    text = user_prompt("original/breakout", "feedback")
    assert_sections_in_order(text)
    assert "reply up to 4 times" in text and "100 TRAINING episodes" in text and "held-out" in text
    assert "one-shot mode" not in text


def test_original_prompt_maps_the_games_channels_and_actions():
    text = user_prompt("original/breakout")
    assert "3 projectile = ball" in text and "1 danger = (unused, always 0)" in text
    assert "0 no-op, 1 left, 3 right; the others act like no-op" in text
    assert "min(max(raw, 0), 1000) / 1000" in text and "`minatar/environments/breakout.py`" in text


def test_worked_flattening_examples_are_right():
    grid = np.arange(600).reshape(10, 10, 6)
    text = render_minatar(FAKE_GAME, ONE_SHOT, 10, FAKE_TASK)
    for row, col, channel in ((0, 0, 0), (3, 7, 2), (9, 4, 0), (9, 9, 5)):
        assert f"= {grid[row, col, channel]}\n" in text
    flat = grid.reshape(600)
    assert list(flat[2::6][:3]) == [grid[0, 0, 2], grid[0, 1, 2], grid[0, 2, 2]]  # W1[ch::6]
    assert list(flat[3 * 60 + 4 : 4 * 60 : 6]) == list(grid[3, :, 4])  # channel along a row
    assert list(flat[7 * 6 + 1 :: 60]) == list(grid[:, 7, 1])  # channel down a column


def test_prompt_snapshot_is_stable_unless_the_version_changes():
    one_shot = hashlib.sha256(
        f"{MINATAR_SYSTEM}\n\x00\n{render_minatar(FAKE_GAME, ONE_SHOT, 1000, FAKE_TASK)}".encode()
    )
    assert SNAPSHOTS.get(f"{MINATAR_PROMPT_VERSION} one-shot") == one_shot.hexdigest(), (
        f"the MinAtar prompt changed: bump MINATAR_PROMPT_VERSION and record {one_shot.hexdigest()} for it"
    )
    feedback = render_minatar(FAKE_GAME, make("feedback", rounds=4, train_episodes=100), 1000, FAKE_TASK)
    digest = hashlib.sha256(f"{MINATAR_SYSTEM}\n\x00\n{feedback}".encode()).hexdigest()
    rule = RunConfig("m", protocol=make("feedback")).held_out
    assert PROTOCOL_SNAPSHOTS.get((MINATAR_PROMPT_VERSION, rule)) == digest, (
        f"the feedback prompt changed: record {digest} in PROTOCOL_SNAPSHOTS (and say what changed in CHANGELOG.md)"
    )


def test_superbeam_prompt_names_the_game_and_the_network():
    task = get_task("superbeam")
    messages = task.messages()
    assert [m["role"] for m in messages] == ["system", "user"]
    text = messages[1]["content"]
    for part in ("THE GAME", "THE NETWORK", "x[7]", "Actions", "```json"):
        assert part in text
    assert task.answer_format == "json"


def test_selectors():
    originals = [task.id for task in select("original/*")]
    assert originals == [
        "original/asterix",
        "original/breakout",
        "original/freeway",
        "original/seaquest",
        "original/space_invaders",
    ]
    assert [t.id for t in select("original/breakout,breakout, original/asterix")] == [
        "original/breakout",
        "original/asterix",
    ]
    synths = [task.id for task in select("synth/*")]
    assert synths and all(s.startswith("synth/") for s in synths)
    everything = [task.id for task in select("all")]
    assert everything[:5] == originals and set(synths) <= set(everything) and "superbeam" in everything
    assert [t.id for t in select("superbeam")] == ["superbeam"]
    with pytest.raises(UnknownTask, match="no task matches 'original/pong'"):
        select("original/pong")
    with pytest.raises(UnknownTask, match="did you mean original/freeway"):
        select("original__freeway")


def test_sections_are_the_documented_ones():
    assert SECTION_TITLES == (
        "THE TASK",
        "THE GAME",
        "THE OBSERVATION",
        "THE ACTIONS",
        "THE NETWORK",
        "SCORING",
        "THE EDITS LANGUAGE",
    )
