"""Animated GIF replays of a written network playing, one frame per network decision.

The replayed episodes are the graded ones. MinAtar: episode e starts from `task.start_episode(e)`
(game seed 1729 + e, actions RandomState(7919 + e)) and each action is `sample_action` on
`network.forward_one`, the loop of the engine's reference player, so returns and lengths equal the
engine's for the same episode. SUPERBEAM: the level is played as `superbeam.task.play_level` plays it
(features, then `act`, the task's argmax rule). Under each frame: the chosen action and the action
probabilities (SUPERBEAM: softmax of the logits, shown for reading; its action is the argmax).
Frames: min(steps, max_frames) per episode plus one closing frame with the episode's result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from wspbench.networks import sample_action, softmax_cdf

MINATAR_ACTIONS = ("no-op", "left", "up", "right", "down", "fire")
CHANNELS = ("player", "danger", "reward", "projectile", "trail", "gauge")
CHANNEL_COLOURS = ((250, 215, 60), (230, 60, 60), (70, 200, 90), (80, 200, 240), (150, 150, 190), (190, 110, 230))
BACKGROUND, GRID, TEXT, BAR = (24, 24, 32), (52, 52, 64), (230, 230, 230), (90, 160, 250)
CELL = 24
MINATAR_SIZE = (420, 384)
SUPERBEAM_SCALE = 5
SUPERBEAM_SIZE = (340, 316)
MAX_EPISODES = 20


@dataclass
class Frame:
    picture: np.ndarray          # MinAtar: (10, 10, 6) 0/1; SUPERBEAM: (32, 64) 0/1 screen
    probabilities: np.ndarray | None
    action: int | None           # None on the closing frame
    step: int
    score: float
    note: str = ""


@dataclass
class EpisodeReplay:
    label: str                   # "episode 0" or "level 1000000"
    score: float                 # MinAtar: return; SUPERBEAM: reward-free summary in `result`
    length: int                  # network decisions
    frames: list[Frame] = field(default_factory=list)
    result: dict = field(default_factory=dict)


def probabilities(logits: np.ndarray) -> np.ndarray:
    """Action probabilities exactly as `RandomState.choice(p=softmax)` builds them."""
    return np.diff(softmax_cdf(logits), prepend=0.0)


# --- playing ----------------------------------------------------------------------------------------

def play_minatar(task, weights, episode: int, max_frames: int) -> EpisodeReplay:
    """Episode `episode` of a MinAtar task, as the engine's reference player plays it."""
    from wspbench.tasks import MAX_STEPS

    environment, action_random = task.start_episode(episode)
    replay = EpisodeReplay(f"episode {episode}", 0.0, 0)
    score = 0.0
    for step in range(MAX_STEPS):
        state = environment.state()
        logits = task.network.forward_one(weights, task.observation(state))
        action = sample_action(logits, action_random)
        if step < max_frames:
            picture = task.observation(state).reshape(10, 10, 6)
            replay.frames.append(Frame(picture, probabilities(logits), action, step, score))
        reward, terminal = environment.act(action)
        score += float(reward)
        if terminal:
            break
    replay.score, replay.length = score, step + 1
    final = task.observation(environment.state()).reshape(10, 10, 6)
    replay.frames.append(Frame(final, None, None, step + 1, score,
                               f"end: return {score:g} after {step + 1} steps"))
    return replay


def play_superbeam(weights, level: int, max_frames: int) -> EpisodeReplay:
    """One SUPERBEAM level, as `superbeam.task.play_level` plays it."""
    from superbeam.env import SuperBeamEnv
    from superbeam.features import features
    from superbeam.task import DIFFICULTY, FRAME_SKIP, MAX_FRAMES, NETWORK, act

    env = SuperBeamEnv(level=level, difficulty=DIFFICULTY, frame_skip=FRAME_SKIP, max_frames=MAX_FRAMES)
    obs, info = env.reset()
    replay = EpisodeReplay(f"level {level}", 0.0, 0)
    total, step = 0.0, 0
    terminated = truncated = False
    while not (terminated or truncated):
        x = features(env)
        action = act(weights, x)
        if step < max_frames:
            logits = NETWORK.forward_one(weights, x)
            replay.frames.append(Frame(np.asarray(obs), probabilities(logits), action, step, total))
        obs, reward, terminated, truncated, info = env.step(action)
        total += float(reward)
        step += 1
    outcome = "won" if info["won"] else (info.get("cause") or "died") if info["dead"] else "ran out of time"
    replay.score, replay.length = total, step
    replay.result = {"won": bool(info["won"]), "progress": round(float(info["best_progress"]), 3),
                     "coins": int(info["coins"]), "outcome": outcome}
    replay.frames.append(Frame(np.asarray(obs), None, None, step, total,
                               f"end: {outcome}, progress {100 * info['best_progress']:.0f}%"))
    return replay


# --- drawing ----------------------------------------------------------------------------------------

