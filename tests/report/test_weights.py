"""`wsp weights`: the picture follows from the task's input shape (a channel grid or named inputs), the
answer is read by the first task whose parser accepts it (or by --task), and the PNGs open at their sizes."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.report.replay import UnusableAnswer
from wspbench.report.weights import FLAT_PIXELS, GRID_PIXELS, answer_tasks, w1_mosaic, weights_png
from wspbench.tasks import all_tasks, get_task
from wspbench.tasks.spec import GameTask

EDITS = (resources.files("wspbench") / "references" / "breakout.txt").read_text()


def test_the_answer_chooses_the_task_and_the_input_shape_the_picture(tmp_path):
    first = all_tasks()[0].id  # every MinAtar task reads edits for the same network: the first one is used
    assert weights_png(EDITS, tmp_path / "m.png") == (first, GRID_PIXELS)
    beam = get_task("superbeam").offline_answer("reference")
    assert weights_png(beam, tmp_path / "s.png") == ("superbeam", FLAT_PIXELS)
    assert weights_png(EDITS, tmp_path / "t.png", task_id="synth/ferry") == ("synth/ferry", GRID_PIXELS)
    for name, size in (("m.png", GRID_PIXELS), ("s.png", FLAT_PIXELS), ("t.png", GRID_PIXELS)):
        with Image.open(tmp_path / name) as image:
            assert image.format == "PNG" and image.size == size
    with pytest.raises(UnusableAnswer):
        weights_png(EDITS, tmp_path / "x.png", task_id="superbeam")
    with pytest.raises(UnusableAnswer, match="superbeam"):  # says how each reading failed
        weights_png("nothing here", tmp_path / "x.png")


def test_one_reader_per_network_and_format():
    kinds = [(repr(t.network), t.answer_format) for t in answer_tasks()]
    networks = {(repr(t.network), t.answer_format) for t in all_tasks() if isinstance(t, GameTask)}
    assert len(kinds) == len(set(kinds)) == len(networks)  # identify answers name a game: no network to draw
    with pytest.raises(UnusableAnswer, match="name a game"):
        weights_png("```game\nbreakout\n```", Path("x.png"), task_id="identify/breakout/4")


def test_w1_mosaic_puts_each_input_in_its_channel_map():
    w1 = np.zeros((600, 32))
    w1[(3 * 10 + 7) * 6 + 2, 5] = 4.0  # row 3, col 7, channel 2, unit 5
    w1[0, 5] = -2.0  # row 0, col 0, channel 0, unit 5
    mosaic = w1_mosaic(w1, (10, 10, 6))
    top, left = (5 // 4) * 13 + 2, (5 % 4) * 68
    assert mosaic[top + 3, left + 2 * 11 + 7] == 1.0 and mosaic[top, left] == -0.5
    assert np.nansum(np.abs(mosaic)) == 1.5
    small = w1_mosaic(np.ones((2 * 3 * 2, 1)), (2, 3, 2))  # any grid: 2 rows, 3 cols, 2 channels
    assert np.nansum(small) == 12 and small.shape == (5, 4 * (2 * 4 + 2))


def test_cli_weights(tmp_path):
    answer = tmp_path / "zero.txt"
    answer.write_text((resources.files("wspbench") / "references" / "zero.txt").read_text())
    out = str(tmp_path / "w.png")
    result = CliRunner().invoke(app, ["weights", str(answer), "--out", out])
    assert result.exit_code == 0, result.output
    with Image.open(out) as image:
        assert image.size == GRID_PIXELS
    assert CliRunner().invoke(app, ["weights", str(answer), "--out", out, "--task", "breakout"]).exit_code == 0
    result = CliRunner().invoke(app, ["weights", str(answer), "--out", out, "--task", "nosuchgame"])
    assert result.exit_code == 2 and "unknown task" in result.output
    result = CliRunner().invoke(app, ["weights", str(answer), "--out", out, "--task", "superbeam"])
    assert result.exit_code == 1  # read as SUPERBEAM reads it: not its answer
    answer.write_text(get_task("superbeam").offline_answer("zero"))
    result = CliRunner().invoke(app, ["weights", str(answer), "--out", out, "--task", "superbeam"])
    assert result.exit_code == 0 and "read as superbeam reads it" in result.output
    answer.write_text("nothing")
    assert CliRunner().invoke(app, ["weights", str(answer), "--out", out]).exit_code == 1
