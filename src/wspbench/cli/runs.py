"""`wsp run` and `wsp runs show/compare`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

import typer

from wspbench.cli.app import (
    app,
    check_engine,
    chosen_protocol,
    connected_executor,
    console,
    errors,
    finite,
    option,
)
from wspbench.words import count

REASONING_EFFORTS = ("low", "medium", "high")
HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # an HTTP token (RFC 9110)
RESERVED_BODY_KEYS = ("model", "messages", "stream")  # the harness sets these; a reply must stay readable


def reasoning_effort_option(value: str | None) -> str | None:
    if value is not None and value not in REASONING_EFFORTS:
        raise typer.BadParameter(f"choose one of {', '.join(REASONING_EFFORTS)}")
    return value


def extra_body_option(value: str | None) -> dict | None:
    """A typer callback: --extra-body is a JSON object (a usage error otherwise)."""
    if value is None:
        return None
    try:
        body = json.loads(value, parse_constant=_no_constant)
    except (ValueError, RecursionError) as error:
        raise typer.BadParameter(f"not valid JSON ({str(error)[:100]})") from None
    if not isinstance(body, dict):
        raise typer.BadParameter(f"must be a JSON object, not {type(body).__name__}")
    reserved = [k for k in RESERVED_BODY_KEYS if k in body]
    if reserved:
        raise typer.BadParameter(f"{', '.join(reserved)} cannot be set here (the harness sets it)")
    return body


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")  # NaN never equals itself: a run could not resume


def base_url_option(value: str | None) -> str | None:
    """A typer callback: --base-url is an http(s) URL; the error never quotes it (it may hold a password)."""
    if value is None:
        return None
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - a ValueError for a port that is not a number
    except ValueError as error:
        raise typer.BadParameter(f"not a URL ({str(error).split(' as ')[0]})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise typer.BadParameter("give an http(s) URL, such as http://localhost:8000/v1")
    return value


def header_option(values: list[str] | None) -> list[str]:
    """A typer callback: each --header is NAME:VALUE (an HTTP header name; a value on one line). An error
    quotes a header's name, never its value (a credential)."""
    for item in values or []:
        if ":" not in item:
            raise typer.BadParameter("a header has no ':' (give NAME:VALUE)")
    for name, value in _headers(values).items():
        if not HEADER_NAME.fullmatch(name):
            raise typer.BadParameter(f"{name[:60]!r} is not an HTTP header name (give NAME:VALUE)")
        if any(c in value for c in "\r\n\0"):
            raise typer.BadParameter(f"the value of {name} must be one line")
    return values or []


def _headers(values: list[str] | None) -> dict[str, str]:
    """NAME:VALUE items as a dict (a later NAME wins), names and values stripped."""
    pairs = [item.partition(":") for item in values or []]
    return {name.strip(): value.strip() for name, _, value in pairs}


