"""`wsp grade`, `wsp games` (and `wsp games generate`), `wsp suite` and `wsp verify`: every task through the registry
(wspbench/tasks/registry.py), so each command works alike for every family.

The registry and the games are imported inside the commands: `wsp --help` imports this module.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import typer

from wspbench import words
from wspbench.cli.app import (
    InputTooLarge,
    app,
    check_engine,
    chosen_protocol,
    connected_executor,
    console,
    errors,
    option,
    progress_bar,
    read_answer,
)
from wspbench.evaluation import Grading
from wspbench.harness.settings import MAX_WORKERS
from wspbench.protocols import SETTINGS

log = logging.getLogger(__name__)


def named_task(task_id: str | None, game: str | None, source: str | None):
    """The task named by TASK, or by --game (and --source, else inferred: game names are unique).
    A usage error (exit 2) that says what to write instead when there is no such task."""
    from wspbench.tasks import UnknownTask, get_task

    if game is None:
        try:
            return get_task(task_id)
        except UnknownTask as error:
            raise typer.BadParameter(str(error), param_hint="TASK") from None
    try:
        task = get_task(game)
    except UnknownTask as error:
        raise typer.BadParameter(str(error), param_hint="--game") from None
    if source is not None and task.id != f"{source}/{game}":
        raise typer.BadParameter(
            f"there is no task {f'{source}/{game}'!r:.80}; {game} is {task.id}", param_hint="--game/--source"
        )
    return task


EPISODES_FOR = "episodes for ± 0.01 (95%)"  # how many episodes the normalised score's 95% interval needs to be ± 0.01


def episodes_needed(score, available: int) -> str:
    """The "episodes for ± 0.01" cell (the half-width of the normalised score's 95% interval): a count the task
    has, or why there is none."""
    needed = score.episodes_for(0.01, available)
    if needed is not None:
        return f"{needed:,}"
    if len(score.episodes) < 2:
        return "n/a (one episode shows no spread)"
    return f"n/a (more than the {available:,} the task has)"


def grade_table(name: str, score, available: int):
    """One graded answer (`Score`) as a two-column table: the facts its JSON holds, scalars only; `available`:
    how many scoring episodes the task has."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=name)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_row("task", score.task)
    table.add_row(
        "episodes",
        f"{len(score.episodes)}" + (f" ({score.episodes[0]}..{score.episodes[-1]})" if score.episodes else ""),
    )
    table.add_row("normalised score", f"{score.normalized:.5f}")
    if score.error is not None:
        table.add_row("error", Text(score.error, style="red"))
        return table
    low, high = score.interval()
    rows = [
        ("unclipped (raw / cap)", f"{score.unclipped:.5f}" + (" (above the cap)" if score.above_cap else "")),
        ("95% interval", f"{low:.4f} .. {high:.4f} (± {score.half_width():.4f})"),
        (EPISODES_FOR, episodes_needed(score, available)),
        ("raw score (mean value)", f"{score.raw:.3f}"),
        ("score cap", f"{score.score_cap:g}"),
        ("mean episode length", f"{score.mean_length:.2f}"),
    ]
    rows += [
        (key.replace("_", " "), f"{value:g}" if isinstance(value, float) else str(value))
        for key, value in score.metadata.items()
        if isinstance(value, (int, float, str))
    ]
    rows.append(("seconds", f"{score.seconds:.2f}"))
    for label, value in rows:
        table.add_row(label, value)
    return table


@app.command()
def grade(
    task_id: str = typer.Argument(
        None,
        metavar="TASK",
        show_default=False,
        help="Task id (original/breakout, synth/ferry, superbeam) or game name; "
        "see `wsp games`. Leave out with --game.",
    ),
    answer: str = typer.Argument(
        None, metavar="ANSWER", show_default=False, help="File with the model's reply, or - for standard input."
    ),
    game: str = typer.Option(None, "--game", "-g", help="Instead of TASK: a game name, e.g. breakout."),
    source: str = typer.Option(
        None, help="With --game: the task's source (original, synth); default: inferred (game names are unique)."
    ),
    episodes: int = typer.Option(
        None,
        min=1,
        max=SETTINGS["episodes"].high,
        show_default=False,
        help="Scoring episodes (SUPERBEAM: held-out levels) to play, the first N; "
        "default: the task's own (`wsp games`).",
    ),
    workers: int = typer.Option(None, min=1, max=MAX_WORKERS, help="Processes to use (default: all cores)."),
    engine: str = typer.Option(
        "auto",
        callback=check_engine,
        help="auto (default: the fastest exact engine for the game), compiled, fast or reference.",
    ),
    executor: str = typer.Option(
        "local",
        help="Where the episodes are played: local (this machine's processes) or ray (a Ray cluster: "
        "pip install 'wspbench[ray]'; docs/scale.md).",
    ),
    ray_address: str = typer.Option(
        None,
        help="With --executor ray: the cluster's HOST:PORT or auto (default: $RAY_ADDRESS, else a new local Ray).",
    ),
    held_out_key: str = typer.Option(
        None,
        help="Play the held-out episodes this key draws (a feedback or agent run's record publishes its task's "
        "`held_out_key`), so as to check that grade; default: the task's fixed scoring episodes.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON (the same for every task)."),
) -> None:
    """Grade an answer (a model's reply) on any task: `wsp grade TASK ANSWER` or `wsp grade --game G ANSWER`.

    Exit codes: 0 graded, 1 answer rejected, 2 usage or infrastructure error (unknown task, unreadable file, a
    Ray cluster that cannot be reached or fails)."""
    if source is not None and game is None:
        raise typer.BadParameter(
            "--source needs --game (or name the task: `wsp grade synth/ferry ANSWER`)", param_hint="--source"
        )
    if game is not None:
        if answer is not None:
            raise typer.BadParameter("give TASK or --game, not both", param_hint="TASK")
        task_id, answer = None, task_id
    if answer is None:
        raise typer.BadParameter("missing: the answer file (or - for standard input)", param_hint="ANSWER")
    task = named_task(task_id, game, source)
    from wspbench.evaluation.executors import ExecutorError, use_executor

    chosen = connected_executor(executor, ray_address)
    if held_out_key is not None:
        from wspbench.tasks.held_out import checked

        try:
            checked(held_out_key)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint="--held-out-key") from None
        if task.secret_episodes is None:
            raise typer.BadParameter(f"{task.id} has no drawn held-out episodes", param_hint="--held-out-key")
    try:
        scoring = task.held_out_episodes(episodes, held_out_key)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--episodes") from None
    try:
        text = read_answer(answer, task)
    except InputTooLarge as error:
        score = task.rejected(f"{error}: an answer has at most {task.max_answer_chars:,} characters")
    else:
        log.info(
            "grading %s on %d episodes (%s..%s), engine %s", task.id, len(scoring), scoring[0], scoring[-1], engine
        )
        try:
            with chosen, use_executor(chosen), progress_bar(task.id, len(scoring)) as advance:
                score = task.grade(text, scoring, Grading(engine=engine, workers=workers, progress=advance))
        except ExecutorError as error:  # an infrastructure failure, not a rejected answer
            errors.print(str(error), style="red", markup=False)
            raise typer.Exit(2) from None
        log.info("graded in %.2f s", score.seconds)
    if as_json:
        print(json.dumps(score.to_json()))
    else:
        console.print(grade_table("stdin" if answer == "-" else answer, score, task.max_episodes))
    if score.error is not None:
        raise typer.Exit(1)


