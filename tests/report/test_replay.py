"""`wsp replay`: every task through the registry; the replayed episodes are the graded ones (same values
and lengths as `Task.score`), and what a frame shows follows from the screen's shape."""

from __future__ import annotations

from dataclasses import replace
from importlib import resources

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.evaluation import ONE_WORKER, Grading
from wspbench.report.replay import Frame, UnusableAnswer, draw, frame_size, replay
from wspbench.tasks import get_task

BREAKOUT = (resources.files("wspbench") / "references" / "breakout.txt").read_text()


def frames(path):
    with Image.open(path) as image:
        return image.n_frames, image.size


def test_minatar_replay_plays_the_graded_episodes(tmp_path):
    task = get_task("original/breakout")
    summary = replay(task.id, BREAKOUT, tmp_path / "b.gif", episodes=2, seed=3, max_frames=25)
    graded = task.score(task.parse(BREAKOUT), [3, 4], Grading(engine="fast", workers=1))
    assert [e.episode for e in summary.episodes] == [3, 4]
    assert [e.score for e in summary.episodes] == list(graded.values)
    assert [e.length for e in summary.episodes] == list(graded.lengths)
    expected = sum(min(e.length, 25) + 1 for e in summary.episodes)  # kept frames + a closing frame each
    size = frame_size(task, (10, 10, 6))
    assert summary.frames == expected and frames(tmp_path / "b.gif") == (expected, size)
    first = summary.episodes[0].frames[0]
    assert first.probabilities.sum() == pytest.approx(1.0) and first.action in range(6)
    assert summary.episodes[0].frames[-1].action is None and summary.episodes[0].frames[-1].step == graded.lengths[0]


@pytest.mark.parametrize("task_id", ["superbeam", "synth/ferry"])
def test_default_episode_is_the_first_held_out_one(tmp_path, task_id):
    task = get_task(task_id)
    answer = task.offline_answer("reference")
    summary = replay(task.id, answer, tmp_path / "r.gif", max_frames=5)
    graded = task.score(task.parse(answer), task.scoring_episodes(1), ONE_WORKER)
    (episode,) = summary.episodes
    assert episode.episode == task.scoring_episodes(1)[0]
    assert (episode.score, episode.length) == (graded.values[0], graded.lengths[0])
    assert frames(tmp_path / "r.gif") == (min(episode.length, 5) + 1, summary.size)


def test_the_game_chooses_the_drawing():
    """A grid game's screen is drawn as channel cells with a legend, SUPERBEAM's as pixels (`Game.grid`); a
    screen that is not what the game says is refused."""
    breakout, superbeam = get_task("original/breakout"), get_task("superbeam")
    grid = draw(breakout, Frame(np.zeros((10, 10, 6)), np.full(6, 1 / 6), 5, 0, 0.0), "grid")
    pixels = draw(superbeam, Frame(np.zeros((32, 64)), np.full(6, 1 / 6), 5, 0, 0.0), "pixels")
    assert grid.size == frame_size(breakout, (10, 10, 6)) and pixels.size == frame_size(superbeam, (32, 64))
    assert grid.size != pixels.size
    for task, screen in ((breakout, np.zeros((32, 64))), (superbeam, np.zeros((10, 10, 6))), (breakout, np.zeros(5))):
        with pytest.raises(ValueError, match="shape"):
            draw(task, Frame(screen, None, None, 0, 0.0), "not this game's screen")


def test_an_argmax_network_says_so(monkeypatch):
    task = get_task("superbeam")
    assert task.network.action_rule == "argmax" != get_task("original/breakout").network.action_rule
    with_note = frame_size(task, (32, 64))[1]
    monkeypatch.setattr(task, "network", replace(task.network, action_rule="softmax_sample"))
    assert with_note > frame_size(task, (32, 64))[1]  # one more caption line


def test_cli_replay_and_its_errors(tmp_path):
    answer = tmp_path / "a.txt"
    answer.write_text(BREAKOUT)
    out = tmp_path / "r.gif"
    result = CliRunner().invoke(
        app, ["replay", "original/breakout", str(answer), "--out", str(out), "--max-frames", "5"]
    )
    assert result.exit_code == 0, result.output
    assert frames(out) == (6, frame_size(get_task("original/breakout"), (10, 10, 6))) and "episode 0" in result.output
    result = CliRunner().invoke(app, ["replay", "breakout", str(answer), "--out", str(out), "--max-frames", "1"])
    assert result.exit_code == 0, result.output  # a bare game name names its task
    result = CliRunner().invoke(app, ["replay", "original/nosuchgame", str(answer), "--out", str(out)])
    assert result.exit_code == 2 and "unknown task" in result.output
    answer.write_text("no block")
    result = CliRunner().invoke(app, ["replay", "original/breakout", str(answer), "--out", str(out)])
    assert result.exit_code == 1 and "edits" in result.output
    with pytest.raises(UnusableAnswer):
        replay("superbeam", BREAKOUT, tmp_path / "x.gif")


def test_a_repair_replay_plays_one_episode_within_max_frames(tmp_path):
    """A repair task scores at least 50 episodes; its replay of one episode kept them all (10,050 frames)."""
    task = get_task("repair/breakout/swap_actions")
    summary = replay(task.id, task.offline_answer("reference"), tmp_path / "r.gif", max_frames=5)
    (episode,) = summary.episodes
    assert episode.episode == task.scoring_episodes(1)[0]
    assert frames(tmp_path / "r.gif")[0] == summary.frames == min(episode.length, 5) + 1


def test_a_replay_over_max_bytes_keeps_its_first_frames_and_the_end(tmp_path):
    summary = replay("original/breakout", BREAKOUT, tmp_path / "b.gif", max_frames=300, max_bytes=40_000)
    assert summary.trimmed > 0 and (tmp_path / "b.gif").stat().st_size <= 40_000
    assert frames(tmp_path / "b.gif")[0] == summary.frames
