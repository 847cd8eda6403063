"""`wsp report`: HTML, Markdown and PNG charts over run directories (a real offline `wsp run` and a
hand-written one with a parse failure and an endpoint error), and the page renders in headless Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from PIL import Image
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.report.report import CHART_PIXELS, MODELS_CHART_PIXELS
from wspbench.report.runs import mean_ci, wilson

RUNNER = CliRunner()


def hand_written_run(path):
    """A run of model "m|x" (a name that needs escaping) in the harness's layout: one reply without an
    edits block (a parse failure, scored 0), one task whose endpoint failed (status error)."""
    (path / "tasks").mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps({"format": "wspbench.harness.run/1", "model": "m|<x>",
                                                    "protocol": "one-shot", "episodes": 2,
                                                    "tasks": ["original/breakout", "superbeam"]}))
    reply = {"content": "I think it should move left.", "reasoning": None, "finish_reason": "stop",
             "usage": {"prompt_tokens": 9000, "completion_tokens": 700, "cost": 0.0123}, "latency_s": 1.0,
             "attempts": 1, "model": "m"}
    parse_failure = {"format": "wspbench.harness.task/1", "task": "original/breakout", "model": "m|<x>",
                     "protocol": "one-shot", "status": "ok", "error": None, "family": "minatar",
                     "rounds": [{"round": 1, "reply": reply, "answer_source": "content",
                                 "parse_error": "the answer has no ```edits block", "weights": None}],
                     "best_round": None, "test_score": 0.0,
                     "test": {"normalized_score": 0.0, "game": "breakout", "source": "original", "episodes": 2,
                              "parse_success": 0.0, "error": "the answer has no ```edits block"},
                     "usage": {"prompt_tokens": 9000, "completion_tokens": 700, "cost": 0.0123},
                     "timings": {"model_s": 1.0, "grading_s": 0.0, "total_s": 1.0}}
    error = {"format": "wspbench.harness.task/1", "task": "superbeam", "model": "m|<x>", "protocol": "one-shot",
             "status": "error", "error": "ModelError: 503 after 4 tries", "family": "superbeam", "rounds": [],
             "test_score": None, "usage": None, "timings": {"model_s": 0.0, "grading_s": 0.0, "total_s": 5.0}}
    (path / "tasks" / "original__breakout.json").write_text(json.dumps(parse_failure))
    (path / "tasks" / "superbeam.json").write_text(json.dumps(error))
    (path / "tasks" / "superbeam.partial.json").write_text("{not json: a task in progress is skipped")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    result = RUNNER.invoke(app, ["run", "--model", "reference", "--tasks", "original/breakout,superbeam",
                                 "--episodes", "2", "--workers", "1", "--concurrency", "1",
                                 "--out", str(root / "reference")])
    assert result.exit_code == 0, result.output
    hand_written_run(root / "other")
    result = RUNNER.invoke(app, ["report", str(root / "reference"), str(root / "other"), "--out", str(root / "out"),
                                 "--replay-frames", "8", "--workers", "1"])
    assert result.exit_code == 0, result.output
    return root / "out"


def test_tables_count_parse_failures_apart_and_show_intervals(report):
    markdown = (report / "report.md").read_text()
    models = markdown.split("## Models")[1].split("##")[0]
    assert "| reference (one-shot) | 2 | 2 |" in models and "| 0 | 0 |" in models
    assert "| m\\|&lt;x&gt; (one-shot) | 2 | 1 | 0.0000 | 1 | 1 | 9,000 | 700 | 0.0123 |" in models
    scores = markdown.split("## Scores")[1].split("##")[0]
    assert "0 (parse failure)" in scores and "error" in scores
    assert scores.count("[replay](replays/") == 2
    record = json.loads((report.parent / "reference" / "tasks" / "original__breakout.json").read_text())
    assert f"{record['test_score']:.4f} [" in scores  # a score with its 95% interval
    html = (report / "index.html").read_text()
    assert "m|&lt;x&gt; (one-shot)" in html and "<x>" not in html  # untrusted names are escaped
    assert "ModelError: 503 after 4 tries" in html


def test_charts_and_replays_open(report):
    for name, size in (("scores.png", CHART_PIXELS), ("models.png", MODELS_CHART_PIXELS)):
        with Image.open(report / name) as image:
            assert image.format == "PNG" and image.size == size
    gifs = sorted((report / "replays").glob("*.gif"))
    assert [g.name for g in gifs] == ["reference_one-shot__original-breakout.gif", "reference_one-shot__superbeam.gif"]
    for gif in gifs:
        with Image.open(gif) as image:
            assert image.n_frames == 9  # 8 kept frames and the closing frame


def test_intervals():
    assert mean_ci([1.0, 1.0, 1.0]) == (1.0, 1.0, 1.0)
    mean, low, high = mean_ci([0.0, 10.0])
    assert mean == 5.0 and low < 0 < 10 < high
    low, high = wilson(17, 20)
    assert 0.6 < low < 0.85 < high < 0.96
    assert wilson(0, 20)[0] == 0.0


def test_page_renders_in_headless_chromium(report, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Chromium is not installed (apt-get install -y chromium); the HTML was not rendered")
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", "--virtual-time-budget=5000"]
    url = (report / "index.html").as_uri()
    dom = subprocess.run([*flags, f"--user-data-dir={tmp_path / 'dom'}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-broken-images="0"' in dom.stdout  # the page's script ran and every image loaded
    assert "wspbench report" in dom.stdout and "0 (parse failure)" in dom.stdout
    shot = tmp_path / "report.png"
    done = subprocess.run([*flags, f"--user-data-dir={tmp_path / 'shot'}", "--window-size=1280,1600",
                           f"--screenshot={shot}", url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    with Image.open(shot) as image:
        assert image.size == (1280, 1600)
        colours = image.convert("L").getextrema()
        assert colours[0] < 100 < colours[1]  # not a blank page
