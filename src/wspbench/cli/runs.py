"""`wsp run` and `wsp runs show/compare`."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from wspbench.cli.app import MAX_EPISODES, MAX_WORKERS, app, check_engine, console, errors, finite


@app.command()
def run(
    model: str = typer.Option(..., help="Model name at the endpoint, or an offline model: reference, zero."),
    tasks: str = typer.Option(
        "original/*", help="Tasks: all, original/*, synth/*, original/breakout, superbeam, comma-separated."
    ),
    protocol: str = typer.Option("one-shot", help="one-shot or feedback."),
    rounds: int = typer.Option(4, min=1, max=1000, help="Feedback rounds (feedback protocol)."),
    concurrency: int = typer.Option(4, min=1, max=1000, help="Tasks in flight at once."),
    episodes: int = typer.Option(
        1000,
        min=1,
        max=MAX_EPISODES,
        help="Held-out scoring episodes per task: its "
        "first N (MinAtar: episodes 0..N-1; SUPERBEAM: at most its 20 test levels).",
    ),
    train_episodes: int = typer.Option(
        100,
        min=1,
        max=MAX_EPISODES,
        help="Training episodes per feedback round "
        "(disjoint from the scoring episodes; SUPERBEAM: its 10 training levels).",
    ),
    out: Path = typer.Option(
        None, help="Run directory (default runs/<model>-<protocol>); re-running with the same directory resumes it."
    ),
    base_url: str = typer.Option(None, help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="Name of the environment variable with the API key."),
    timeout: float = typer.Option(600.0, min=0.001, callback=finite, help="Seconds to wait for one reply."),
    max_tries: int = typer.Option(4, min=1, max=100, help="Tries per request (rate limits, server errors, timeouts)."),
    backoff: float = typer.Option(
        2.0, min=0.0, max=3600.0, callback=finite, help="First retry wait in seconds (doubles each try)."
    ),
    max_tokens: int = typer.Option(None, min=1, help="max_tokens sent with each request (default: not sent)."),
    temperature: float = typer.Option(
        None, min=0.0, callback=finite, help="temperature sent with each request (default: not sent)."
    ),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes for grading (default: all cores)."),
    engine: str = typer.Option(
        "auto",
        callback=check_engine,
        help="auto (default: compiled for original games, fast for synthetic ones), compiled, fast or reference.",
    ),
) -> None:
    """Run a model on tasks (one-shot or feedback), grade its weights, and write a resumable run directory."""
    from wspbench.harness.clients import ModelError, make_client
    from wspbench.harness.display import RichDisplay, summary_table
    from wspbench.harness.record import RunConfig
    from wspbench.harness.runs import RunDir, RunDirError, build_manifest, run_batch
    from wspbench.harness.summary import summary_rows
    from wspbench.tasks import UnknownTask, select
    from wspbench.tasks.spec import PROTOCOLS

    if protocol not in PROTOCOLS:
        raise typer.BadParameter(f"choose one of {', '.join(PROTOCOLS)}", param_hint="--protocol")
    try:
        chosen = select(tasks)
    except UnknownTask as error:
        raise typer.BadParameter(str(error), param_hint="--tasks") from None
    try:
        client = make_client(
            model,
            base_url,
            api_key_env,
            timeout_s=timeout,
            max_tries=max_tries,
            backoff_s=backoff,
            max_tokens=max_tokens,
            temperature=temperature,
        )
    except ModelError as error:
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    about = client.describe()
    config = RunConfig(
        model=model,
        kind=about["kind"],
        endpoint=about["endpoint"],
        request_params=about["request_params"],
        protocol=protocol,
        rounds=rounds,
        episodes=episodes,
        train_episodes=train_episodes,
        engine=engine,
    )
    try:
        for task in chosen:
            task.scoring_episodes(config.episodes)  # a count a task cannot play is a usage error, before any cost
    except ValueError as error:
        raise typer.BadParameter(f"{task.id}: {error}", param_hint="--episodes") from None
    safe_model = "".join(c if c.isalnum() or c in "-_." else "_" for c in model)
    run_dir = RunDir(out or Path("runs") / f"{safe_model}-{protocol}")
    try:
        manifest = run_dir.open(build_manifest(config, chosen, about["api_key_env"]))
    except RunDirError as error:
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    for note in run_dir.notes:  # corrupt records or manifest that open() set aside
        errors.print(note, style="yellow", markup=False)
    ids = [task.id for task in chosen]
    done = sum(run_dir.finished(t) for t in ids)
    try:
        with RichDisplay(errors, len(ids), done) as display:
            run_batch(run_dir, chosen, client, config, concurrency, display, workers)
    except RunDirError as error:  # a file that cannot be written (the message names it), or a failed worker
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    rows = [row for row in summary_rows(run_dir.records(), manifest.tasks) if row["task"] in ids]
    console.print(summary_table(manifest, rows))
    console.print(f"run directory: {run_dir.path}", markup=False)
    if any(row["status"] != "ok" for row in rows):
        raise typer.Exit(1)


runs_app = typer.Typer(help="Look at run directories written by `wsp run`.", no_args_is_help=True)
app.add_typer(runs_app, name="runs")


def _read_runs(paths: list[Path]) -> list:
    """(name, manifest, summary rows) of each run directory; a usage error (exit 2) naming the file for
    anything that is not a run of this wspbench."""
    from wspbench.harness.runs import RunDir, RunDirError

    runs = []
    for path in paths:
        try:
            manifest, rows = RunDir(path).summary()
        except (RunDirError, OSError) as error:
            errors.print(f"{path}: {error}", style="red", markup=False)
            raise typer.Exit(2) from None
        runs.append((str(path), manifest, rows))
    return runs


@runs_app.command("show")
def runs_show(
    run_dir: Path = typer.Argument(..., help="A run directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the manifest and rows as JSON."),
) -> None:
    """Print a run's summary table: one row per task."""
    from wspbench.harness.display import summary_table
    from wspbench.harness.summary import mean_test_score

    ((_, manifest, rows),) = _read_runs([run_dir])
    if as_json:
        print(
            json.dumps(
                {
                    "run": str(run_dir),
                    "manifest": manifest.to_json(),
                    "rows": rows,
                    "mean_test_score": mean_test_score(rows),
                },
                indent=1,
            )
        )
        return
    console.print(summary_table(manifest, rows))


