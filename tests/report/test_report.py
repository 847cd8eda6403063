"""`wsp report`: HTML, Markdown and PNG charts over run directories (a real offline `wsp run` and a
hand-written one, from another suite, with a parse failure, an endpoint error and a task this wspbench
lacks), intervals from the recorded Scores (nothing graded again), and the page renders in headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from importlib import resources

import pytest
from PIL import Image
from typer.testing import CliRunner

from tests.conftest import missing_part
from wspbench.cli import app
from wspbench.harness.record import Manifest, Reply, Round, RunConfig, TaskRecord
from wspbench.protocols import make
from wspbench.report.report import CHART_WIDTH, MODELS_CHART_PIXELS, TASK_ROW_PIXELS, suite_warning
from wspbench.tasks import get_task
from wspbench.tasks.spec import Score

RUNNER = CliRunner()
BREAKOUT = (resources.files("wspbench") / "references" / "breakout.txt").read_text()
OTHER_SUITE = {"name": "wspbench", "version": "0", "digest": "0" * 64, "tasks": 3}
GONE = Score("original/gone", 0.5, 5.0, 10.0, (0, 1), (4.0, 6.0), (10, 20))  # a task this wspbench lacks


def hand_written_run(path):
    """A run of model "m|<x>" (a name that needs escaping) from another suite: one reply without an edits
    block (a parse failure, scored 0), one task whose endpoint failed, and one task no longer installed."""
    (path / "tasks").mkdir(parents=True)
    tasks = ["original/breakout", "superbeam", "original/gone"]
    manifest = Manifest(RunConfig(model="m|<x>", protocol=make("one-shot", episodes=2)), tasks, OTHER_SUITE)
    (path / "manifest.json").write_text(json.dumps(manifest.to_json()))
    usage = {"prompt_tokens": 9000, "completion_tokens": 700, "cost": 0.0123}
    error = "the answer has no ```edits block"
    parse_failure = TaskRecord(
        "original/breakout",
        "m|<x>",
        "one-shot",
        suite=OTHER_SUITE,
        status="ok",
        rounds=[Round(1, Reply("I think it should move left.", usage=usage), parse_error=error)],
        test=get_task("original/breakout").rejected(error),
        usage=usage,
    )
    failed = TaskRecord(
        "superbeam", "m|<x>", "one-shot", suite=OTHER_SUITE, status="error", error="ModelError: 503 after 4 tries"
    )
    gone = TaskRecord(
        "original/gone",
        "m|<x>",
        "one-shot",
        suite=OTHER_SUITE,
        status="ok",
        rounds=[Round(1, Reply(BREAKOUT))],
        best_round=1,
        test=GONE,
    )
    for name, record in (("original-breakout", parse_failure), ("superbeam", failed), ("original-gone", gone)):
        (path / "tasks" / f"{name}.json").write_text(json.dumps(record.to_json()))
    (path / "tasks" / "superbeam.partial.json").write_text("{not json: a task in progress is skipped")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    result = RUNNER.invoke(
        app,
        [
            "run",
            "--model",
            "reference",
            "--tasks",
            "original/breakout,superbeam",
            "--episodes",
            "2",
            "--workers",
            "1",
            "--concurrency",
            "1",
            "--out",
            str(root / "reference"),
        ],
    )
    assert result.exit_code == 0, result.output
    hand_written_run(root / "other")
    result = RUNNER.invoke(
        app,
        ["report", str(root / "reference"), str(root / "other"), "--out", str(root / "out"), "--replay-frames", "8"],
    )
    assert result.exit_code == 0, result.output
    return root / "out"


def test_tables_count_parse_failures_apart_and_show_intervals(report):
    markdown = (report / "report.md").read_text()
    models = markdown.split("## Models")[1].split("##")[0]
    assert "| reference (one-shot) | 2 | 2 |" in models and "| 0 | 0 |" in models
    # its mean is over the one task both models finished (original/breakout, a parse failure), never over others
    assert (
        "| m\\|&lt;x&gt; (one-shot) | 3 | 2 | 0.0000 | 0.0000 to 0.0000 | - | - | 1 | 1 | 9,000 | 700 | 0.0123 |"
        in models
    )
    scores = markdown.split("## Scores")[1].split("##")[0]
    assert "0 (parse failure)" in scores and "error" in scores
    assert scores.count("[replay](replays/") == 2
    for name in ("original-breakout", "superbeam"):  # intervals are the recorded Scores'
        test = Score.from_json(json.loads((report.parent / "reference" / "tasks" / f"{name}.json").read_text())["test"])
        low, high = test.interval()
        assert f"{test.normalized:.4f} [{low:.4f}, {high:.4f}]" in scores
    low, high = GONE.interval()  # a task this wspbench cannot play: its interval still comes from its record
    assert f"| original/gone | - | 0.5000 [{low:.4f}, {high:.4f}] |" in scores
    assert "no replay: unknown task" in markdown
    html = (report / "index.html").read_text()
    assert "m|&lt;x&gt; (one-shot)" in html and "<x>" not in html  # untrusted names are escaped
    assert "ModelError: 503 after 4 tries" in html


def test_each_run_states_its_suite_and_different_suites_are_flagged(report):
    markdown = (report / "report.md").read_text()
    suites = markdown.split("## Suites")[1].split("##")[0]
    reference = json.loads((report.parent / "reference" / "manifest.json").read_text())["suite"]
    assert f"| reference | wspbench {reference['version']}, digest {reference['digest'][:12]} |" in suites
    assert "| other | wspbench 0, digest 000000000000 |" in suites
    assert "**Warning: the runs come from 2 different suites" in markdown
    assert "Warning: the runs come from 2 different suites" in (report / "index.html").read_text()
    assert suite_warning({"a": reference, "b": dict(reference)}) is None
    assert "do not state" in suite_warning({"a": {}})


def test_charts_and_replays_open(report):
    with Image.open(report / "models.png") as image:
        assert image.format == "PNG" and image.size == MODELS_CHART_PIXELS
    with Image.open(report / "scores.png") as image:  # 3 tasks in 2 family panels, 2 models: a row per task
        assert image.format == "PNG" and image.size[0] == CHART_WIDTH and image.size[1] > 3 * 2 * TASK_ROW_PIXELS
    gifs = sorted((report / "replays").glob("*.gif"))
    assert [g.name for g in gifs] == ["reference_one-shot__original-breakout.gif", "reference_one-shot__superbeam.gif"]
    for gif in gifs:
        with Image.open(gif) as image:
            assert image.n_frames == 9  # 8 kept frames and the closing frame


def test_a_folder_that_holds_a_report_is_refused_and_replaced_whole_with_force(report, tmp_path):
    """issue 52: `wsp report` into a folder that is not empty is exit 2 (as `wsp export harbor` is); with --force
    an earlier report is replaced whole (no stale replay is left), and a folder that holds anything else is refused."""
    run = report.parent / "reference"
    out = tmp_path / "out"
    shutil.copytree(report, out)
    (out / "replays" / "stale.gif").write_bytes(b"GIF89a")
    refused = RUNNER.invoke(app, ["report", str(run), "--out", str(out), "--no-replays"])
    assert refused.exit_code == 2 and "is not empty; pass --force to replace the earlier report" in refused.output
    replaced = RUNNER.invoke(app, ["report", str(run), "--out", str(out), "--no-replays", "--force"])
    assert replaced.exit_code == 0, replaced.output
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "models.png", "report.md", "scores.png"]
    (out / "notes.txt").write_text("mine")
    kept = RUNNER.invoke(app, ["report", str(run), "--out", str(out), "--no-replays", "--force"])
    assert kept.exit_code == 2 and "holds more than an earlier report (notes.txt)" in kept.output
    assert (out / "notes.txt").read_text() == "mine" and (out / "index.html").exists()


def test_old_runs_and_non_runs_are_usage_errors(tmp_path):
    old = tmp_path / "old"
    (old / "tasks").mkdir(parents=True)
    (old / "manifest.json").write_text(json.dumps({"format": "wspbench.harness.run/1", "model": "m", "tasks": []}))
    result = RUNNER.invoke(app, ["report", str(old), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "older wspbench" in result.output
    result = RUNNER.invoke(app, ["report", str(tmp_path / "none"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "not a run directory" in result.output


def test_page_renders_in_headless_chromium(report, tmp_path):
    chromium = os.environ.get("WSP_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None or shutil.which(chromium) is None:
        missing_part(
            "chromium", "not installed (apt-get install -y chromium, or set WSP_CHROMIUM); the HTML was not rendered"
        )
    flags = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        "--virtual-time-budget=5000",
    ]
    url = (report / "index.html").as_uri()
    dom = subprocess.run(
        [*flags, f"--user-data-dir={tmp_path / 'dom'}", "--dump-dom", url], capture_output=True, text=True, timeout=120
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-broken-images="0"' in dom.stdout  # the page's script ran and every image loaded
    assert "wspbench report" in dom.stdout and "0 (parse failure)" in dom.stdout
    shot = tmp_path / "report.png"
    done = subprocess.run(
        [*flags, f"--user-data-dir={tmp_path / 'shot'}", "--window-size=1280,1600", f"--screenshot={shot}", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    with Image.open(shot) as image:
        assert image.size == (1280, 1600)
        colours = image.convert("L").getextrema()
        assert colours[0] < 100 < colours[1]  # not a blank page


def test_means_per_family_over_shared_tasks_come_with_baseline_relative_scores(report):
    """The report leads with per-family means over the tasks both models finished (original/breakout): its
    relative score is (score - trivial) / (reference - trivial) (src/wspbench/baselines/baselines.json)."""
    from wspbench.baselines import measured

    markdown = (report / "report.md").read_text()
    assert markdown.index("## Per family") < markdown.index("## Models") < markdown.index("## Scores")
    families = markdown.split("## Per family")[1].split("## ")[0]
    assert "over the 1 task every model finished (2 other tasks left out" in families
    entry = measured.of_task("original/breakout")
    reference_run = json.loads((report.parent / "reference" / "tasks" / "original-breakout.json").read_text())
    score = reference_run["test"]["normalized"]
    relative = measured.relative(score, entry)
    assert f"| original | 1 | reference (one-shot) | {score:.4f} |" in families
    assert f"| {relative:.4f} (1) |" in families and "superbeam" not in families  # not a shared task
    assert "Per family" in (report / "index.html").read_text()


def test_every_reply_of_a_sampled_run_is_shown_with_the_mean(tmp_path):
    """`wsp run --samples 2`: the task's cell gives the mean of the two replies and then each one."""
    result = RUNNER.invoke(
        app,
        ["run", "--model", "reference", "--tasks", "original/breakout", "--episodes", "2", "--samples", "2",
         "--workers", "1", "--out", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    result = RUNNER.invoke(
        app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--replay-frames", "4"]
    )
    assert result.exit_code == 0, result.output
    scores = (tmp_path / "out" / "report.md").read_text().split("## Scores")[1].split("##")[0]
    test = json.loads(next((tmp_path / "run" / "tasks").glob("original-breakout*.json")).read_text())["test"]
    score = f"{test['normalized']:.4f}"
    assert f"mean {score} of 2 replies: {score}, {score}" in scores
    assert f"mean {score} of 2 replies" in (tmp_path / "out" / "index.html").read_text()


def test_default_replays_are_one_per_family_bounded_in_frames_and_time(tmp_path):
    """Two synth tasks and a repair one: one replay per model and family (the repair replay one episode of at
    most --replay-frames frames, not its 50 scoring episodes), said in the report; with no time left, none."""
    result = RUNNER.invoke(
        app,
        ["run", "--model", "reference", "--tasks", "synth/ferry,synth/firefighter,repair/breakout/swap_actions",
         "--episodes", "2", "--workers", "1", "--out", str(tmp_path / "run")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    result = RUNNER.invoke(
        app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "out"), "--replay-frames", "6"]
    )
    assert result.exit_code == 0, result.output
    assert "writing replays" in result.output and "left" in result.output  # progress with the time left
    gifs = sorted(p.name for p in (tmp_path / "out" / "replays").glob("*.gif"))
    assert gifs == ["reference_one-shot__repair-breakout-swap_actions.gif", "reference_one-shot__synth-ferry.gif"]
    for gif in gifs:
        with Image.open(tmp_path / "out" / "replays" / gif) as image:
            assert image.n_frames <= 7
    said = (tmp_path / "out" / "report.md").read_text().split("## Replays")[1].split("##")[0]
    assert "2 replays of 3 usable answers (at most 1 per model and family" in said and "6 frames" in said
    result = RUNNER.invoke(
        app, ["report", str(tmp_path / "run"), "--out", str(tmp_path / "late"), "--replay-seconds", "0"]
    )
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "late" / "report.md").read_text()
    assert "0 replays of 3" in markdown and "2 skipped when that time ran out" in markdown
    assert not list((tmp_path / "late").glob("replays/*.gif"))


def test_a_record_that_cannot_be_used_counts_as_zero_with_a_notice(tmp_path):
    run = tmp_path / "other"
    hand_written_run(run)
    bad = json.loads((run / "tasks" / "original-gone.json").read_text())
    bad["best_round"] = "1"  # parseable, of the wrong type (issue 27)
    (run / "tasks" / "original-gone.json").write_text(json.dumps(bad))
    result = RUNNER.invoke(app, ["report", str(run), "--out", str(tmp_path / "out"), "--no-replays"])
    output = " ".join(result.output.split())
    assert result.exit_code == 0 and "original-gone.json" in output and "best_round" in output, result.output
    assert "| original/gone | 0 (record cannot be read) |" in (tmp_path / "out" / "report.md").read_text()


def test_three_runs_one_table_model_the_same_numbers_and_each_runs_own_colour(tmp_path):
    """issue 41.3: the Markdown and the page render the same rows (`report.tables`), so they carry the same numbers;
    each run's colour (`COLOURS`, in order) is its own in the page's legend, its tables and both charts' bars."""
    import re

    from wspbench.report.report import COLOURS

    runs = []
    for model in ("reference", "zero", "trained"):
        out = tmp_path / model
        command = ["run", "--model", model, "--tasks", "original/breakout,synth/ferry", "--out", str(out)]
        assert RUNNER.invoke(app, [*command, "--episodes", "3", "--workers", "1"]).exit_code == 0
        runs.append(str(out))
    result = RUNNER.invoke(app, ["report", *runs, "--out", str(tmp_path / "report"), "--no-replays"])
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "report" / "report.md").read_text()
    page = (tmp_path / "report" / "index.html").read_text()

    def numbers(text: str) -> list[str]:
        return sorted(re.findall(r"\b\d+\.\d{4}\b", text))

    tables_md = "\n".join(line for line in markdown.splitlines() if line.startswith("|"))
    tables_html = " ".join(re.findall(r"<table>.*?</table>", page, re.S))
    assert numbers(tables_md) == numbers(tables_html) and len(numbers(tables_md)) > 20
    labels = ["reference (one-shot)", "zero (one-shot)", "trained (one-shot)"]
    legend = re.search(r'<p class="legend">(.*?)</p>', page).group(1)
    for colour, label in zip(COLOURS, labels, strict=False):
        swatch = f'<span class=swatch style="background:{colour}"></span>{label}'
        assert swatch in legend and page.count(swatch) > 1  # the legend and the tables that name the model
        rgb = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
        for chart in ("models.png", "scores.png"):
            with Image.open(tmp_path / "report" / chart) as image:
                pixels = {seen for _, seen in image.convert("RGB").getcolors(1 << 24)}
            assert rgb in pixels, (chart, label)
    for colour in COLOURS[3:]:
        assert colour not in page
