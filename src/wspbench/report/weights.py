"""A picture of a written network's weights (PNG, matplotlib), to see at a glance what each unit reads.

The picture follows from the task's facts (src/wspbench/tasks/spec.py), whatever the task:
- a network that reads a (rows, cols, channels) grid (`task.game.input_shape`): W1 as one rows x cols map
  per channel for every hidden unit (a unit's maps side by side, units in a mosaic), then the other
  weight matrices as heatmaps and the biases as columns;
- any other input: every weight matrix and bias as a heatmap, labelled with `task.game.input_names`
  and `task.game.action_names`, with the values written in the cells of small matrices.
Matrices are drawn as they are stored (`Network.orientation` says which axis is which). Colours are
symmetric around 0 (red positive, blue negative) with one scale per panel. The figure size is fixed, so
the PNG's pixel size is too (GRID_PIXELS, FLAT_PIXELS).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from wspbench.answers.edits import AnswerError
from wspbench.report.replay import UnusableAnswer
from wspbench.tasks import all_tasks, get_task
from wspbench.tasks.spec import GameTask, Task
from wspbench.words import a

DPI = 100
GRID_PIXELS = (1400, 1200)
FLAT_PIXELS = (1400, 700)
CMAP = "RdBu_r"
UNITS_PER_ROW = 4
ANNOTATE_CELLS = 200  # matrices up to this size get their values written in


def answer_tasks() -> list[Task]:
    """One task per distinct network and answer format, in registry order: the ways an answer can be read."""
    seen: dict[tuple[str, str], Task] = {}
    for task in all_tasks():
        if isinstance(task, GameTask):
            seen.setdefault((repr(task.network), task.answer_format), task)
    return list(seen.values())


def read_answer(answer: str, task_id: str | None = None) -> tuple[Task, dict[str, np.ndarray]]:
    """The task and the weights: with `task_id`, that task's parser; without, the first task (one per network
    and answer format) whose parser accepts the answer. UnusableAnswer says why none did."""
    tasks = [get_task(task_id)] if task_id is not None else answer_tasks()
    if not isinstance(tasks[0], GameTask):
        raise UnusableAnswer(f"{tasks[0].id}: its answers name a game; they are not a network to draw")
    errors = []
    for task in tasks:
        try:
            return task, task.parse(answer)
        except AnswerError as error:
            errors.append(
                f"as {a(task.answer_format)} answer for {task.id}: {error}" if task_id is None else str(error)
            )
    raise UnusableAnswer("; ".join(errors))


# --- drawing ----------------------------------------------------------------------------------------


def _figure(pixels):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt, plt.figure(figsize=(pixels[0] / DPI, pixels[1] / DPI), dpi=DPI)


def _heatmap(fig, ax, values: np.ndarray, title: str, xlabel: str = "", ylabel: str = "", annotate: bool = False):
    limit = float(np.nanmax(np.abs(values))) if np.isfinite(values).any() else 0.0
    limit = limit if limit > 0 else 1.0
    image = ax.imshow(values, cmap=CMAP, vmin=-limit, vmax=limit, interpolation="nearest", aspect="auto")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(labelsize=7)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.02).ax.tick_params(labelsize=7)
    if annotate:  # small matrices: write each non-zero value in its cell
        for (row, col), value in np.ndenumerate(values):
            if value != 0 and np.isfinite(value):
                ax.text(
                    col,
                    row,
                    f"{value:.3g}",
                    ha="center",
                    va="center",
                    fontsize=6,
                    color="white" if abs(value) > 0.6 * limit else "black",
                )
    return image


def w1_mosaic(w1: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    """W1 (inputs, units), inputs a flattened (rows, cols, channels) grid, as one array: per unit one
    rows x cols map per channel in a row, NaN in the gaps. Each unit is divided by its own largest |w|
    (units of very different scales stay readable)."""
    rows, cols, channels = shape
    scale = np.abs(w1).max(axis=0)
    maps = (w1 / np.where(scale > 0, scale, 1.0)).reshape(rows, cols, channels, -1)  # row, col, channel, unit
    units = maps.shape[3]
    block_w, block_h = channels * (cols + 1) + 2, rows + 3
    mosaic = np.full((-(-units // UNITS_PER_ROW) * block_h, UNITS_PER_ROW * block_w), np.nan)
    for unit in range(units):
        top, left = (unit // UNITS_PER_ROW) * block_h + 2, (unit % UNITS_PER_ROW) * block_w
        for channel in range(channels):
            x = left + channel * (cols + 1)
            mosaic[top : top + rows, x : x + cols] = maps[:, :, channel, unit]
    return mosaic


def _unit_names(task: Task, level: int) -> tuple[str, list[str] | None]:
    """What layer `level` of the network holds (0: the inputs, the last: the actions) and its tick labels."""
    network, game = task.network, task.game
    if level == 0:
        names = list(game.input_names) if len(game.input_names) == network.sizes[0] else None
        return "input", names
    if level == network.layers:
        return "action", list(game.action_names)
    return f"layer-{level} unit", None


def _matrix(fig, ax, task: Task, weights, k: int) -> None:
    """W{k} as stored, its axes named by the network's orientation."""
    (into, into_names), (out, out_names) = _unit_names(task, k - 1), _unit_names(task, k)
    rows, cols = (
        ((into, into_names), (out, out_names))
        if task.network.orientation == "x@W"
        else ((out, out_names), (into, into_names))
    )
    values = weights[f"W{k}"]
    _heatmap(fig, ax, values, f"W{k} ({rows[0]} x {cols[0]})", cols[0], rows[0], values.size <= ANNOTATE_CELLS)
    if cols[1] is not None and len(cols[1]) == values.shape[1]:
        ax.set_xticks(range(len(cols[1])), cols[1], rotation=60)
    if rows[1] is not None and len(rows[1]) == values.shape[0]:
        ax.set_yticks(range(len(rows[1])), rows[1])