@app.command()
def run(
    model: str = typer.Option(
        ...,
        help="Model name at the endpoint, or an offline model: reference, zero, trained, reference-agent (for "
        "--protocol agent).",
    ),
    tasks: str = typer.Option(
        "original/*",
        help="Tasks, comma-separated: all, original/*, synth/*, superbeam, an id (original/breakout), or the "
        "reading families identify/*, identify-choice/*, repair/* (`wsp games` lists every id).",
    ),
    protocol: str = option("protocol"),
    rounds: int = option("rounds"),
    passes: int = option("passes"),
    handoff: int = option("handoff"),
    task_timeout: float = option("task_timeout", callback=finite),
    concurrency: int = option("concurrency"),
    episodes: int = option("episodes"),
    train_episodes: int = option("train_episodes"),
    out: Path = typer.Option(
        None, help="Run directory (default runs/<model>-<protocol>); re-running with the same directory resumes it."
    ),
    base_url: str = typer.Option(
        None, callback=base_url_option, help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."
    ),
    api_key_env: str = typer.Option("OPENAI_API_KEY", help="Name of the environment variable with the API key."),
    timeout: float = option("timeout", callback=finite),
    max_tries: int = option("max_tries"),
    backoff: float = option("backoff", callback=finite),
    max_tokens: int = option("max_tokens"),
    temperature: float = option("temperature", callback=finite),
    top_p: float = option("top_p", callback=finite),
    seed: int = option("seed"),
    samples: int = option("samples"),
    reasoning_effort: str = option("reasoning_effort", callback=reasoning_effort_option),
    extra_body: str = option(
        "extra_body",
        callback=extra_body_option,
        help="A JSON object merged into each request body, e.g. '{\"top_k\": 20}' (recorded in the run, the "
        "values of credential keys such as api_key, *token*, *secret*, *password* redacted).",
    ),
    headers: list[str] = option(
        "headers",
        "--header",
        callback=header_option,
        help="NAME:VALUE, an HTTP header sent with each request (repeatable); recorded in the run, every "
        "value redacted but those of content-type, accept, user-agent, referer, x-title and a few more.",
    ),
    limit: int = typer.Option(None, min=1, help="Run only the first N of the selected tasks."),
    max_prompt_tokens: int = typer.Option(
        None, min=1, help="Skip tasks whose opening prompt has more tokens (the identify prompts have about 100k)."
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print each task's prompts and token counts; call no model, write nothing."
    ),
    workers: int = option("workers"),
    engine: str = option("engine", callback=check_engine),
    executor: str = typer.Option(
        "local",
        help="Where grading episodes are played: local (this machine's processes) or ray (a Ray cluster: "
        "pip install 'wspbench[ray]'; docs/scale.md).",
    ),
    ray_address: str = typer.Option(
        None,
        help="With --executor ray: the cluster's HOST:PORT or auto (default: $RAY_ADDRESS, else a new local Ray).",
    ),
) -> None:
    """Run a model on tasks (one-shot, feedback or agent), grade its weights, and write a resumable run directory."""
    from wspbench.harness.settings import RunSettings

    given = {"rounds": rounds, "passes": passes, "handoff": handoff}
    given |= {"task_timeout": task_timeout, "concurrency": concurrency, "episodes": episodes}
    given |= {"train_episodes": train_episodes, "timeout": timeout, "max_tries": max_tries, "backoff": backoff}
    given |= {"max_tokens": max_tokens, "temperature": temperature, "top_p": top_p, "seed": seed}
    given |= {"samples": samples, "reasoning_effort": reasoning_effort, "extra_body": extra_body}
    given |= {"headers": _headers(headers), "workers": workers, "engine": engine}
    chosen_protocol(protocol)
    try:
        settings = RunSettings.of(protocol, **given)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    launch(model, tasks, settings, out, base_url, api_key_env, limit, max_prompt_tokens, dry_run, executor, ray_address)


