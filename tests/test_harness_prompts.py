"""Rendered prompts: every required section in order, the game's exact source, the flattening formula
and the edits grammar; a snapshot that only changes with the template version; task selectors."""

from __future__ import annotations

import hashlib
import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest

from wspbench.harness import prompts, superbeam_family
from wspbench.harness.families import TaskSelectionError, select_task_ids
from wspbench.harness.minatar_family import MinAtarHarnessTask
from wspbench.harness.prompts import (MINATAR_PROMPT_VERSION, MINATAR_SYSTEM, SECTION_TITLES, GameFacts,
                                      ProtocolFacts, render_minatar)

# sha256 of the template rendered for a fixed fake game (below), one-shot then feedback. A change of the
# template text must come with a new MINATAR_PROMPT_VERSION and a new line here.
SNAPSHOTS = {
    "minatar-v1": "9381ce2f19b671730f8d522b9bae520ebe166c1b04889462a961f1ece079a933",
}
FAKE_GAME = GameFacts("synth/fake", "fake", "A fake game.", "minatar_synth/games/fake.py", "SOURCE = 1\n",
                      "CHANNEL NOTES", "ACTION NOTES", 50.0, 1000)


def synth_game() -> str:
    """The first synthetic game that loads (others may be mid-edit in a shared tree)."""
    for task_id in select_task_ids("synth/*"):
        try:
            user_prompt(task_id)
        except Exception:
            continue
        return task_id
    pytest.skip("no synthetic game loads")


def user_prompt(task_id: str, protocol: str = "one-shot") -> str:
    messages = MinAtarHarnessTask.from_id(task_id, 1000, 100).messages(protocol, 4)
    assert messages[0] == {"role": "system", "content": MINATAR_SYSTEM}
    return messages[1]["content"]


def assert_sections_in_order(text: str) -> None:
    positions = [text.index(f"\n{title}\n") if i else text.index(f"{title}\n") for i, title in enumerate(SECTION_TITLES)]
    assert positions == sorted(positions) and positions[0] == 0


@pytest.mark.parametrize("task_id", ["original/breakout", "original/seaquest", "synth"])
def test_minatar_prompt_has_every_section_in_order_and_the_exact_source(task_id):
    task_id = synth_game() if task_id == "synth" else task_id
    text = user_prompt(task_id)
    assert_sections_in_order(text)
    source, game = task_id.split("/")
    module = importlib.import_module(f"minatar.environments.{game}" if source == "original"
                                     else f"minatar_synth.games.{game}")
    assert Path(inspect.getsourcefile(module)).read_text().rstrip() in text
    assert "i = (row*10 + col)*6 + channel" in text
    assert "T[index] = value        T[index] += value        T[index] -= value        T[index] *= value" in text
    for constraint in ("from scratch", "no training", "no code execution", "no calculator",
                       "no feedback from the environment", "ONE reply", "LAST ```edits block", "start at 0",
                       "softmax", "Sticky actions", "1729 + e", "7919 + e", "W1[i, j] is the weight from input i"):
        assert constraint in text, constraint


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
    text = render_minatar(FAKE_GAME, ProtocolFacts("one-shot", 1, 10))
    for row, col, channel in ((0, 0, 0), (3, 7, 2), (9, 4, 0), (9, 9, 5)):
        assert f"= {grid[row, col, channel]}\n" in text
    flat = grid.reshape(600)
    assert list(flat[2::6][:3]) == [grid[0, 0, 2], grid[0, 1, 2], grid[0, 2, 2]]       # W1[ch::6]
    assert list(flat[3 * 60 + 4:4 * 60:6]) == list(grid[3, :, 4])                     # channel along a row
    assert list(flat[7 * 6 + 1::60]) == list(grid[:, 7, 1])                           # channel down a column


def test_prompt_snapshot_is_stable_unless_the_version_changes():
    texts = [MINATAR_SYSTEM, render_minatar(FAKE_GAME, ProtocolFacts("one-shot", 1, 1000)),
             render_minatar(FAKE_GAME, ProtocolFacts("feedback", 4, 1000, 100))]
    digest = hashlib.sha256("\n\x00\n".join(texts).encode()).hexdigest()
    assert SNAPSHOTS.get(MINATAR_PROMPT_VERSION) == digest, (
        f"the MinAtar prompt changed: bump MINATAR_PROMPT_VERSION and record {digest} for it")


def test_superbeam_prompt_is_the_task_modules():
    if superbeam_family.unavailable_reason():
        pytest.skip(superbeam_family.unavailable_reason())
    from superbeam import task as sb

    messages = superbeam_family.SuperbeamHarnessTask().messages("one-shot", 1)
    assert messages == [{"role": "system", "content": sb.SYSTEM}, {"role": "user", "content": sb.task_prompt()}]
    text = messages[1]["content"]
    for part in ("THE GAME", "THE NETWORK", "x[7]", "Actions", "```json"):
        assert part in text


def test_selectors():
    originals = select_task_ids("original/*")
    assert originals == ["original/asterix", "original/breakout", "original/freeway", "original/seaquest",
                         "original/space_invaders"]
    assert select_task_ids("original/breakout,breakout, original/asterix") == ["original/breakout",
                                                                               "original/asterix"]
    assert select_task_ids("minatar/original/freeway") == ["original/freeway"]
    synths = select_task_ids("synth/*")
    assert synths and all(s.startswith("synth/") for s in synths)
    everything = select_task_ids("all")
    assert everything[:5] == originals and set(synths) <= set(everything)
    assert ("superbeam" in everything) == (superbeam_family.unavailable_reason() is None)
    with pytest.raises(TaskSelectionError, match="no task matches 'original/pong'"):
        select_task_ids("original/pong")


def test_sections_are_the_documented_ones():
    assert prompts.SECTION_TITLES == ("THE TASK", "THE GAME", "THE OBSERVATION", "THE ACTIONS", "THE NETWORK",
                                      "SCORING", "THE EDITS LANGUAGE")
