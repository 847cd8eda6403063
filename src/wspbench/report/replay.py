"""Animated GIF replays of a written network playing, one frame per network decision.

Each episode is played by `task.watch` (src/wspbench/tasks/spec.py), the loop that scores it, so a
replay's returns and lengths are the graded ones. What a frame shows follows from the data, whatever the
task: a `Step.screen` of shape (rows, cols, channels) is drawn as a grid with one colour per channel
(legend: `task.game.input_names`), a (rows, cols) array as a 0/1 pixel screen. Under each frame: the
action taken (`task.game.action_names`) and the probabilities softmax(logits); when the network's rule
is argmax the frame says so, since the probabilities are then only for reading.
Frames: min(steps, max_frames) per episode plus one closing frame with the episode's result; a GIF over
`max_bytes` keeps its first frames and the closing one, so every replay is bounded in frames and bytes.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from wspbench.answers.edits import AnswerError
from wspbench.networks import softmax_cdf
from wspbench.tasks import get_task
from wspbench.tasks.spec import GameTask, Step, Task

PALETTE = (
    (250, 215, 60),
    (230, 60, 60),
    (70, 200, 90),
    (80, 200, 240),
    (150, 150, 190),
    (190, 110, 230),
    (250, 140, 50),
    (240, 120, 180),
    (120, 230, 200),
    (200, 200, 90),
)
BACKGROUND, GRID, TEXT, BAR = (24, 24, 32), (52, 52, 64), (230, 230, 230), (90, 160, 250)
CELL = 24  # pixels per grid cell
PIXEL = 5  # pixels per screen pixel
LEGEND_WIDTH = 160  # right of a grid
CAPTION_WIDTH = 340
MAX_EPISODES = 20
MAX_BYTES = 50_000_000  # `wsp replay`'s bound on one GIF; `wsp report` sets a far smaller one


class UnusableAnswer(ValueError):
    """The reply holds no weights that grading would accept; the message says why."""


@dataclass
class Frame:
    screen: np.ndarray  # what `Step.screen` held
    probabilities: np.ndarray | None
    action: int | None  # None on the closing frame
    step: int
    score: float
    note: str = ""


@dataclass
class EpisodeReplay:
    episode: int
    score: float  # the episode's graded value
    length: int  # network decisions
    frames: list[Frame] = field(default_factory=list)
    result: dict = field(default_factory=dict)  # the task's summary of how the episode ended

    @property
    def label(self) -> str:
        return f"episode {self.episode}"

    @property
    def outcome(self) -> str:
        """The summary in one line: its `outcome` if it has one, else its short fields."""
        if "outcome" in self.result:
            return str(self.result["outcome"])
        return ", ".join(
            f"{key} {value:g}" if isinstance(value, float) else f"{key} {value}"
            for key, value in self.result.items()
            if isinstance(value, (bool, int, float, str))
        )


def probabilities(logits: np.ndarray) -> np.ndarray:
    """softmax(logits), exactly as `RandomState.choice(p=softmax)` builds them."""
    return np.diff(softmax_cdf(np.asarray(logits)), prepend=0.0)


def parse(task: Task, answer: str):
    """The answer's weights, as grading reads them; UnusableAnswer otherwise."""
    try:
        return task.parse(answer)
    except AnswerError as error:
        raise UnusableAnswer(str(error)) from None


# --- playing ----------------------------------------------------------------------------------------


def play(task: GameTask, weights, episode: int, max_frames: int) -> EpisodeReplay:
    """One episode, played by `task.watch` (the scored loop), keeping its first `max_frames` frames."""
    frames: list[Frame] = []
    steps = 0

    def observe(step: Step) -> None:
        nonlocal steps
        if step.logits is None:  # the closing call, after the episode ended
            frames.append(Frame(np.asarray(step.screen), None, None, steps, step.value))
            return
        if steps < max_frames:
            frames.append(Frame(np.asarray(step.screen), probabilities(step.logits), step.action, steps, step.value))
        steps += 1

    value, length, summary = task.watch(weights, episode, observe)
    if not frames or frames[-1].action is not None:
        raise ValueError(f"{task.id}: watch did not show the end of episode {episode}")
    replay = EpisodeReplay(episode, float(value), int(length), frames, dict(summary))
    replay.frames[-1].note = f"end: {replay.outcome or f'value {value:g} after {length} steps'}"
    return replay


# --- drawing ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _font(size: int = 12):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _subgrid(channels: int) -> tuple[int, int]:
    """(columns, rows) of the small squares a cell is split into, one per channel (6: 3 x 2)."""
    columns = math.ceil(math.sqrt(channels))
    return columns, math.ceil(channels / columns)