def launch(
    model: str,
    tasks: str,
    settings,
    out: Path | None,
    base_url: str | None,
    api_key_env: str,
    limit: int | None,
    max_prompt_tokens: int | None,
    dry_run: bool,
    executor: str,
    ray_address: str | None,
) -> None:
    """`wsp run` once its options are parsed: the tasks chosen, the run started as `wspbench.evaluate` starts it
    (`harness/runs.py` `start_run`), then played with a progress display and summarised, every failure a message
    and an exit code."""
    from wspbench.harness.clients import ModelError
    from wspbench.harness.display import RichDisplay, audit_table, summary_table
    from wspbench.harness.runs import Display, RunDirError, run_batch, start_run
    from wspbench.harness.summary import run_scores, summary_rows
    from wspbench.tasks import UnknownTask, select

    protocol, samples = settings.protocol, settings.samples
    if protocol.kernel and not dry_run:  # no silent fallback to the host: refused before anything is paid for
        from wspbench.sandbox import SandboxUnavailable, check

        try:
            check()
        except SandboxUnavailable as error:
            errors.print(f"the agent protocol needs a sandbox: {error}", style="red", markup=False)
            raise typer.Exit(2) from None
    try:
        chosen = select(tasks)[:limit]
    except UnknownTask as error:
        raise typer.BadParameter(str(error), param_hint="--tasks") from None
    chosen = _fitting(chosen, protocol, max_prompt_tokens, model)
    if dry_run:  # before the client: a dry run needs no key and calls nothing
        _dry_run(chosen, protocol, model)
        return
    try:
        run_dir, manifest, client, config = start_run(model, chosen, settings, out, base_url, api_key_env)
    except ModelError as error:
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    except RunDirError as error:
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    except ValueError as error:  # a count a task cannot play is a usage error, before any cost
        raise typer.BadParameter(str(error), param_hint="--episodes") from None
    try:
        grader = connected_executor(executor, ray_address)
    except BaseException:
        run_dir.close()
        raise
    for note in run_dir.notes:  # its own default directory, corrupt records or a manifest set aside
        errors.print(note, style="yellow", markup=False)
    ids = [task.id for task in chosen]
    done = sum(run_dir.finished(t, k) for t in ids for k in range(samples))
    unit = ("task", "tasks") if samples == 1 else ("task reply", "task replies")
    if 0 < done < len(ids) * samples:  # resuming: say what is kept
        errors.print(
            f"resuming {run_dir.path}: {done} of {count(len(ids) * samples, *unit)} already done; running the other "
            f"{len(ids) * samples - done}",
            markup=False,
        )
    concurrency, workers = settings.concurrency, settings.workers
    try:
        if done == len(ids) * samples:
            errors.print(
                f"all {count(len(ids), 'task')} already finished in {run_dir.path}; nothing to run",
                style="green",
                markup=False,
            )
            run_batch(run_dir, chosen, client, config, concurrency, Display(), workers, grader)  # releases the lock
        else:
            with RichDisplay(errors, len(ids) * samples, done) as display:
                run_batch(run_dir, chosen, client, config, concurrency, display, workers, grader)
    except RunDirError as error:  # a file that cannot be written (the message names it), or a failed worker
        errors.print(str(error), style="red", markup=False)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:  # workers are daemon threads: what they finished is on disk, the rest resumes
        finished = sum(run_dir.finished(t, k) for t in ids for k in range(samples))
        errors.print(
            f"interrupted: {finished} of {count(len(ids) * samples, *unit)} "
            f"finished, their records are in {run_dir.path}; run the same command to resume",
            style="yellow",
            markup=False,
        )
        raise typer.Exit(130) from None
    finally:
        grader.close()  # stops a local Ray instance it started; a cluster only loses this driver
    records = run_dir.records()
    rows = [row for row in summary_rows(records, manifest) if row["task"] in ids]
    summarised, scores = run_dir.summarised or (None, None)
    if summarised is None or not summarised <= set(ids):  # the run directory holds tasks this command did not run
        scores = run_scores(manifest, records, set(ids))
    console.print(summary_table(manifest, rows, scores))
    if config.protocol.kernel:
        console.print(audit_table([record for record in records if record.task in ids]))
    console.print(f"run directory: {run_dir.path}", markup=False)
    if any(row["status"] not in ("ok", "time limit") for row in rows):  # a task that was not graded
        raise typer.Exit(1)


def _fitting(chosen: list, protocol, max_prompt_tokens: int | None, model: str) -> list:
    """The chosen tasks that can run under this protocol and whose prompts fit; says which were skipped and why,
    and makes it a usage error when none is left."""
    from wspbench.harness.runs import runnable

    chosen, skipped = runnable(chosen, protocol)
    if skipped:
        errors.print(
            f"skipped {count(len(skipped), 'task')} that have no {protocol.name} protocol: {_ids(skipped)}",
            markup=False,
        )
    if max_prompt_tokens is not None and chosen:
        from wspbench.harness.tokens import token_counter

        tokens, how, note = token_counter(model)
        if note:
            errors.print(note, style="yellow", markup=False)
        sizes = {task.id: sum(tokens(m["content"]) for m in task.messages(protocol)) for task in chosen}
        over = [task_id for task_id, size in sizes.items() if size > max_prompt_tokens]
        if over:
            errors.print(
                f"skipped {count(len(over), 'task')} whose prompts have more than {max_prompt_tokens:,} tokens "
                f"({how}): {_ids(over)}",
                markup=False,
            )
            chosen = [task for task in chosen if task.id not in over]
    if not chosen:
        raise typer.BadParameter("no selected task is left to run", param_hint="--tasks")
    return chosen