def _font(size: int = 12):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _caption(draw: ImageDraw.ImageDraw, top: int, width: int, frame: Frame, label: str, actions) -> None:
    font = _font()
    head = f"{label}  step {frame.step}  score {round(frame.score, 2):g}"
    draw.text((8, top), head, fill=TEXT, font=font)
    if frame.action is None:
        draw.text((8, top + 16), frame.note, fill=TEXT, font=font)
        return
    chosen = f"action: {actions[frame.action]} (p = {frame.probabilities[frame.action]:.3f})"
    draw.text((8, top + 16), chosen, fill=TEXT, font=font)
    bar_left, bar_width = 92, width - 92 - 56
    for a, (name, p) in enumerate(zip(actions, frame.probabilities)):
        y = top + 36 + 14 * a
        colour = (250, 215, 60) if a == frame.action else BAR
        draw.text((8, y - 1), name, fill=TEXT, font=_font(11))
        draw.rectangle((bar_left, y + 2, bar_left + bar_width, y + 10), outline=GRID)
        draw.rectangle((bar_left, y + 2, bar_left + int(round(p * bar_width)), y + 10), fill=colour)
        draw.text((bar_left + bar_width + 6, y - 1), f"{p:.3f}", fill=TEXT, font=_font(11))


def draw_minatar(frame: Frame, label: str) -> Image.Image:
    """The 10x10 grid: each cell split in six (3 x 2) squares, one per channel, lit when the channel is on."""
    image = Image.new("RGB", MINATAR_SIZE, BACKGROUND)
    draw = ImageDraw.Draw(image)
    left = top = 8
    sub_w, sub_h = CELL // 3, CELL // 2
    for row in range(10):
        for col in range(10):
            x0, y0 = left + col * CELL, top + row * CELL
            draw.rectangle((x0, y0, x0 + CELL, y0 + CELL), outline=GRID)
            for channel in np.flatnonzero(frame.picture[row, col]):
                sx, sy = x0 + (channel % 3) * sub_w, y0 + (channel // 3) * sub_h
                draw.rectangle((sx + 1, sy + 1, sx + sub_w - 1, sy + sub_h - 1), fill=CHANNEL_COLOURS[channel])
    legend_x = left + 10 * CELL + 14
    draw.text((legend_x, top), "channels", fill=TEXT, font=_font())
    for channel, (name, colour) in enumerate(zip(CHANNELS, CHANNEL_COLOURS)):
        y = top + 20 + 18 * channel
        draw.rectangle((legend_x, y, legend_x + 12, y + 12), fill=colour)
        draw.text((legend_x + 18, y - 1), f"{channel} {name}", fill=TEXT, font=_font())
    draw.text((legend_x, top + 134), "place in a cell:", fill=TEXT, font=_font(11))
    for channel in range(6):
        x, y = legend_x + 8 + 14 * (channel % 3), top + 150 + 14 * (channel // 3)
        draw.rectangle((x, y, x + 12, y + 12), outline=GRID, fill=CHANNEL_COLOURS[channel])
        draw.text((x + 3, y), str(channel), fill=BACKGROUND, font=_font(10))
    _caption(draw, top + 10 * CELL + 8, MINATAR_SIZE[0], frame, label, MINATAR_ACTIONS)
    return image


def draw_superbeam(frame: Frame, label: str) -> Image.Image:
    """The 64x32 CHIP-8 screen, scaled up, with the caption below."""
    from superbeam.env import ACTIONS

    image = Image.new("RGB", SUPERBEAM_SIZE, BACKGROUND)
    screen = Image.fromarray((np.asarray(frame.picture) > 0).astype(np.uint8) * 220 + 20).convert("RGB")
    screen = screen.resize((64 * SUPERBEAM_SCALE, 32 * SUPERBEAM_SCALE), Image.NEAREST)
    image.paste(screen, (10, 8))
    _caption(ImageDraw.Draw(image), 8 + 32 * SUPERBEAM_SCALE + 8, SUPERBEAM_SIZE[0], frame, label, ACTIONS)
    return image


# --- the GIF ----------------------------------------------------------------------------------------

@dataclass
class ReplaySummary:
    path: Path
    frames: int
    size: tuple[int, int]
    episodes: list[EpisodeReplay]


def replay(task_id: str, answer: str, out: Path, episodes: int = 1, seed: int | None = None,
           max_frames: int = 1000, frame_ms: int = 80) -> ReplaySummary:
    """Play `episodes` graded episodes (MinAtar: episodes seed.., default 0; SUPERBEAM: levels seed..,
    default the first held-out level) and write them to one GIF. Raises UnusableAnswer for a bad reply."""
    from wspbench.export.catalog import task_info
    from wspbench.report.answers import parse_weights

    if not 1 <= episodes <= MAX_EPISODES:
        raise ValueError(f"episodes must be 1..{MAX_EPISODES}")
    info = task_info(task_id, 1)
    _, weights = parse_weights(answer, info.family)
    if info.family == "superbeam":
        first = info.levels[0] if seed is None else seed
        played = [play_superbeam(weights, first + k, max_frames) for k in range(episodes)]
        draw = draw_superbeam
    else:
        first = 0 if seed is None else seed
        played = [play_minatar(info.minatar_task, weights, first + k, max_frames) for k in range(episodes)]
        draw = draw_minatar
    images, durations = [], []
    for episode in played:
        for frame in episode.frames:
            images.append(draw(frame, f"{info.task_id} {episode.label}"))
            durations.append(frame_ms if frame.action is not None else 1500)
    out.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(out, save_all=True, append_images=images[1:], duration=durations, loop=0, disposal=1)
    return ReplaySummary(out, len(images), images[0].size, played)
