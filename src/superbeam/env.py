"""`SuperBeamEnv`: SUPERBEAM on the CHIP-8 machine behind a gymnasium-style interface.

    env = SuperBeamEnv(level=3, difficulty=0.5, frame_skip=4, max_frames=600)
    obs, info = env.reset()
    obs, reward, terminated, truncated, info = env.step(action)

`level` is an integer seed for the generator, "classic", or a `superbeam.levels.Level`.
An action holds its direction keys for `frame_skip` frames; a jump action presses the jump key on
the first of those frames only (a tap). Actions: 0 noop, 1 left, 2 right, 3 jump, 4 right+jump,
5 left+jump. Reward: 100 x progress gained (best x so far, from the start to the flag, as 0..1),
+5 a coin, +50 the win, -25 a death. An episode ends at the win, at the first death, or after
`max_frames` frames (truncated).

The observation is the raw 32x64 screen (uint8 0/1). `screen_text()` gives a labelled ASCII
picture and `facts()` a one-line summary, for a language model that plays by itself.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.resources import files

import numpy as np

from superbeam.assembler import Program, assemble_file
from superbeam.chip8 import Chip8
from superbeam.levels import COIN_ROW, FLAG_COL, NCOL, START_X, TOP, WIN_X, Level, get_level

ACTIONS = ["noop", "left", "right", "jump", "right+jump", "left+jump"]
KEY_LEFT, KEY_JUMP, KEY_RIGHT = 4, 5, 6
_HELD = ((), (KEY_LEFT,), (KEY_RIGHT,), (), (KEY_RIGHT,), (KEY_LEFT,))
_JUMPS = (False, False, False, True, True, True)
PLAYING, WON, DEAD = 0, 1, 2

RULES = """You play SUPERBEAM, a side-scrolling platformer on a 64x32 pixel screen. The world is a row of
8-pixel-wide columns that scrolls as you move right; the screen shows 8 columns at a time.
- You are an 8x6 pixel figure. Reach the flag at the right end of the level to win.
- The ground's top is at row 24 (rows count downward from 0 at the top of the screen). Gaps in the
  ground are 8 or 16 px wide; falling into one kills you.
- Pipes (top at row 16, 8 px above the ground) and tall pipes (top at row 8, 16 px above the ground)
  are solid: you cannot walk through them, you jump onto them. A jump rises 10 px, so from the ground
  you can reach a pipe top but not a tall pipe top: climb a tall pipe from the pipe next to it.
- You walk 1 px per frame while left or right is held, in the air too. Jump is a tap: it starts only
  while you stand on something; a jump rises 10 px, hangs a moment and falls back, about 18 frames and
  18 px of running in all.
- Two kinds of danger: gaps, and walkers. Walkers pace the ground at half your speed and turn at gaps
  and pipes. Touching a walker kills you, unless you land on it from above while falling: that squashes it.
- Coins hang low (taken walking on the ground), in the middle (taken standing on a pipe or jumping from
  the ground) or high (only reachable by jumping from a pipe top). Each is worth a little.