def _ids(ids: list[str], shown: int = 6) -> str:
    return ", ".join(ids[:shown]) + (f" and {len(ids) - shown} more" if len(ids) > shown else "")


def _dry_run(chosen: list, protocol, model: str) -> None:
    """Print each task's opening prompts (system and user) with their token counts."""
    from rich.rule import Rule

    from wspbench.harness.tokens import token_counter
    from wspbench.tasks.spec import prompt_hash

    counter, how, note = token_counter(model)
    if note:
        errors.print(note, style="yellow", markup=False)
    total = 0
    for task in chosen:
        messages = task.messages(protocol)
        console.print(Rule(f"{task.id} · prompt {task.prompt_version} · sha256 {prompt_hash(messages)[:12]}"))
        for message in messages:
            tokens = counter(message["content"])
            total += tokens
            console.print(f"--- {message['role']} ({tokens:,} tokens) ---", style="bold", markup=False)
            console.print(message["content"], markup=False, highlight=False, soft_wrap=True)
    later = " (later rounds add the model's replies and what it is told)" if "rounds" in protocol.settings else ""
    console.print(
        f"dry run: {count(len(chosen), 'task')}, {total:,} prompt tokens in all{later}; tokens: {how}; "
        "no model was called and nothing was written",
        markup=False,
    )


runs_app = typer.Typer(help="Look at run directories written by `wsp run`.", no_args_is_help=True)
app.add_typer(runs_app, name="runs")


def _read_runs(paths: list[Path]) -> list:
    """(name, manifest, records) of each run directory; a usage error (exit 2) naming the file for
    anything that is not a run of this wspbench; a record that cannot be used is skipped with a notice."""
    from wspbench.harness.runs import RunDir, RunDirError

    runs = []
    for path in paths:
        run_dir = RunDir(path)
        try:
            manifest, records = run_dir.read()
        except (RunDirError, OSError) as error:
            errors.print(f"{path}: {error}", style="red", markup=False)
            raise typer.Exit(2) from None
        for note in run_dir.notes:  # records that cannot be used: skipped, named
            errors.print(note, style="yellow", markup=False)
        runs.append((str(path), manifest, records))
    return runs


@runs_app.command("show")
def runs_show(
    run_dir: Path = typer.Argument(..., help="A run directory."),
    as_json: bool = typer.Option(False, "--json", help="Print the manifest and rows as JSON."),
) -> None:
    """Print a run's summary table: one row per task; for an agent run, then every block it ran (turn, kind,
    status, seconds, passes)."""
    from wspbench.harness.display import audit_table, summary_table
    from wspbench.harness.summary import audit_rows, run_scores, summary_rows

    ((_, manifest, records),) = _read_runs([run_dir])
    rows, scores = summary_rows(records, manifest), run_scores(manifest, records)
    if as_json:
        print(
            json.dumps(
                {
                    "run": str(run_dir),
                    "manifest": manifest.to_json(),
                    "rows": rows,
                    "blocks": audit_rows(records) if manifest.config.protocol.kernel else None,
                    "writing": scores["writing"],
                    "reading": scores["reading"],
                    "scores": scores,
                },
                indent=1,
            )
        )
        return
    console.print(summary_table(manifest, rows, scores))
    if manifest.config.protocol.kernel:
        console.print(audit_table(records))


