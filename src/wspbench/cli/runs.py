"""`wsp run` and `wsp runs show/compare`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from wspbench.cli.app import (MAX_EPISODES, MAX_WORKERS, app,
                              check_engine, console, errors, finite)

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


