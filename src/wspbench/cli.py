"""The `wsp` command: parses arguments, calls the library, prints tables. No logic of its own."""

from __future__ import annotations

import json
import math
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from superbeam.cli import chip8_app, superbeam_app
from wspbench.answers.edits import MAX_ANSWER_CHARS
from wspbench.evaluation import ENGINES
from wspbench.grading import find_task, grade_answer
from wspbench.inputs import InputFileError, InputTooLarge, output_file, read_bounded
from wspbench.tasks import all_minatar_tasks

app = typer.Typer(help="wspbench: weight-space programming benchmarks.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)
app.add_typer(chip8_app, name="chip8", help="CHIP-8 tools: assemble, run and disassemble programs.")
app.add_typer(superbeam_app, name="superbeam", help="SUPERBEAM: grade a JSON network on levels, or watch one play.")
console = Console()
errors = Console(stderr=True)

MAX_ANSWER_FILE_BYTES = 4 * MAX_ANSWER_CHARS  # UTF-8: a longer file has more characters than any parser reads
MAX_EPISODES = 100_000
MAX_WORKERS = 1024


@contextmanager
def progress_bar(label: str, total: int):
    """A rich progress bar on stderr; yields the callback the engine calls with finished episodes."""
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=errors, transient=True) as progress:
        bar = progress.add_task(label, total=total)
        yield lambda done: progress.advance(bar, done)


def read_answer(path: str) -> str:
    """An answer file (a regular file), or standard input for `-`, read with a size bound.

    A file that cannot be read is a usage error (exit 2); one over the bound raises InputTooLarge, which
    callers report as a rejected answer (exit 1)."""
    try:
        data = read_bounded(path, MAX_ANSWER_FILE_BYTES, "answer file")
    except InputTooLarge:
        raise
    except InputFileError as error:
        raise typer.BadParameter(str(error), param_hint="ANSWER") from None
    return data.decode("utf-8", errors="replace")


def finite(value: float | None) -> float | None:
    """A typer callback: NaN and infinities are usage errors."""
    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"must be a finite number, not {value}")
    return value


def check_engine(engine: str) -> str:
    if engine not in ENGINES:
        raise typer.BadParameter(f"choose one of {', '.join(ENGINES)}")
    return engine


def gif_file(path: Path) -> Path:
    """A typer callback: a replay is written as a GIF, so its path must end in .gif."""
    output_file(path)
    if path.suffix.lower() != ".gif":
        raise typer.BadParameter(f"{path} does not end in .gif (a replay is a GIF)")
    return path


def check_family(family: str | None) -> str | None:
    from wspbench.report.answers import FAMILIES

    if family is not None and family not in FAMILIES:
        raise typer.BadParameter(f"choose one of {', '.join(FAMILIES)}")
    return family


def answer_or_exit(path: str) -> str:
    """`read_answer` for commands without a result table: a file over the bound is a rejected answer (1)."""
    try:
        return read_answer(path)
    except InputTooLarge as error:
        errors.print(f"{error}: an answer has at most {MAX_ANSWER_CHARS:,} characters", markup=False)
        raise typer.Exit(1) from None


@contextmanager
def rejected_or_unwritable(out: Path):
    """An unusable answer exits 1; an output file that cannot be written exits 2; each with one line."""
    from wspbench.report.answers import UnusableAnswer

    try:
        yield
    except (UnusableAnswer, ValueError) as error:
        errors.print(str(error), markup=False, style="red")
        raise typer.Exit(1) from None
    except OSError as error:
        errors.print(f"cannot write {out}: {error.strerror or error}", markup=False, style="red")
        raise typer.Exit(2) from None


def grade_table(name: str, result: dict) -> Table:
    """One graded answer as a two-column table (or its error)."""
    table = Table(title=name)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("task", f"{result['source']}/{result['game']}")
    table.add_row("episodes", str(result["episodes"]))
    if "error" in result:
        table.add_row("normalised score", "0")
        table.add_row("error", Text(result["error"], style="red"))
        return table
    for label, value in (
        ("normalised score", f"{result['normalized_score']:.5f}"),
        ("raw score (mean return)", f"{result['raw_score']:.3f}"),
        ("score cap", f"{result['score_cap']:g}"),
        ("mean episode length", f"{result['mean_episode_length']:.2f}"),
        ("edits applied", str(result["edit_count"])),
        ("non-zero weights", str(result["nonzero_weights"])),
        ("seconds", f"{result['seconds']:.2f}"),
    ):
        table.add_row(label, value)
    return table