@runs_app.command("compare")
def runs_compare(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories to rank."),
    by: str = typer.Option("writing", "--by", help="Rank by the writing or the reading score."),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as JSON."),
) -> None:
    """A leaderboard across runs, over the tasks finished in every run: per family each run's mean held-out
    score with its 95% interval, then the runs ranked by their writing score (`--by reading`: the reading score),
    each family-weighted (each family counts once), with the paired difference from the next run. Every setting
    the runs differ in (episodes, protocol, rounds, suite, tasks) is a warning line first; a run scored on another
    number of episodes than the first is not ranked."""
    from rich.table import Table
    from rich.text import Text

    from wspbench.harness.summary import SKILLS, comparison, interval_text

    if by not in SKILLS:
        errors.print(f"--by must be one of {', '.join(SKILLS)}, not {by!r}", style="red", markup=False)
        raise typer.Exit(2)
    result = comparison(_read_runs(run_dirs), by)
    if as_json:
        print(json.dumps(result, indent=1))
        return
    for warning in result["warnings"]:
        errors.print(warning, style="yellow", markup=False)
    console.print(_family_table(result))
    skills = [skill for skill in SKILLS if any(row.get(skill) for row in result["runs"])]
    title = f"Leaderboard by {by} score (family-weighted over the shared tasks: each family counts once)"
    table = Table(title=title)
    columns = ("rank", "run", "model", "protocol", "episodes", "ok", *skills, "vs next", "suite")
    for column in columns:
        table.add_column(column, justify="left" if column in ("run", "model", "protocol", "suite") else "right")
    ranked = [row for row in result["runs"] if row["rank"] is not None]
    next_pair = {pair["a"]: pair for pair in result["pairs"] if pair["skill"] == by and _adjacent(ranked, pair)}
    for row in result["runs"]:
        pair = next_pair.get(row["run"])
        versus = "-" if pair is None else _difference(pair)
        protocol = row["protocol"] + (f" x{row['rounds']}" if row["rounds"] > 1 else "")
        suite = str(row["suite"].get("digest"))[:8] + ("" if row["same_suite"] else " differs!")
        scores = [
            "-" if not row.get(skill) else f"{row[skill]['mean_test_score']:.4f} ({interval_text(row[skill]['ci95'])})"
            for skill in skills
        ]
        table.add_row(
            "-" if row["rank"] is None else str(row["rank"]),
            Text(Path(row["run"]).name),
            Text(row["model"]),
            protocol,
            str(row["episodes"]),
            f"{row['tasks_ok']}/{row['tasks']}",
            *scores,
            versus,
            Text(suite, style=None if row["same_suite"] else "bold red"),
        )
    console.print(table)
    from wspbench.tasks.registry import summary

    unranked, shared = len(ranked) < len(result["runs"]), result["shared_tasks"]
    console.print(
        f"scores over the tasks finished in every run ({summary(shared) if shared else 'none'}); "
        f"'vs next' is the paired difference of the {by} score from the run ranked below, with its 95% interval over "
        "tasks and episodes"
        + ("; rank '-': scored on another number of episodes than the first run, so not ranked" if unranked else ""),
        markup=False,
    )
    if result["tasks_left_out"]:
        console.print(
            f"left out (not finished in every run): {summary(result['tasks_left_out'])}", markup=False, style="yellow"
        )


def _family_table(result: dict):
    """Per family, each run's mean over the shared tasks with its 95% interval: what the leaderboard summarises."""
    from rich.table import Table
    from rich.text import Text

    from wspbench.harness.summary import SKILLS, interval_text

    table = Table(title="Per family (mean normalised held-out score over the shared tasks, 95% interval)")
    table.add_column("family")
    table.add_column("skill")
    table.add_column("tasks", justify="right")
    for row in result["runs"]:
        table.add_column(Text(Path(row["run"]).name), justify="right")
    for skill in SKILLS:
        by_run = [{f["family"]: f for f in (row.get(skill) or {}).get("families", [])} for row in result["runs"]]
        for name in dict.fromkeys(name for scores in by_run for name in scores):
            found = [scores.get(name) for scores in by_run]
            tasks = next(f["tasks"] for f in found if f)
            cells = ["-" if f is None else f"{f['mean_test_score']:.4f} ({interval_text(f['ci95'])})" for f in found]
            table.add_row(name, skill, str(tasks), *cells)
    return table


def _adjacent(runs: list[dict], pair: dict) -> bool:
    names = [row["run"] for row in runs]
    return pair["a"] in names and pair["b"] in names and names.index(pair["b"]) == names.index(pair["a"]) + 1


def _difference(pair: dict) -> str:
    low, high = pair["ci95"]
    return f"{pair['mean_difference']:+.4f} ({low:+.4f} to {high:+.4f})"