@runs_app.command("compare")
def runs_compare(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories to rank."),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
) -> None:
    """A leaderboard across runs: mean held-out score over the tasks finished in every run, best first.
    Runs of different suites are flagged."""
    from rich.table import Table
    from rich.text import Text

    from wspbench.harness.summary import comparison

    result = comparison(_read_runs(run_dirs))
    if as_json:
        print(json.dumps(result, indent=1))
        return
    table = Table(title="Leaderboard (mean normalised held-out score over the common tasks)")
    for column in ("rank", "run", "model", "protocol", "episodes", "ok", "mean", "suite"):
        table.add_column(column, justify="left" if column in ("run", "model", "protocol", "suite") else "right")
    for rank, row in enumerate(result["runs"], start=1):
        score = "-" if row["mean_test_score"] is None else f"{row['mean_test_score']:.4f}"
        protocol = row["protocol"] + (f" x{row['rounds']}" if row["rounds"] > 1 else "")
        suite = str(row["suite"].get("digest"))[:8] + ("" if row["same_suite"] else " differs!")
        table.add_row(
            str(rank),
            Text(Path(row["run"]).name),
            Text(row["model"]),
            protocol,
            str(row["episodes"]),
            f"{row['tasks_ok']}/{row['tasks']}",
            score,
            Text(suite, style=None if row["same_suite"] else "bold red"),
        )
    console.print(table)
    console.print(f"means over the {len(result['tasks'])} tasks finished in every run", markup=False)
    if result["tasks_left_out"]:
        console.print(
            f"left out (not finished in every run): {', '.join(result['tasks_left_out'])}", markup=False, style="yellow"
        )
    if not result["same_suite"]:
        errors.print(
            "warning: these runs used different suites (a prompt, game or episode set differs); their "
            "scores may not be comparable",
            style="yellow",
            markup=False,
        )