@app.command()
def grade(
    answer: str = typer.Argument(..., help="File with the model's reply, or - for standard input."),
    game: str = typer.Option(..., "--game", "-g", help="Game name, e.g. breakout (see `wsp games`)."),
    source: str = typer.Option(None, help="original (the minatar package) or synth (minatar_synth); default: "
                                          "the game's source (game names are unique)."),
    episodes: int = typer.Option(1000, min=1, max=MAX_EPISODES, help="Episodes to play (episode e uses seeds "
                                                                     "1729+e, 7919+e)."),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes to use (default: all cores)."),
    engine: str = typer.Option("auto", callback=check_engine, help="auto (default: compiled for original games, "
                               "fast for synthetic ones), compiled, fast or reference."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Grade an answer (a reply with an ```edits block) on a MinAtar task.

    Exit codes: 0 graded, 1 answer rejected, 2 usage error (unknown game or source, unreadable file)."""
    try:
        task = find_task(game, source)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--game/--source") from None
    try:
        text = read_answer(answer)
    except InputTooLarge as error:
        result = {"normalized_score": 0.0, "game": task.game, "source": task.source, "episodes": episodes,
                  "parse_success": 0.0, "error": f"{error}: an answer has at most {MAX_ANSWER_CHARS:,} characters"}
    else:
        with progress_bar(task.task_id, episodes) as advance:
            result = grade_answer(task, text, episodes, engine=engine, workers=workers, progress=advance)
    if as_json:
        print(json.dumps(result))
    else:
        console.print(grade_table("stdin" if answer == "-" else answer, result))
    if "error" in result:
        raise typer.Exit(1)


@app.command()
def games() -> None:
    """List the games: source, score cap, maximum length, description, calibrated scores."""
    from wspbench.games import minatar_original, synth
    from wspbench.tasks import MAX_STEPS

    calibration = json.loads((resources.files("minatar_synth") / "calibration.json").read_text())
    table = Table(caption="zero: the all-zero network; reference: the shipped program (normalised, "
                          "from benchmarks/calibrate_synth.py)")
    for column in ("game", "source", "cap", "max length", "zero", "reference", "description"):
        table.add_column(column, justify="left" if column in ("game", "source", "description") else "right")
    for task in all_minatar_tasks():
        if task.source == "original":
            description = minatar_original.ORIGINAL_DESCRIPTIONS[task.game]
            max_steps = minatar_original.ORIGINAL_MAX_STEPS.get(task.game, MAX_STEPS)
        else:
            description = synth.description(task.game)
            max_steps = synth.environment_class(task.game).max_steps
        measured = calibration.get(task.game, {})
        scores = [f"{measured[key]:.3f}" if key in measured else "-" for key in ("zero", "reference")]
        table.add_row(task.game, task.source, f"{task.score_cap:g}", str(max_steps), *scores, description)
    console.print(table)


@app.command()
def verify(
    trajectory: Path = typer.Option(None, help="Trajectory JSON (default: /logs/trajectory.json, "
                                               "else /logs/agent/trajectory.json)."),
    reward: Path = typer.Option(Path("/logs/verifier/reward.json"), help="Where to write the reward."),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes to use (default: all cores)."),
) -> None:
    """Harbor verifier: grade the trajectory's last assistant message (WEIGHT_SPACE_* variables).

    Exit codes: 0 graded, 1 answer rejected, 2 bad WEIGHT_SPACE_* settings (each with a reward file), 3 no
    reward file could be written or the verifier failed (one line on stderr says why)."""
    from wspbench.verifier import main as run_verifier

    result, code = run_verifier(trajectory, reward, workers=workers)
    try:
        console.print_json(json.dumps(result))
    except OSError:  # a closed standard output does not change the reward already written
        pass
    raise typer.Exit(code)


@app.command()
def run(
    model: str = typer.Option(..., help="Model name at the endpoint, or an offline model: reference, zero."),
    tasks: str = typer.Option("original/*", help="Tasks: all, original/*, synth/*, original/breakout, superbeam, "
                                                 "comma-separated."),
    protocol: str = typer.Option("one-shot", help="one-shot or feedback."),
    rounds: int = typer.Option(4, min=1, max=1000, help="Feedback rounds (feedback protocol)."),
    concurrency: int = typer.Option(4, min=1, max=1000, help="Tasks in flight at once."),
    episodes: int = typer.Option(1000, min=1, max=100_000, help="Held-out scoring episodes per MinAtar task "
                                                                "(0..N-1)."),
    train_episodes: int = typer.Option(100, min=1, max=MAX_EPISODES, help="Training episodes per feedback round (MinAtar; ids "
                                                        "from 100000, disjoint from the scoring episodes)."),
    out: Path = typer.Option(None, help="Run directory (default runs/<model>-<protocol>); re-running with the "
                                        "same directory resumes it."),
    base_url: str = typer.Option(None, help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="Name of the environment variable with the API key."),
    timeout: float = typer.Option(600.0, min=0.001, callback=finite, help="Seconds to wait for one reply."),
    max_tries: int = typer.Option(4, min=1, max=100, help="Tries per request (rate limits, server errors, "
                                                          "timeouts)."),
    backoff: float = typer.Option(2.0, min=0.0, max=3600.0, callback=finite, help="First retry wait in seconds "
                                                                                  "(doubles each try)."),
    max_tokens: int = typer.Option(None, min=1, help="max_tokens sent with each request (default: not sent)."),
    temperature: float = typer.Option(None, min=0.0, callback=finite, help="temperature sent with each request "
                                                                           "(default: not sent)."),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes for grading (default: all cores)."),
    engine: str = typer.Option("auto", callback=check_engine, help="auto (default: compiled for original games, "
                               "fast for synthetic ones), compiled, fast or reference."),
) -> None:
    """Run a model on tasks (one-shot or feedback), grade its weights, and write a resumable run directory."""
    from wspbench.harness.clients import ModelError, make_client
    from wspbench.harness.display import RichDisplay, summary_table
    from wspbench.harness.families import TaskSelectionError, make_task, select_task_ids
    from wspbench.harness.protocols import PROTOCOLS
    from wspbench.harness.runs import RunDir, RunDirError, build_manifest, run_batch
    from wspbench.harness.summary import summary_rows

    if protocol not in PROTOCOLS:
        raise typer.BadParameter(f"choose one of {', '.join(PROTOCOLS)}", param_hint="--protocol")
    try:
        task_ids = select_task_ids(tasks)
    except TaskSelectionError as error:
        raise typer.BadParameter(str(error), param_hint="--tasks") from None
    try:
        client = make_client(model, base_url, api_key_env, timeout_s=timeout, max_tries=max_tries,
                             backoff_s=backoff, max_tokens=max_tokens, temperature=temperature)
    except ModelError as error:
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    safe_model = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
    run_dir = RunDir(out or Path("runs") / f"{safe_model}-{protocol}")
    manifest = build_manifest(client.describe(), protocol, rounds, episodes, train_episodes, engine, task_ids)
    try:
        manifest = run_dir.open(manifest)
    except RunDirError as error:
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    for note in run_dir.notes:  # corrupt records or manifest that open() set aside
        errors.print(note, style="yellow", markup=False)
    done = sum(run_dir.finished(t) for t in task_ids)

    def build(task_id: str):
        return make_task(task_id, episodes, train_episodes, workers, engine)

    try:
        with RichDisplay(errors, len(task_ids), done) as display:
            run_batch(run_dir, task_ids, build, client, protocol, rounds, concurrency, display)
    except RunDirError as error:  # a file that cannot be written (the message names it), or a failed worker
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    rows = [row for row in summary_rows(run_dir.records(), manifest["tasks"]) if row["task"] in task_ids]
    console.print(summary_table(manifest, rows))
    console.print(f"run directory: {run_dir.path}", markup=False)
    if any(row["status"] != "ok" for row in rows):
        raise typer.Exit(1)


runs_app = typer.Typer(help="Look at run directories written by `wsp run`.", no_args_is_help=True)
app.add_typer(runs_app, name="runs")


@runs_app.command("show")
def runs_show(run_dir: Path = typer.Argument(..., help="A run directory.")) -> None:
    """Print a run's summary table: one row per task."""
    from wspbench.harness.display import summary_table
    from wspbench.harness.runs import RunDir, RunDirError

    try:
        manifest, rows = RunDir(run_dir).summary()
    except (RunDirError, OSError, ValueError) as error:
        raise typer.BadParameter(f"{run_dir}: {error}") from None
    console.print(summary_table(manifest, rows))


@runs_app.command("compare")
def runs_compare(run_dirs: list[Path] = typer.Argument(..., help="Run directories to rank.")) -> None:
    """A leaderboard across runs: mean held-out score per model and protocol, best first."""
    from wspbench.harness.runs import RunDir, RunDirError
    from wspbench.harness.summary import leaderboard_rows

    try:
        runs = [RunDir(path).summary() for path in run_dirs]
    except (RunDirError, OSError, ValueError) as error:
        raise typer.BadParameter(str(error)) from None
    table = Table(title="Leaderboard (mean normalised held-out score)")
    for column in ("rank", "model", "protocol", "rounds", "episodes", "tasks ok", "mean score", "prompts"):
        table.add_column(column, justify="left" if column in ("model", "protocol", "prompts") else "right")
    for rank, row in enumerate(leaderboard_rows(runs), start=1):
        score = "-" if row["mean_test_score"] is None else f"{row['mean_test_score']:.4f}"
        table.add_row(str(rank), row["model"], row["protocol"], str(row["rounds"]), str(row["episodes"]),
                      f"{row['tasks_ok']}/{row['tasks']}", score,
                      ", ".join(sorted(set(row["prompt_versions"].values()))))
    console.print(table)


# --- exports, replays and reports (issue 7): thin wrappers over wspbench.export and wspbench.report ---

export_app = typer.Typer(help="Export tasks where people use them: Harbor task folders, JSONL/Parquet rows.",
                         no_args_is_help=True)
app.add_typer(export_app, name="export", help="Export tasks: Harbor task folders, JSONL/Parquet dataset rows.")


def _select_tasks(tasks: str, episodes: int):
    from wspbench.export.catalog import select

    try:
        return select(tasks, episodes)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--tasks") from None


@export_app.command("harbor")
def export_harbor_command(
    out: Path = typer.Argument(..., help="Folder for the task folders, registry.json and dataset.toml."),
    tasks: str = typer.Option("all", help="Tasks, as for `wsp run`: all, original/*, synth/ferry, superbeam, ..."),
    episodes: int = typer.Option(1000, min=1, help="Scoring episodes (SUPERBEAM: held-out levels, at most 20)."),
    wheel: Path = typer.Option(None, help="A built wspbench wheel for the verifier's image (default: build one)."),
    install: str = typer.Option("wheel", help="wheel (this project's wheel, copied in) or pypi (wspbench==version)."),
    base_image: str = typer.Option(None, help="Docker base image (default python:X.Y-slim; pin a digest here)."),
    cpus: int = typer.Option(4, min=1, help="CPUs per container (the verifier timeout is sized with it)."),
    memory_mb: int = typer.Option(4096, min=256, help="Memory per container."),
    measure: bool = typer.Option(False, "--measure", help="Size the timeouts by grading here instead of taking "
                                                          "them from the committed table (not reproducible)."),
    measure_episodes: int = typer.Option(2, min=1, help="Episodes graded per task with --measure."),
    name: str = typer.Option("wspbench", help="Dataset name in registry.json and dataset.toml."),
) -> None:
    """Write one Harbor task folder per task, plus registry.json and dataset.toml."""
    from wspbench.export.harbor import Resources, export_harbor

    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} exists and is not a folder", param_hint="OUT")
    if install not in ("wheel", "pypi"):
        raise typer.BadParameter("choose wheel or pypi", param_hint="--install")
    if wheel is not None and not wheel.is_file():
        raise typer.BadParameter(f"{wheel} is not a wheel file", param_hint="--wheel")
    infos = _select_tasks(tasks, episodes)
    try:
        folders = export_harbor(out, infos, wheel=wheel, install=install, resources=Resources(cpus, memory_mb),
                                measure=measure, measure_episodes=measure_episodes, name=name, base_image=base_image,
                                progress=lambda info: errors.print(f"exported {info.harbor_name}", markup=False))
    except OSError as error:  # the output cannot be written: a usage error
        errors.print(f"export failed: {error}", style="red", markup=False)
        raise typer.Exit(2) from None
    except (RuntimeError, ValueError) as error:  # the wheel could not be built
        errors.print(f"export failed: {error}", style="red", markup=False)
        raise typer.Exit(1) from None
    console.print(f"{len(folders)} Harbor tasks in {out} (registry.json, dataset.toml, README.md)", markup=False)


@export_app.command("jsonl")
def export_jsonl_command(
    out: Path = typer.Argument(..., callback=output_file, help="The .jsonl file to write (a .parquet copy is added "
                                                               "when pyarrow is installed)."),
    tasks: str = typer.Option("all", help="Tasks, as for `wsp run`."),
    episodes: int = typer.Option(1000, min=1, help="Scoring episodes (SUPERBEAM: held-out levels, at most 20)."),
) -> None:
    """Write one dataset row per task (prompt, system prompt, game, episodes, ...)."""
    from wspbench.export.jsonl import export_jsonl

    infos = _select_tasks(tasks, episodes)
    try:
        paths = export_jsonl(out, infos)
    except OSError as error:
        errors.print(f"cannot write {out}: {error.strerror or error}", markup=False)
        raise typer.Exit(2) from None
    for path in paths:
        console.print(f"wrote {path}", markup=False)


@app.command("replay")
def replay_command(
    task: str = typer.Argument(..., help="Task id: original/breakout, synth/ferry, superbeam, ..."),
    answer: str = typer.Argument(..., help="File with the reply (or weights JSON), or - for standard input."),
    out: Path = typer.Option(Path("replay.gif"), callback=gif_file, help="The GIF to write."),
    episodes: int = typer.Option(1, min=1, max=20, help="Episodes (SUPERBEAM: levels) to play one after another."),
    seed: int = typer.Option(None, min=0, max=10**9, help="First episode index (seeds 1729+e, 7919+e; default 0), or for SUPERBEAM "
                                        "the first level (default: the first held-out level)."),
    max_frames: int = typer.Option(1000, min=1, max=10_000, help="Frames kept per episode (the episode is still "
                                                                 "played out)."),
    frame_ms: int = typer.Option(80, min=10, max=60_000, help="Milliseconds per frame."),
) -> None:
    """Animated GIF of the network playing the graded episodes, with actions and probabilities."""
    from wspbench.export.catalog import task_info
    from wspbench.report.replay import replay

    try:
        task_info(task, 1)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="TASK") from None
    text = answer_or_exit(answer)
    with rejected_or_unwritable(out):
        summary = replay(task, text, out, episodes, seed, max_frames, frame_ms)
    table = Table(title=f"{task}: {out} ({summary.frames} frames, {summary.size[0]}x{summary.size[1]})")
    for column in ("episode", "return", "steps", "result"):
        table.add_column(column)
    for e in summary.episodes:
        table.add_row(e.label, f"{e.score:g}", str(e.length), e.result.get("outcome", ""))
    console.print(table)


@app.command("weights")
def weights_command(
    answer: str = typer.Argument(..., help="File with the reply (or weights JSON), or - for standard input."),
    out: Path = typer.Option(Path("weights.png"), callback=output_file, help="The PNG to write."),
    family: str = typer.Option(None, callback=check_family, help="minatar or superbeam (default: from the "
                                                                  "answer's format)."),
) -> None:
    """A picture of the weights: W1 as channel maps per hidden unit, the other tensors as heatmaps."""
    from wspbench.report.weights import weights_png

    text = answer_or_exit(answer)
    with rejected_or_unwritable(out):
        kind, size = weights_png(text, out, family)
    console.print(f"wrote {out} ({kind} network, {size[0]}x{size[1]})", markup=False)


@app.command("report")
def report_command(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories written by `wsp run`."),
    out: Path = typer.Option(Path("report"), help="Folder for index.html, report.md, charts and replays."),
    replays: bool = typer.Option(True, help="Write a replay GIF of each usable answer's first graded episode."),
    replay_frames: int = typer.Option(200, min=1, max=10_000, help="Frames kept per replay."),
    regrade: bool = typer.Option(True, help="Grade answers again when a record lacks per-episode returns "
                                            "(needed for the MinAtar confidence intervals)."),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes for grading again (default: all "
                                                                   "cores)."),
) -> None:
    """Static HTML and Markdown report with 95% intervals, parse failures, tokens, cost and replays."""
    from wspbench.report.report import build_report

    try:
        files = build_report(run_dirs, out, replays, replay_frames, regrade, workers)
    except (OSError, ValueError) as error:  # a missing or corrupt run directory, an unwritable folder
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    console.print(f"wrote {files[0]} and {len(files) - 1} more files in {out}", markup=False)


if __name__ == "__main__":
    app()
