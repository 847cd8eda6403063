"""`wsp weights`: PNG pictures of both network families open with Pillow at the documented sizes."""

from __future__ import annotations

from importlib import resources

import pytest
from PIL import Image
from typer.testing import CliRunner

from superbeam.task import reference_weights, weights_json
from wspbench.cli import app
from wspbench.report.answers import UnusableAnswer
from wspbench.report.weights import MINATAR_PIXELS, SUPERBEAM_PIXELS, w1_mosaic, weights_png


def test_both_families_and_detection(tmp_path):
    edits = (resources.files("wspbench") / "examples" / "breakout.txt").read_text()
    assert weights_png(edits, tmp_path / "m.png") == ("minatar", MINATAR_PIXELS)
    assert weights_png(weights_json(reference_weights()), tmp_path / "s.png") == ("superbeam", SUPERBEAM_PIXELS)
    for name, size in (("m.png", MINATAR_PIXELS), ("s.png", SUPERBEAM_PIXELS)):
        with Image.open(tmp_path / name) as image:
            assert image.format == "PNG" and image.size == size
    with pytest.raises(UnusableAnswer):
        weights_png(edits, tmp_path / "x.png", family="superbeam")


def test_w1_mosaic_puts_each_input_in_its_channel_map():
    import numpy as np

    w1 = np.zeros((600, 32))
    w1[(3 * 10 + 7) * 6 + 2, 5] = 4.0   # row 3, col 7, channel 2 (reward), unit 5
    w1[0, 5] = -2.0                     # row 0, col 0, channel 0, unit 5
    mosaic = w1_mosaic(w1)
    top, left = (5 // 4) * 13 + 2, (5 % 4) * 68
    assert mosaic[top + 3, left + 2 * 11 + 7] == 1.0 and mosaic[top, left] == -0.5
    assert np.nansum(np.abs(mosaic)) == 1.5


def test_cli_weights(tmp_path):
    answer = tmp_path / "zero.txt"
    answer.write_text((resources.files("wspbench") / "examples" / "zero.txt").read_text())
    result = CliRunner().invoke(app, ["weights", str(answer), "--out", str(tmp_path / "w.png")])
    assert result.exit_code == 0, result.output
    with Image.open(tmp_path / "w.png") as image:
        assert image.size == MINATAR_PIXELS
    answer.write_text("nothing")
    assert CliRunner().invoke(app, ["weights", str(answer), "--out", str(tmp_path / "w.png")]).exit_code == 1
