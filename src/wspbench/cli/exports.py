"""`wsp export harbor/jsonl`."""

from __future__ import annotations

from pathlib import Path

import typer

from wspbench.cli.app import app, console, errors, output_file

export_app = typer.Typer(
    help="Export tasks where people use them: Harbor task folders, JSONL/Parquet rows.", no_args_is_help=True
)
app.add_typer(export_app, name="export", help="Export tasks: Harbor task folders, JSONL/Parquet dataset rows.")


def _select_tasks(tasks: str, episodes: int):
    """The selected registry tasks with their first `episodes` held-out episodes; a bad selector is a usage error."""
    from wspbench.export.harbor import exported
    from wspbench.tasks import select

    try:
        return exported(select(tasks), episodes)
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--tasks") from None


@export_app.command("harbor")
def export_harbor_command(
    out: Path = typer.Argument(..., help="Folder for the task folders, registry.json and dataset.toml."),
    tasks: str = typer.Option("all", help="Tasks, as for `wsp run`: all, original/*, synth/ferry, superbeam, ..."),
    episodes: int = typer.Option(1000, min=1, help="Held-out episodes (a task with fewer uses all it has)."),
    wheel: Path = typer.Option(None, help="A built wspbench wheel for the verifier's image (default: build one)."),
    install: str = typer.Option("wheel", help="wheel (this project's wheel, copied in) or pypi (wspbench==version)."),
    base_image: str = typer.Option(None, help="Docker base image (default python:3.11-slim; pin a digest here)."),
    cpus: int = typer.Option(4, min=1, help="CPUs per container (the verifier timeout is sized with it)."),
    memory_mb: int = typer.Option(4096, min=256, help="Memory per container."),
    measure: bool = typer.Option(
        False,
        "--measure",
        help="Size the timeouts by grading here instead of taking them from the committed table (not reproducible).",
    ),
    measure_episodes: int = typer.Option(2, min=1, help="Episodes graded per task with --measure."),
    name: str = typer.Option("wspbench", help="Dataset name in registry.json and dataset.toml."),
    force: bool = typer.Option(
        False, "--force", help="Replace an earlier export in OUT (a non-empty OUT is refused without it)."
    ),
) -> None:
    """Write one Harbor task folder per task, plus registry.json and dataset.toml; OUT then holds exactly these."""
    from wspbench.export.harbor import Resources, export_harbor

    if out.exists() and not out.is_dir():
        raise typer.BadParameter(f"{out} exists and is not a folder", param_hint="OUT")
    if install not in ("wheel", "pypi"):
        raise typer.BadParameter("choose wheel or pypi", param_hint="--install")
    if wheel is not None and not wheel.is_file():
        raise typer.BadParameter(f"{wheel} is not a wheel file", param_hint="--wheel")
    items = _select_tasks(tasks, episodes)
    try:
        folders = export_harbor(
            out,
            items,
            wheel=wheel,
            install=install,
            resources=Resources(cpus, memory_mb),
            measure=measure,
            measure_episodes=measure_episodes,
            name=name,
            base_image=base_image,
            progress=lambda item: errors.print(f"exported {item.harbor_name}", markup=False),
            force=force,
        )
    except OSError as error:  # the output cannot be written: a usage error
        errors.print(f"export failed: {error}", style="red", markup=False)
        raise typer.Exit(2) from None
    except (RuntimeError, ValueError) as error:  # the wheel could not be built
        errors.print(f"export failed: {error}", style="red", markup=False)
        raise typer.Exit(1) from None
    console.print(f"{len(folders)} Harbor tasks in {out} (registry.json, dataset.toml, README.md)", markup=False)


@export_app.command("jsonl")
def export_jsonl_command(
    out: Path = typer.Argument(
        ..., callback=output_file, help="The .jsonl file to write (a .parquet copy is added when pyarrow is installed)."
    ),
    tasks: str = typer.Option("all", help="Tasks, as for `wsp run`."),
    episodes: int = typer.Option(1000, min=1, help="Held-out episodes (a task with fewer uses all it has)."),
) -> None:
    """Write one dataset row per task (prompt, system prompt, game, episodes, ...)."""
    from wspbench.export.jsonl import export_jsonl

    items = _select_tasks(tasks, episodes)
    try:
        paths = export_jsonl(out, items)
    except OSError as error:
        errors.print(f"cannot write {out}: {error.strerror or error}", markup=False)
        raise typer.Exit(2) from None
    for path in paths:
        console.print(f"wrote {path}", markup=False)