def _picture_size(task: Task, shape: tuple[int, ...]) -> tuple[int, int]:
    if task.game.grid:
        return 8 + shape[1] * CELL + 14 + LEGEND_WIDTH, 8 + shape[0] * CELL
    return 10 + shape[1] * PIXEL + 10, 8 + shape[0] * PIXEL


def frame_size(task: Task, shape: tuple[int, ...]) -> tuple[int, int]:
    """The pixel size of every frame of a replay of `task` whose screens have this shape."""
    width, height = _picture_size(task, shape)
    note = 14 if task.network.action_rule == "argmax" else 0
    caption = 8 + 36 + note + 14 * len(task.game.action_names) + 8
    return max(width, CAPTION_WIDTH), height + caption


def _draw_legend(draw: ImageDraw.ImageDraw, shape: tuple[int, int, int], names: tuple[str, ...]) -> None:
    """What every frame of a grid replay shares: the cell outlines and the channel legend."""
    rows, cols, channels = shape
    across, _ = _subgrid(channels)
    left = top = 8
    for row in range(rows):
        for col in range(cols):
            x0, y0 = left + col * CELL, top + row * CELL
            draw.rectangle((x0, y0, x0 + CELL, y0 + CELL), outline=GRID)
    legend_x = left + cols * CELL + 14
    draw.text((legend_x, top), "channels", fill=TEXT, font=_font())
    for channel in range(channels):
        y = top + 20 + 18 * channel
        name = names[channel] if channel < len(names) else ""
        draw.rectangle((legend_x, y, legend_x + 12, y + 12), fill=PALETTE[channel % len(PALETTE)])
        draw.text((legend_x + 18, y - 1), f"{channel} {name}", fill=TEXT, font=_font())
    y = top + 26 + 18 * channels
    draw.text((legend_x, y), "place in a cell:", fill=TEXT, font=_font(11))
    for channel in range(channels):
        x, y0 = legend_x + 8 + 14 * (channel % across), y + 16 + 14 * (channel // across)
        draw.rectangle((x, y0, x + 12, y0 + 12), outline=GRID, fill=PALETTE[channel % len(PALETTE)])
        draw.text((x + 3, y0), str(channel), fill=BACKGROUND, font=_font(10))


def _draw_grid(draw: ImageDraw.ImageDraw, screen: np.ndarray) -> None:
    """Each cell split into one small square per channel, lit in the channel's colour when it is on."""
    across, down = _subgrid(screen.shape[2])
    sub_w, sub_h = CELL // across, CELL // down
    for row, col, channel in np.argwhere(screen):
        sx, sy = 8 + col * CELL + (channel % across) * sub_w, 8 + row * CELL + (channel // across) * sub_h
        draw.rectangle((sx + 1, sy + 1, sx + sub_w - 1, sy + sub_h - 1), fill=PALETTE[channel % len(PALETTE)])


def _draw_pixels(image: Image.Image, screen: np.ndarray) -> None:
    pixels = Image.fromarray((screen > 0).astype(np.uint8) * 220 + 20).convert("RGB")
    image.paste(pixels.resize((screen.shape[1] * PIXEL, screen.shape[0] * PIXEL), Image.NEAREST), (10, 8))


def _caption(draw: ImageDraw.ImageDraw, top: int, width: int, frame: Frame, label: str, actions, argmax: bool) -> None:
    font = _font()
    draw.text((8, top), f"{label}  step {frame.step}  score {round(frame.score, 2):g}", fill=TEXT, font=font)
    if frame.action is None:
        draw.text((8, top + 16), frame.note, fill=TEXT, font=font)
        return
    chosen = f"action: {actions[frame.action]} (p = {frame.probabilities[frame.action]:.3f})"
    draw.text((8, top + 16), chosen, fill=TEXT, font=font)
    bars = top + 36
    if argmax:
        draw.text(
            (8, bars - 2),
            "the action is the largest logit; p = softmax(logits), for reading",
            fill=TEXT,
            font=_font(11),
        )
        bars += 14
    bar_left, bar_width = 92, width - 92 - 56
    for a, (name, p) in enumerate(zip(actions, frame.probabilities, strict=False)):
        y = bars + 14 * a
        colour = PALETTE[0] if a == frame.action else BAR
        draw.text((8, y - 1), name, fill=TEXT, font=_font(11))
        draw.rectangle((bar_left, y + 2, bar_left + bar_width, y + 10), outline=GRID)
        draw.rectangle((bar_left, y + 2, bar_left + int(round(p * bar_width)), y + 10), fill=colour)
        draw.text((bar_left + bar_width + 6, y - 1), f"{p:.3f}", fill=TEXT, font=_font(11))


@functools.lru_cache(maxsize=8)
def _background(task: Task, shape: tuple[int, ...]) -> Image.Image:
    """An empty frame, with what every frame of this task and screen shape shares already drawn."""
    image = Image.new("RGB", frame_size(task, shape), BACKGROUND)
    if task.game.grid:
        _draw_legend(ImageDraw.Draw(image), shape, task.game.input_names)
    return image


def draw(task: Task, frame: Frame, label: str) -> Image.Image:
    """One frame: the screen (a channel grid or pixels, as the task's game says), then the caption."""
    screen = frame.screen
    if screen.ndim != (3 if task.game.grid else 2):
        raise ValueError(
            f"cannot draw a screen of shape {screen.shape} for {task.id} (rows x cols x channels for a grid)"
        )
    size = frame_size(task, screen.shape)
    image = _background(task, screen.shape).copy()
    canvas = ImageDraw.Draw(image)
    if task.game.grid:
        _draw_grid(canvas, screen)
    else:
        _draw_pixels(image, screen)
    _caption(
        canvas,
        _picture_size(task, screen.shape)[1] + 8,
        size[0],
        frame,
        label,
        task.game.action_names,
        task.network.action_rule == "argmax",
    )
    return image


# --- the GIF ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _palette() -> Image.Image:
    """The GIF's one palette: every colour the frames are drawn with, and the shades of anti-aliased text.
    Mapping each frame onto it is much faster than a palette per frame, and keeps the colours exact."""
    colours = [BACKGROUND, GRID, TEXT, BAR, (20, 20, 20), (240, 240, 240), *PALETTE]
    colours += [tuple(round(b + (t - b) * k / 16) for b, t in zip(BACKGROUND, TEXT, strict=True)) for k in range(1, 16)]
    flat = [value for colour in colours for value in colour]
    image = Image.new("P", (1, 1))
    image.putpalette(flat + list(BACKGROUND) * (256 - len(colours)))
    return image


@dataclass
class ReplaySummary:
    path: Path
    frames: int
    size: tuple[int, int]
    episodes: list[EpisodeReplay]
    trimmed: int = 0  # frames left out to keep the file under max_bytes


def replay_episodes(task: Task, count: int, first: int | None) -> list[int]:
    """The episodes to replay: the task's first held-out ones, or `first`, `first + 1`, ..."""
    if not 1 <= count <= MAX_EPISODES:
        raise ValueError(f"episodes must be 1..{MAX_EPISODES}")
    if first is None:  # a family may raise a small count (repair plays at least 50): the first `count` of them
        return task.scoring_episodes(count)[:count]
    return [first + k for k in range(count)]


def replay(
    task_id: str,
    answer: str,
    out: Path,
    episodes: int = 1,
    seed: int | None = None,
    max_frames: int = 1000,
    frame_ms: int = 80,
    max_bytes: int = MAX_BYTES,
) -> ReplaySummary:
    """Play `episodes` episodes (default: the first held-out ones; `seed`: episodes seed, seed + 1, ...) and
    write them to one GIF of at most `max_frames` frames per episode (plus a closing one) and about `max_bytes`
    (later frames are dropped to fit). Raises UnknownTask, UnusableAnswer for a bad reply, ValueError for a task
    that plays no game (identify: its answer names one)."""
    task = get_task(task_id)
    if not isinstance(task, GameTask):
        raise ValueError(f"{task.id} plays no game (its answer names one), so there is nothing to replay")
    chosen = replay_episodes(task, episodes, seed)
    weights = parse(task, answer)
    played = [play(task, weights, episode, max_frames) for episode in chosen]
    images, durations = [], []
    for episode in played:
        for frame in episode.frames:
            images.append(draw(task, frame, f"{task.id} {episode.label}"))
            durations.append(frame_ms if frame.action is not None else 1500)
    images = [image.quantize(palette=_palette(), dither=Image.Dither.NONE) for image in images]
    out.parent.mkdir(parents=True, exist_ok=True)
    drawn = len(images)
    while True:
        images[0].save(out, save_all=True, append_images=images[1:], duration=durations, loop=0, disposal=1)
        size = out.stat().st_size
        if size <= max_bytes or len(images) <= 2:
            break
        keep = max(1, min(len(images) - 2, int((len(images) - 1) * max_bytes / size * 0.9)))
        images, durations = images[:keep] + images[-1:], durations[:keep] + durations[-1:]  # and the closing frame
    return ReplaySummary(out, len(images), images[0].size, played, drawn - len(images))