- The level has a time limit of 600 frames (10 seconds); running straight through takes about 350.
Actions: 0 noop, 1 left, 2 right, 3 jump, 4 right+jump, 5 left+jump. Each action is held for 4 frames."""


@lru_cache(maxsize=1)
def rom() -> Program:
    """The assembled game (cached)."""
    return assemble_file(files("superbeam") / "roms" / "superbeam.asm")


class SuperBeamEnv:
    """One SUPERBEAM level on a fresh CHIP-8 machine (`backend`), reset for each episode."""

    actions = ACTIONS

    def __init__(self, level=0, difficulty: float = 0.5, frame_skip: int = 4, max_frames: int = 600):
        self.level: Level = get_level(level, difficulty)
        self.difficulty = difficulty
        self.frame_skip = int(frame_skip)
        self.max_frames = int(max_frames)
        program = rom()
        self.sym = program.sym
        self._code = program.code
        self._status = self.sym["STATUS"]
        self._coins = self.sym["COINS"]
        self._level_addr = self.sym["LEVEL"]
        self.reset()

    # --- gym interface ---------------------------------------------------------------------------

    def reset(self, seed=None, options=None):
        """Start the level again (the level is fixed: `seed` is accepted and ignored)."""
        m = self.backend = Chip8(self._code)
        m.write(self._level_addr, self.level.columns)
        m.write(self.sym["ETAB"], self.level.etab())
        m.run_frame()  # the ROM's start-up frame: registers set, first picture drawn
        self.frames = 0
        self._best_x = START_X
        self.best_progress = 0.0
        self.coins = 0
        self.coins_total = self.level.coins_total
        self.deaths = 0
        self.won = self.dead = False
        self.cause = None
        return self.observation(), self._info()

    def step(self, action: int):
        action = int(action)
        if not 0 <= action < len(ACTIONS):
            raise ValueError(f"action must be 0..{len(ACTIONS) - 1}, got {action}")
        if self.won or self.dead or self.frames >= self.max_frames:
            return self.observation(), 0.0, self.won or self.dead, not (self.won or self.dead), self._info()
        m, V = self.backend, self.backend.V
        held = _HELD[action]
        jump = _JUMPS[action]
        m.set_keys(held + (KEY_JUMP,) if jump else held)
        best_x, status = self._best_x, PLAYING
        for k in range(self.frame_skip):
            if k == 1 and jump:
                m.set_keys(held)
            m.run_frame()
            self.frames += 1
            x = 8 * V[13] + V[10]
            if x > best_x:
                best_x = x
            status = m.ram(self._status)
            if status or self.frames >= self.max_frames:
                break
        old_progress, old_coins = self.best_progress, self.coins
        self._best_x = best_x
        self.coins = m.ram(self._coins)
        reward = 5.0 * (self.coins - old_coins)
        if status == WON:
            self.won = True
            self.best_progress = 1.0
            reward += 50.0
        else:
            self.best_progress = min(1.0, (best_x - START_X) / (WIN_X - START_X))
        if status == DEAD:
            self.dead = True
            self.deaths += 1
            self.cause = "fell into a gap" if V[11] >= 20 else "hit a walker"
            reward -= 25.0
        reward += 100.0 * (self.best_progress - old_progress)
        terminated = self.won or self.dead
        truncated = not terminated and self.frames >= self.max_frames
        return self.observation(), reward, terminated, truncated, self._info()

    def observation(self) -> np.ndarray:
        """The screen, (32, 64) uint8 of 0/1."""
        return self.backend.display()

    def _info(self) -> dict:
        return {
            "won": self.won,
            "dead": self.dead,
            "best_progress": self.best_progress,
            "coins": self.coins,
            "deaths": self.deaths,
            "coins_total": self.coins_total,
            "frames": self.frames,
            "cause": self.cause,
        }

    # --- the machine's state, named ----------------------------------------------------------------

    def live_level(self) -> bytes:
        """The level as the ROM has it now: one byte per column (taken coins are cleared)."""
        return self.backend.read(self._level_addr, NCOL)

    def walkers(self) -> list[tuple[int, int, int, int]]:
        """(alive, column, offset px, direction) per walker, from ETAB."""
        raw = self.backend.read(self.sym["ETAB"], 8)
        return [tuple(raw[4 * e : 4 * e + 4]) for e in range(2)]

    @property
    def player_x(self) -> int:
        """The player's world x (px): 8 * VD + VA."""
        return 8 * self.backend.V[13] + self.backend.V[10]

    def screen_text(self) -> str:
        """The screen as 16 lines of 32 characters, each for 2x2 pixels: P you, E walker, o coin,
        F flag, H pipe, # ground, . empty."""
        labels = np.zeros((32, 64), dtype=np.uint8)  # 0 empty .. higher wins
        regs = self.backend.regs()
        cam = regs[0xD]
        lv = self.live_level()
        for i in range(8):
            c = cam + i
            if c >= NCOL:
                break
            t, kind = lv[c] & 3, lv[c] >> 2 & 3
            if t:
                labels[TOP[t] :, 8 * i : 8 * i + 8] = 1 if t == 1 else 2
            if kind:
                r = COIN_ROW[kind]
                labels[r : r + 4, 8 * i + 2 : 8 * i + 6] = 4
            if c == FLAG_COL:
                labels[8:24, 8 * i + 3 : 8 * i + 8] = 3
        for alive, col, off, _ in self.walkers():
            sx = 8 * (col - cam) + off
            if alive and -7 <= sx < 64:
                labels[18:24, max(0, sx) : sx + 8] = 5
        px, py = regs[0xA], regs[0xB]
        labels[py : py + 6, px : px + 8] = 6
        cells = labels.reshape(16, 2, 32, 2).max(axis=(1, 3))
        chars = np.array(list(".#HFoEP"))
        return "\n".join("".join(row) for row in chars[cells])

    def facts(self) -> str:
        """A one-line summary of the state."""
        regs = self.backend.regs()
        x, y, ve = self.player_x, regs[0xB], regs[0xE]
        if y == ve:
            where = {18: "standing on the ground", 10: "standing on a pipe", 2: "standing on a tall pipe"}[y]
        else:
            where = "in the air, " + ("rising" if regs[0xC] < 8 else "falling")
        walkers = [f"{8 * col + off - x - 8:+d} px" for alive, col, off, _ in self.walkers() if alive]
        return (
            f"frame {self.frames}/{self.max_frames}; you are at x={x} (column {x // 8}), y={y}, {where}; "
            f"progress {self.best_progress:.0%}; coins {self.coins}/{self.coins_total}; "
            f"walkers ahead of your front edge: {', '.join(walkers) or 'none'}; "
            f"flag at x={8 * FLAG_COL}"
        )
