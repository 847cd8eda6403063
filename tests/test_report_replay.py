"""`wsp replay`: the GIF's frames and size, and the replayed episodes are the graded ones (same returns and
lengths as the engine, same outcome as SUPERBEAM's grader)."""

from __future__ import annotations

from importlib import resources

import pytest
from PIL import Image
from typer.testing import CliRunner

from superbeam.task import TEST_LEVELS, play_level, reference_weights, weights_json
from wspbench.answers import parse_edits
from wspbench.cli import app
from wspbench.evaluation import evaluate
from wspbench.report.answers import UnusableAnswer
from wspbench.report.replay import MINATAR_SIZE, SUPERBEAM_SIZE, replay
from wspbench.tasks import MinAtarTask

BREAKOUT = (resources.files("wspbench") / "examples" / "breakout.txt").read_text()


def frames(path):
    with Image.open(path) as image:
        return image.n_frames, image.size


def test_minatar_replay_plays_the_graded_episodes(tmp_path):
    summary = replay("original/breakout", BREAKOUT, tmp_path / "b.gif", episodes=2, seed=3, max_frames=25)
    task = MinAtarTask("breakout")
    graded = evaluate(task, parse_edits(BREAKOUT, task.network)[0], [3, 4], engine="fast", workers=1)
    assert [e.score for e in summary.episodes] == list(graded.returns)
    assert [e.length for e in summary.episodes] == list(graded.lengths)
    expected = sum(min(e.length, 25) + 1 for e in summary.episodes)  # kept frames + a closing frame each
    assert summary.frames == expected and frames(tmp_path / "b.gif") == (expected, MINATAR_SIZE)
    first = summary.episodes[0].frames[0]
    assert first.probabilities.sum() == pytest.approx(1.0) and first.action in range(6)


def test_superbeam_replay_matches_the_grader(tmp_path):
    answer = "```json\n" + weights_json(reference_weights()) + "\n```"
    summary = replay("superbeam", answer, tmp_path / "s.gif", episodes=1, max_frames=1000)
    graded = play_level(reference_weights(), TEST_LEVELS[0])
    (episode,) = summary.episodes
    assert episode.label == f"level {TEST_LEVELS[0]}"
    assert episode.result["won"] == graded["won"] and episode.result["progress"] == graded["progress"]
    assert episode.result["coins"] == graded["coins"]
    assert frames(tmp_path / "s.gif") == (episode.length + 1, SUPERBEAM_SIZE)


def test_cli_replay_and_its_errors(tmp_path):
    answer = tmp_path / "a.txt"
    answer.write_text(BREAKOUT)
    out = tmp_path / "r.gif"
    result = CliRunner().invoke(app, ["replay", "original/breakout", str(answer), "--out", str(out), "--max-frames", "5"])
    assert result.exit_code == 0, result.output
    assert frames(out) == (6, MINATAR_SIZE) and "episode 0" in result.output
    answer.write_text("no block")
    result = CliRunner().invoke(app, ["replay", "original/breakout", str(answer), "--out", str(out)])
    assert result.exit_code == 1 and "edits" in result.output
    with pytest.raises(UnusableAnswer):
        replay("superbeam", BREAKOUT, tmp_path / "x.gif")