def draw_grid(task: Task, weights: dict[str, np.ndarray], out: Path, title: str) -> None:
    """W1 as channel maps per hidden unit on top; the other matrices and the biases below."""
    network, shape = task.network, task.game.input_shape
    plt, fig = _figure(GRID_PIXELS)
    layers = network.layers
    ratios = [max(1.0, weights[f"W{k}"].shape[1] / 8) for k in range(2, layers + 1)] + [0.9]
    grid = fig.add_gridspec(
        2,
        len(ratios),
        height_ratios=[1.1, 1],
        width_ratios=ratios,
        left=0.04,
        right=0.97,
        top=0.92,
        bottom=0.07,
        hspace=0.18,
        wspace=0.35,
    )
    fig.suptitle(title, fontsize=12)
    w1 = weights["W1"] if network.orientation == "x@W" else weights["W1"].T  # (inputs, units)
    rows, cols, channels = shape
    ax = fig.add_subplot(grid[0, :])
    _heatmap(
        fig,
        ax,
        w1_mosaic(w1, shape),
        f"W1: per hidden unit, one {rows}x{cols} map per input channel, "
        f"left to right: {', '.join(task.game.input_names)}\n(each unit divided by its largest |w|, given "
        "after its name)",
    )
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    block_w, block_h = channels * (cols + 1) + 2, rows + 3
    for unit in range(w1.shape[1]):
        largest = float(np.abs(w1[:, unit]).max())
        ax.text(
            (unit % UNITS_PER_ROW) * block_w,
            (unit // UNITS_PER_ROW) * block_h + 1.2,
            f"unit {unit}  |w| <= {largest:.3g}",
            fontsize=6,
            va="bottom",
        )
    for k in range(2, layers + 1):
        _matrix(fig, fig.add_subplot(grid[1, k - 2]), task, weights, k)
    biases = np.full((max(network.sizes[1:]), layers), np.nan)
    for k in range(1, layers + 1):
        biases[: network.sizes[k], k - 1] = weights[f"b{k}"]
    ax = fig.add_subplot(grid[1, -1])
    _heatmap(fig, ax, biases, ", ".join(f"b{k}" for k in range(1, layers + 1)), "", "unit / action")
    ax.set_xticks(range(layers), [f"b{k}" for k in range(1, layers + 1)])
    _save(plt, fig, out)


def draw_flat(task: Task, weights: dict[str, np.ndarray], out: Path, title: str) -> None:
    """Every matrix and its bias side by side, labelled with the input and action names."""
    network = task.network
    plt, fig = _figure(FLAT_PIXELS)
    ratios = []
    for k in range(1, network.layers + 1):
        ratios += [max(1.0, weights[f"W{k}"].shape[1] / 4), 0.5]
    grid = fig.add_gridspec(
        1, len(ratios), width_ratios=ratios, left=0.06, right=0.97, top=0.86, bottom=0.2, wspace=0.5
    )
    fig.suptitle(title, fontsize=12)
    for k in range(1, network.layers + 1):
        _matrix(fig, fig.add_subplot(grid[0, 2 * k - 2]), task, weights, k)
        ax = fig.add_subplot(grid[0, 2 * k - 1])
        bias = weights[f"b{k}"][:, None]
        _heatmap(fig, ax, bias, f"b{k}", annotate=bias.size <= ANNOTATE_CELLS)
        ax.set_xticks([])
        _, names = _unit_names(task, k)
        if names is not None and len(names) == bias.shape[0]:
            ax.set_yticks(range(len(names)), names)
    _save(plt, fig, out)


def _save(plt, fig, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI)
    plt.close(fig)


def reads_grid(task: Task) -> bool:
    """The network's inputs are a flattened (rows, cols, channels) grid."""
    return task.game.grid and int(np.prod(task.game.input_shape)) == task.network.sizes[0]


def weights_png(
    answer: str, out: Path, task_id: str | None = None, title: str | None = None
) -> tuple[str, tuple[int, int]]:
    """Draw the answer's weights; returns (the task whose parser read it, pixel size). Raises UnknownTask,
    or UnusableAnswer for a bad reply."""
    task, weights = read_answer(answer, task_id)
    weights = {name: np.asarray(value, dtype=np.float64) for name, value in weights.items()}
    nonzero = sum(int(np.count_nonzero(v)) for v in weights.values())
    about = task.id if task_id is not None else f"{task.answer_format} answer"  # any task of that network
    heading = f"{title or about + ': network ' + task.network.describe()}  ({nonzero} non-zero weights)"
    if reads_grid(task):
        draw_grid(task, weights, out, heading)
        return task.id, GRID_PIXELS
    draw_flat(task, weights, out, heading)
    return task.id, FLAT_PIXELS