def game_rows(selector: str = "all") -> list[dict]:
    """What `wsp games` shows of each task `selector` names (as `wsp run --tasks`): the facts its prompt and its
    grade use, and the zero network's and the reference's scores on the task's scoring episodes (what `wsp grade`
    plays by default and `wsp baselines` shows), else, where those are not measured, the calibration's."""
    from wspbench.baselines import measured
    from wspbench.tasks import select

    baselines = measured.load().get("tasks", {})
    rows = []
    for task in select(selector):
        calibration = task.calibration()
        entry = baselines.get(task.id)
        if entry and {"zero", "reference"} <= entry.keys() and measured.is_current(task.id, entry):
            calibration = {"zero": entry["zero"]["score"], "reference": entry["reference"]["score"]}
        rows.append(
            {
                "id": task.id,
                "family": task.family,
                "game": task.facts.name,
                "score_cap": task.facts.score_cap,
                "max_steps": task.facts.max_steps,
                "default_episodes": task.default_episodes,
                "zero": calibration.get("zero"),
                "reference": calibration.get("reference"),
                "optimal": task.optimal(),
                "description": task.facts.description,
            }
        )
    return rows


games_app = typer.Typer(no_args_is_help=False, invoke_without_command=True)
app.add_typer(games_app, name="games", help="List every task; `wsp games generate` makes a private set of games.")


