"""A picture of a written network's weights (PNG, matplotlib), to see at a glance what each unit reads.

MinAtar (600-32-32-6): W1 as six 10x10 channel maps per hidden unit (a unit's maps side by side,
units in a 4 x 8 mosaic), then W2 and W3 as heatmaps and the biases b1, b2, b3 as columns.
SUPERBEAM (8-16-6): W1 (16 x 8, labelled with the features), W2 (6 x 16, with the actions), biases.
Colours are symmetric around 0 (red positive, blue negative) with one scale per panel. The figure size
is fixed, so the PNG's pixel size is too (MINATAR_PIXELS, SUPERBEAM_PIXELS).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

DPI = 100
MINATAR_PIXELS = (1400, 1200)
SUPERBEAM_PIXELS = (1400, 700)
CMAP = "RdBu_r"
UNITS_PER_ROW = 4


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
    if annotate:  # small SUPERBEAM matrices: write each non-zero value in its cell
        for (row, col), value in np.ndenumerate(values):
            if value != 0 and np.isfinite(value):
                ax.text(col, row, f"{value:.3g}", ha="center", va="center", fontsize=6,
                        color="white" if abs(value) > 0.6 * limit else "black")
    return image


def w1_mosaic(w1: np.ndarray) -> np.ndarray:
    """W1 (600, 32) as one array: per unit six 10x10 maps (channels 0..5) in a row, NaN in the gaps.
    Each unit is divided by its own largest |w| (units of very different scales stay readable)."""
    scale = np.abs(w1).max(axis=0)
    maps = (w1 / np.where(scale > 0, scale, 1.0)).reshape(10, 10, 6, -1)  # row, col, channel, unit
    units = maps.shape[3]
    block_w, block_h = 6 * 11 + 2, 13
    rows = -(-units // UNITS_PER_ROW)
    mosaic = np.full((rows * block_h, UNITS_PER_ROW * block_w), np.nan)
    for unit in range(units):
        top, left = (unit // UNITS_PER_ROW) * block_h + 2, (unit % UNITS_PER_ROW) * block_w
        for channel in range(6):
            mosaic[top:top + 10, left + channel * 11:left + channel * 11 + 10] = maps[:, :, channel, unit]
    return mosaic


def draw_minatar(weights: dict[str, np.ndarray], out: Path, title: str) -> None:
    from wspbench.report.replay import CHANNELS, MINATAR_ACTIONS

    plt, fig = _figure(MINATAR_PIXELS)
    grid = fig.add_gridspec(2, 4, height_ratios=[1.1, 1], width_ratios=[3, 1.3, 0.9, 0.9],
                            left=0.04, right=0.97, top=0.92, bottom=0.07, hspace=0.18, wspace=0.35)
    fig.suptitle(title, fontsize=12)
    ax = fig.add_subplot(grid[0, :])
    mosaic = w1_mosaic(weights["W1"])
    _heatmap(fig, ax, mosaic, "W1: per hidden unit j, six 10x10 maps W1[(row*10+col)*6 + channel, j], "
                              f"channels left to right: {', '.join(CHANNELS)}\n(each unit divided by its "
                              "largest |w|, given after its name)")
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for unit in range(weights["W1"].shape[1]):
        largest = float(np.abs(weights["W1"][:, unit]).max())
        ax.text((unit % UNITS_PER_ROW) * 68, (unit // UNITS_PER_ROW) * 13 + 1.2, f"unit {unit}  |w| <= {largest:.3g}",
                fontsize=6, va="bottom")
    _heatmap(fig, fig.add_subplot(grid[1, 0]), weights["W2"], "W2 (layer-1 unit -> layer-2 unit)",
             "layer-2 unit", "layer-1 unit")
    ax3 = fig.add_subplot(grid[1, 1])
    _heatmap(fig, ax3, weights["W3"], "W3 (layer-2 unit -> action)", "action", "layer-2 unit")
    ax3.set_xticks(range(6), MINATAR_ACTIONS, rotation=60)
    biases = np.full((32, 3), np.nan)
    biases[:, 0], biases[:, 1], biases[:6, 2] = weights["b1"], weights["b2"], weights["b3"]
    ax_b = fig.add_subplot(grid[1, 2])
    _heatmap(fig, ax_b, biases, "b1, b2, b3", "", "unit / action")
    ax_b.set_xticks(range(3), ["b1", "b2", "b3"])
    _save(plt, fig, out)


def draw_superbeam(weights: dict[str, np.ndarray], out: Path, title: str) -> None:
    from superbeam.env import ACTIONS
    from superbeam.features import FEATURE_NAMES

    plt, fig = _figure(SUPERBEAM_PIXELS)
    grid = fig.add_gridspec(1, 4, width_ratios=[2.2, 0.5, 3, 0.5], left=0.06, right=0.97, top=0.86,
                            bottom=0.2, wspace=0.5)
    fig.suptitle(title, fontsize=12)
    ax = fig.add_subplot(grid[0, 0])
    _heatmap(fig, ax, weights["W1"], "W1 (hidden unit x feature)", "feature", "hidden unit", True)
    ax.set_xticks(range(len(FEATURE_NAMES)), FEATURE_NAMES, rotation=60)
    ax = fig.add_subplot(grid[0, 1])
    _heatmap(fig, ax, weights["b1"][:, None], "b1", annotate=True)
    ax.set_xticks([])
    ax = fig.add_subplot(grid[0, 2])
    _heatmap(fig, ax, weights["W2"], "W2 (action x hidden unit)", "hidden unit", "", True)
    ax.set_yticks(range(len(ACTIONS)), ACTIONS)
    ax = fig.add_subplot(grid[0, 3])
    _heatmap(fig, ax, weights["b2"][:, None], "b2", annotate=True)
    ax.set_yticks(range(len(ACTIONS)), ACTIONS)
    ax.set_xticks([])
    _save(plt, fig, out)


def _save(plt, fig, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI)
    plt.close(fig)


def weights_png(answer: str, out: Path, family: str | None = None, title: str | None = None) -> tuple[str, tuple[int, int]]:
    """Draw the answer's weights; returns (family, pixel size). Raises UnusableAnswer for a bad reply."""
    from wspbench.report.answers import parse_weights

    family, weights = parse_weights(answer, family)
    weights = {name: np.asarray(value, dtype=np.float64) for name, value in weights.items()}
    nonzero = sum(int(np.count_nonzero(v)) for v in weights.values())
    heading = title or ("MinAtar network 600-32-32-6 tanh" if family == "minatar" else "SUPERBEAM network 8-16-6 ReLU")
    heading += f"  ({nonzero} non-zero weights)"
    if family == "minatar":
        draw_minatar(weights, out, heading)
        return family, MINATAR_PIXELS
    draw_superbeam(weights, out, heading)
    return family, SUPERBEAM_PIXELS
