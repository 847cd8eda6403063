"""The 8 features the SUPERBEAM network reads, with exactly the reference task's definitions.

They are read from the machine: VA (player x on screen), VB (player y), VC (vertical speed + 8),
VD (camera column), VE (the y the player would stand at), the level bytes in RAM (`live_level()`)
and the walker table `ETAB`. Distances are in px and measured from the player's front edge, the
first pixel column right of the player (world x + 8). Only the 7 columns starting with the one
under the player's left edge are looked at, and nothing farther than 32 px.
"""

from __future__ import annotations

import numpy as np

FEATURES = [
    ("standing", "1 if you stand on ground or on a pipe this frame, else 0 (in the air)"),
    ("height", "how high your feet are: 0 on ground level, 8 on a pipe top, 16 on a tall pipe top (px)"),
    (
        "gap_dist",
        "px from your front (right) edge to the start of the next gap in the ground ahead; "
        "0 if the gap is already under your front edge; 32 if no gap within 32 px",
    ),
    ("gap_width", "width of that gap in px (8 or 16); 0 if none"),
    (
        "wall_dist",
        "px from your front edge to the next block whose top is higher than your feet "
        "(a pipe seen from the ground, or a tall pipe seen from a pipe); 32 if none within 32 px",
    ),
    ("wall_height", "how many px higher that block's top is than your feet (8 or 16); 0 if none"),
    (
        "walker_dist",
        "px from your front edge to the nearest walker ahead of you (0 if touching); 32 if none within 32 px",
    ),
    ("vy", "vertical speed in px per frame: negative while rising, positive while falling, 0 when standing"),
]
FEATURE_NAMES = [name for name, _ in FEATURES]
FAR = 32.0
_TOPS = (None, 24, 16, 8)  # top pixel row per terrain code; None = a gap
_STANDING_YS = (18, 10, 2)


def compute_features(wx: int, y: int, vc: int, ve: int, level, walkers) -> list[float]:
    """The features from the game's state: world x of the player, y, VC, VE, the level bytes and
    the walkers as (alive, column, offset, ...) rows."""
    ncol = len(level)
    front = wx + 8
    feet = y + 6
    standing = 1.0 if (ve == y and y in _STANDING_YS) else 0.0

    def top(c):  # past the end of the level counts as ground
        return 24 if c >= ncol else _TOPS[level[c] & 3]

    gap_dist = wall_dist = FAR
    gap_width = wall_height = 0.0
    first = max(0, wx // 8)
    for c in range(first, min(ncol, first + 7)):
        start = 8 * c
        if start + 8 <= wx:  # wholly behind the player
            continue
        dist = start - front if start > front else 0
        if dist > FAR:
            break
        t = top(c)
        if t is None:
            if gap_dist == FAR:
                end = c
                while end < ncol and top(end) is None:
                    end += 1
                gap_dist, gap_width = float(dist), 8.0 * (end - c)
        elif wall_dist == FAR and t < feet and start >= front - 1:
            wall_dist, wall_height = float(dist), float(feet - t)
    walker_dist = FAR
    for w in walkers:
        if w[0]:
            d = 8 * w[1] + w[2] - front
            if -8 <= d <= FAR:
                walker_dist = min(walker_dist, float(d if d > 0 else 0))
    vy = 0.0 if standing else float(vc - 8)
    return [standing, float(max(0, 24 - feet)), gap_dist, gap_width, wall_dist, wall_height, walker_dist, vy]


def features(env) -> np.ndarray:
    """The 8 features of a `SuperBeamEnv` (or anything with its `backend`, `sym` and
    `live_level()`), as a float64 array in the order of FEATURES."""
    regs = env.backend.regs()
    wx = 8 * regs[0xD] + regs[0xA]
    etab = env.sym["ETAB"]
    walkers = [[env.backend.ram(etab + 4 * e + i) for i in range(3)] for e in range(2)]
    return np.array(compute_features(wx, regs[0xB], regs[0xC], regs[0xE], env.live_level(), walkers), dtype=np.float64)