@games_app.callback()
def games(
    context: typer.Context,
    tasks: str = typer.Option(
        "all", help="Which tasks, as `wsp run --tasks` selects them: gen, 'repair/*', original/breakout,synth/ferry."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the tasks as JSON."),
) -> None:
    """List the tasks (every one, or those --tasks selects): id, family, score cap, steps per episode at most,
    the zero network's and the reference's normalised scores, description."""
    from wspbench.tasks import UnknownTask

    if context.invoked_subcommand is not None:
        return
    try:
        rows = game_rows(tasks)
    except UnknownTask as error:
        raise typer.BadParameter(str(error), param_hint="--tasks") from None
    if as_json:
        print(json.dumps(rows))
        return
    console.print(games_table(rows, console.width if console.is_terminal else None))


GAMES_CAPTION = (
    "cap: the raw score (mean return) that normalises to 1; steps: an episode's longest; zero: the all-zero network's "
    "normalised score; reference: the shipped program's, for a generated game its trained network's; both on the "
    "task's scoring episodes, as `wsp grade` plays them by default and `wsp baselines` shows them; optimal: the "
    "hindsight bound's mean raw return on calibration episodes (no policy does better; docs/validity.md); - not "
    "measured"
)


def games_table(rows: list[dict], width: int | None = None):
    """`wsp games` as a table whose every cell is whole on one line: ids, families and numbers never cut. On a
    terminal too narrow for the descriptions (`width`), they are left out (and then the families, which the ids
    begin with); `--json` has everything."""
    from rich import box
    from rich.table import Table

    cells = [
        {
            "task": row["id"],
            "family": row["family"],
            "cap": f"{row['score_cap']:g}",
            "steps": f"{row['max_steps']:,}",
            "zero": "-" if row["zero"] is None else f"{row['zero']:.3f}",
            "reference": "-" if row["reference"] is None else f"{row['reference']:.3f}",
            "optimal": "-" if row["optimal"] is None else f"{row['optimal']:.4g}",
            "description": row["description"],
        }
        for row in rows
    ]
    widths = {name: max([len(name), *(len(cell[name]) for cell in cells)]) for name in (cells[0] if cells else {})}
    shown = list(widths)
    for dropped in ("description", "family"):
        needed = (
            sum(widths[name] for name in shown if name != "description")
            + 3 * len(shown)
            + 1
            + 30 * ("description" in shown)
        )
        if width is not None and needed > width and dropped in shown:
            shown.remove(dropped)
    caption = GAMES_CAPTION + ("" if "description" in shown else "; descriptions: a wider terminal, or --json")
    table = Table(
        caption=caption, caption_justify="left", box=box.SQUARE if width is None or width >= 100 else box.SIMPLE_HEAD
    )
    for name in shown:
        wraps = name == "description"
        table.add_column(name, justify="left" if name in ("task", "family", "description") else "right",
                         no_wrap=not wraps, min_width=None if wraps else widths[name])  # fmt: skip
    for cell in cells:
        table.add_row(*(cell[name] for name in shown))
    return table


@app.command()
def prompt(
    task_id: str = typer.Argument(..., metavar="TASK", help="Task id or game name (see `wsp games`)."),
    protocol: str = option("protocol"),
    rounds: int = option("rounds"),
    passes: int = option("passes"),
    handoff: int = option("handoff"),
    episodes: int = option("episodes"),
    train_episodes: int = option("train_episodes"),
    as_json: bool = typer.Option(False, "--json", help="Print the messages list as JSON."),
) -> None:
    """Print the exact opening messages a model gets for a task under `wsp run` with these options (the
    harness's own call; nothing is sent or written)."""
    from wspbench import protocols

    task = named_task(task_id, None, None)
    chosen_protocol(protocol)
    if protocol not in task.protocols:
        raise typer.BadParameter(
            f"{task.id} runs under {', '.join(task.protocols)}, not {protocol!r:.40}", param_hint="--protocol"
        )
    given = {"rounds": rounds, "passes": passes, "handoff": handoff, "train_episodes": train_episodes}
    messages = task.messages(protocols.make(protocol, episodes=episodes, **given))
    if as_json:
        print(json.dumps(messages))
        return
    for message in messages:  # plain print: the text exactly, no markup or emoji codes read by rich
        print(f"--- {message['role']} ---")
        print(message["content"])


@app.command()
def baselines(as_json: bool = typer.Option(False, "--json", help="Print the baselines as JSON.")) -> None:
    """What simple players score on each task: the zero network, the best constant action, random networks, a
    weight-space search, a network trained by PPO, the reference program and the scripted player
    (benchmarks/baselines.py measured them; docs/baselines.md). A task where one of them scores above the cap is
    marked *: its normalised 1.0 hides by how much (`above_cap` in --json, each with its raw / cap)."""
    from rich.table import Table

    from wspbench.baselines import measured

    data = measured.load()
    entries = data.get("tasks", {})
    current = {task_id: measured.is_current(task_id, entry) for task_id, entry in entries.items()}
    above = {task_id: measured.above_cap(task_id, entry) for task_id, entry in entries.items() if current[task_id]}
    if as_json:
        tasks = {
            task_id: {**entry, "current": current[task_id], "above_cap": above.get(task_id, {})}
            for task_id, entry in entries.items()
        }
        print(json.dumps({**data, "tasks": tasks}))
        return
    if not data:
        errors.print("no baselines measured yet: run python benchmarks/baselines.py", style="yellow", markup=False)
        return
    table = Table(
        caption=f"normalised scores on each task's scoring episodes; constant: the best action's number in "
        f"brackets; random: {measured.RANDOM_NETWORKS} networks; cma: CMA-ES (SUPERBEAM); public: a generated "
        "game's best public program played unchanged (its name in brackets); generic: one program for every "
        "generated game (docs/generated.md)"
        if data["tasks"]
        else None
    )
    columns = ("task", "zero", "constant", "random mean", "random best", "search", "cma", "public", "generic",
               "trained", "reference", "scripted")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "task" else "right", no_wrap=column == "task")
    for task_id, entry in data["tasks"].items():
        table.add_row(
            task_id + (" *" if above.get(task_id) else "") if current[task_id] else f"{task_id} (stale)",
            f"{entry['zero']['score']:.4f}",
            f"{entry['constant']['score']:.4f} ({entry['constant']['action']})",
            f"{entry['random']['score']:.4f}" if "random" in entry else "-",
            f"{entry['random']['best']:.4f}" if "random" in entry else "-",
            f"{entry['search']['score']:.4f}" if "search" in entry else "-",
            f"{entry['cma']['score']:.4f}" if "cma" in entry else "-",
            f"{entry['public']['score']:.4f} ({entry['public']['program']})" if "public" in entry else "-",
            f"{entry['generic']['score']:.4f}" if "generic" in entry else "-",
            f"{entry['trained']['score']:.4f}" if "trained" in entry else "-",
            f"{entry['reference']['score']:.4f}",
            f"{entry['scripted']['score']:.4f} (hidden state)" if "scripted" in entry else "-",
        )
    console.print(table)
    flagged = {task_id: kinds for task_id, kinds in above.items() if kinds}
    if flagged:
        console.print(
            f"* {words.count(len(flagged), 'task')} with a baseline above the cap, which its normalised 1.0 hides "
            "(unclipped, raw / cap): "
            + ", ".join(
                f"{task_id} {kind} {value:.4f}" for task_id, kinds in flagged.items() for kind, value in kinds.items()
            ),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    families = Table(caption="each baseline's mean over a family's current tasks (in brackets: how many have it)")
    for column in ("family", "tasks", *measured.KINDS):
        families.add_column(column, justify="left" if column == "family" else "right")
    for family, (count, means) in measured.family_means(data["tasks"]).items():
        cells = [f"{means[k][0]:.4f}" + (f" ({means[k][1]})" if means[k][1] < count else "") if k in means else "-"
                 for k in measured.KINDS]  # fmt: skip
        families.add_row(family, str(count), *cells)
    console.print(families)
    reading = reading_floors_table(data.get("reading", {}).get("tasks", {}))
    if reading is not None:
        console.print(reading)
    stale = [task_id for task_id, ok in current.items() if not ok]
    if stale:
        errors.print(
            f"warning: {len(stale)} of these tasks changed since their baselines were measured (stale); run "
            "python benchmarks/baselines.py again",
            style="yellow",
            markup=False,
        )


def reading_floors_table(entries: dict):
    """The reading families' floors (benchmarks/reading_floors.py): per family, each solver's mean score over
    the tasks measured as they are now. None when none were measured."""
    from rich.table import Table

    from wspbench.baselines import measured

    families = measured.reading_floors(entries)
    if not families:
        return None
    table = Table(caption="reading tasks: mean score of solvers that do not read what the network does "
                  "(benchmarks/reading_floors.py; nearest uses the shipped networks, initial the public code "
                  "and seeds; docs/reading.md)")  # fmt: skip
    for column in ("family", "tasks", "floors"):
        table.add_column(column, justify="right" if column == "tasks" else "left")
    for family, (tasks, means) in families.items():
        table.add_row(family, str(tasks), ", ".join(f"{name} {mean:.3f}" for name, mean in means.items()))
    return table


@app.command()
def suite(as_json: bool = typer.Option(False, "--json", help="Print the suite as JSON.")) -> None:
    """Print the suite's name, version, task count and digest (runs compare only within one suite).

    The digest covers every built-in task's prompt, game source, cap, calibration and episodes; plugin tasks
    are listed apart, outside it."""
    from wspbench.tasks import suite as current
    from wspbench.tasks.registry import plugin_tasks, summary

    found, plugins = current(), [task.id for task in plugin_tasks()]
    if as_json:
        print(json.dumps({**found.to_json(), **({"plugin_tasks": plugins} if plugins else {})}))
        return
    console.print(
        f"{found.name} {found.version}: {words.count(found.tasks, 'task')}, digest {found.digest}"
        + (f"; plugins, outside the suite and its digest: {summary(plugins)}" if plugins else ""),
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


@app.command()
def warmup() -> None:
    """Build the compiled game engine now (about 50 s, once per machine and version), so that the first
    compiled grade (every MinAtar game, and the trainer) does not wait for it."""
    import time

    from wspbench.evaluation.compiled.batch import warm_up
    from wspbench.evaluation.compiled.engine import needs_compiling

    compiling = needs_compiling()
    started = time.perf_counter()
    warm_up()  # prints the compiling notice on stderr when it compiles
    seconds = time.perf_counter() - started
    console.print(
        f"the game engine is ready ({'compiled' if compiling else 'loaded from the cache'} in {seconds:.1f} s)",
        markup=False,
        highlight=False,
    )


@app.command()
def verify(
    trajectory: Path = typer.Option(
        None, help="Trajectory JSON (default: /logs/trajectory.json, else /logs/agent/trajectory.json)."
    ),
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


@games_app.command()
def generate(
    out: Path = typer.Option(..., "--out", help="an empty or absent folder for the set (or a stopped build's)"),
    key: str = typer.Option(
        None, "--key", envvar="WSP_GAMES_KEY", help="the secret the games are drawn from (or WSP_GAMES_KEY)"
    ),
    count: int = typer.Option(5, "--count", min=1, max=1000, help="kept games wanted"),
    name: str = typer.Option("private", help="the set's name: its task ids start with it"),
    steps: int = typer.Option(None, min=8192, help="PPO environment steps per game [default: the public family's]"),
) -> None:
    """Generate, calibrate and write a private family of games into OUT, drawn from a key.

    Seeds are drawn from the key until COUNT games are kept (at most 4 x COUNT tried); each is generated
    (minatar_synth/generator.py), measured against its trivial players, trained by PPO (5M steps, as the public
    family) and kept only if the trained network clearly beats them, which sets its cap, and if no public program
    (a hand-written game's reference or a public generated game's network) played unchanged takes more than half
    that cap (wspbench/baselines/generated.py states the rules). Cost: about 100 s per seed on a free core, most of
    it training (docs/generated.md). A build that keeps no game exits 1 with each seed's reason. A stopped build
    resumes from OUT. The key is not written (prefer WSP_GAMES_KEY to --key: a command line is visible to other
    users). Load the set with WSP_PRIVATE_SETS=OUT (os.pathsep between several): its tasks are <name>.gen/<hex> in
    every command, outside the public suite.
    """
    from dataclasses import replace

    from wspbench.baselines.generated import BUDGET, SEEDS_PER_GAME, build

    if not key:
        errors.print("wsp games generate needs --key (or WSP_GAMES_KEY): the games must not be derivable from the code")
        raise typer.Exit(2)

    def done(line: str) -> None:
        console.print(line, markup=False)
        advance(1)

    try:
        label = f"generating, training and calibrating games until {count} are kept"
        with progress_bar(label, SEEDS_PER_GAME * count) as advance:
            kept = build(key, out, name, count, replace(BUDGET, steps=steps or BUDGET.steps), done)
    except ValueError as error:
        errors.print(f"wsp games generate: {error}", markup=False)
        raise typer.Exit(2) from None
    if not kept:  # nothing to load: say why, and what would change it
        from wspbench.baselines.generated import rejections

        errors.print(f"wsp games generate kept no game in {out}; each seed tried was rejected:", markup=False)
        for line in rejections(out):
            errors.print(f"  {line}", markup=False)
        errors.print(
            f"a game is kept when its trained network clearly beats its trivial players: train longer (--steps, now "
            f"{steps:,}) or let it try more seeds (--count: at most {SEEDS_PER_GAME} seeds per game wanted, "
            f"{SEEDS_PER_GAME * count} now); the same command resumes from the seeds already measured",
            markup=False,
        )
        raise typer.Exit(1)
    console.print(f"{words.count(len(kept), 'game')} in {out}; use them with WSP_PRIVATE_SETS={out}", markup=False)
