"""A pure-Python twin of the SUPERBEAM ROM's game rules, and a search that proves levels winnable.

`Game.frame(left, right, jump)` performs exactly what one pass of the ROM's main loop does
(roms/superbeam.asm, routine `update`), in the same order and with the same integer arithmetic; the
tests run both side by side on random inputs and compare every state. The twin is about 50 times
faster than the emulator, which makes it possible to search for a winning action sequence for
every generated level in CI (`solve`); the benchmark replays each found sequence on the emulator.

Rules of one frame (world x in px; y is the top row of the 8x6 player; "columns the player
overlaps" are those of its x and x + 7):

1. Jump: if the player stood at the start of the frame, and the jump key is down now but was up
   the frame before, a jump starts: phase = 0.
2. Horizontal: right - left keys give dx. A move is blocked by a column whose top row is above
   the player's feet (top <= y + 5), by the level's right end or by x = 0.
   The camera (column VD) scrolls right when the player's screen x reaches 24 and left when it
   drops below 16, within 0..NCOL-8.
3. VE = the standing y of the highest surface under the player's columns (26 over a gap).
4. Vertical: a player who stood and still stands (y == VE) stays (VC = 8). One who stood and no
   longer does walked off an edge: phase = FALL. An airborne player moves dy = JTAB[phase] - 8
   (phase then advances, stopping at the last entry); y never goes above 0, and when falling
   (dy > 0) it stops at VE: landed. The jump table rises 2,2,2,1,1,1,1 px (10 px), hangs 4
   frames, then falls 1,1,1,1 px and 2 px a frame from then on.
5. y >= 20 (sunk into a gap): dead, the frame ends here.
6. The frame counter advances; on odd frames each live walker steps 1 px in its direction, turning
   (instead of stepping) when the step would take it onto a column that is not ground.
7. A live walker overlapping the player (|walker x - x| <= 7 and y >= 13) is stomped (dies) if the
   player is falling this frame (VC > 8, the landing frame included); otherwise the player dies.
8. The coin in the column of the player's centre (x + 4) is taken when its rows meet the player's.
9. The player's right edge on the flag column (x + 7 >= 8 * FLAG_COL): won.
"""

from __future__ import annotations

from superbeam.levels import COIN_ROW, FLAG_COL, GROUND, NCOL, STAND_Y, START_X, TOP, WIN_X, Level

JTAB = (6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10)  # vertical speed + 8, per jump phase
FALL_PHASE = 11
LAST_PHASE = len(JTAB) - 1
DEAD_Y = 20
SCROLL_RIGHT, SCROLL_LEFT, CAM_MAX = 24, 16, NCOL - 8
PLAYING, WON, DEAD = 0, 1, 2


class Game:
    """The game state after each frame, mirroring the ROM's registers and RAM."""

    __slots__ = (
        "level",
        "x",
        "y",
        "vc",
        "ve",
        "cam",
        "phase",
        "prev_jump",
        "frame",
        "status",
        "coins",
        "walkers",
        "cause",
    )

    def __init__(self, level: Level):
        self.level = bytearray(level.columns)
        self.x, self.y, self.vc, self.ve, self.cam = START_X, 18, 8, 18, 0
        self.phase, self.prev_jump, self.frame, self.status, self.coins = LAST_PHASE, 0, 0, PLAYING, 0
        self.walkers = [list(level.etab()[4 * e : 4 * e + 4]) for e in range(2)]
        self.cause = None

    def copy(self) -> Game:
        g = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(g, name, getattr(self, name))
        g.level = bytearray(self.level)
        g.walkers = [list(w) for w in self.walkers]
        return g

    def key(self) -> tuple:
        """Everything that decides the future (for the search's visited set)."""
        return (self.frame, self.x, self.y, self.vc, self.phase, self.prev_jump, self.walkers[0][0], self.walkers[1][0])

    def frame_step(self, left: bool, right: bool, jump: bool) -> None:
        lv = self.level
        x, y = self.x, self.y
        standing = y == self.ve
        jumped = bool(jump) and not self.prev_jump and standing
        self.prev_jump = 1 if jump else 0
        if jumped:
            self.phase = 0
        dx = int(bool(right)) - int(bool(left))
        if dx > 0:
            c = (x + 8) >> 3
            if c < NCOL and TOP[lv[c] & 3] > y + 5:
                x += 1
        elif dx < 0 and x > 0:
            if TOP[lv[(x - 1) >> 3] & 3] > y + 5:
                x -= 1
        va = x - 8 * self.cam
        if va >= SCROLL_RIGHT and self.cam < CAM_MAX:
            self.cam += 1
        elif va < SCROLL_LEFT and self.cam > 0:
            self.cam -= 1
        ve = min(STAND_Y[lv[x >> 3] & 3], STAND_Y[lv[(x + 7) >> 3] & 3])
        self.x, self.ve = x, ve
        airborne = True
        if not jumped:
            if y == ve:
                self.vc, airborne = 8, False
            elif standing:
                self.phase = FALL_PHASE
        if airborne:
            self.vc = JTAB[self.phase]
            self.phase = min(self.phase + 1, LAST_PHASE)
            dy = self.vc - 8
            y = max(0, y + dy)
            if dy > 0 and y >= ve:
                y = ve
            self.y = y
        if y >= DEAD_Y:
            self.status, self.cause = DEAD, "fell into a gap"
            return
        self.frame += 1
        if self.frame & 1:
            for w in self.walkers:
                if w[0]:
                    _move_walker(w, lv)
        for w in self.walkers:
            if w[0] and abs(w[1] * 8 + w[2] - x) <= 7 and y >= 13:
                if self.vc > 8:
                    w[0] = 0
                else:
                    self.status, self.cause = DEAD, "hit a walker"
                    return
        c = (x + 4) >> 3
        kind = lv[c] >> 2 & 3
        if kind:
            r = COIN_ROW[kind]
            if y <= r + 3 and y + 5 >= r:
                lv[c] &= 0xF3
                self.coins += 1
        if (x + 7) >> 3 >= FLAG_COL:
            self.status = WON

    @property
    def progress(self) -> float:
        return min(1.0, max(0.0, (self.x - START_X) / (WIN_X - START_X)))


def _move_walker(w: list, lv: bytearray) -> None:
    _, col, off, direction = w
    if direction == 1:
        if off:
            off += 1
            if off == 8:
                off, col = 0, col + 1
        elif col + 1 < NCOL and lv[col + 1] & 3 == GROUND:
            off = 1
        else:
            direction = 0
    else:
        if off:
            off -= 1
        elif col > 0 and lv[col - 1] & 3 == GROUND:
            col, off = col - 1, 7
        else:
            direction = 1
    w[1], w[2], w[3] = col, off, direction


# --- actions and the search ------------------------------------------------------------------------

ACTION_KEYS = ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 1, 1), (1, 0, 1))  # left, right, jump


def step(game: Game, action: int, frame_skip: int = 4, max_frames: int = 600, frames_done: int = 0) -> int:
    """Play one action like the environment does (direction keys held, jump only on the first
    frame); returns the frames played."""
    left, right, jump = ACTION_KEYS[action]
    n = 0
    for k in range(frame_skip):
        if game.status or frames_done + n >= max_frames:
            break
        game.frame_step(left, right, jump and k == 0)
        n += 1
    return n


def simple_controller(game: Game) -> int:
    """A hand rule on the same facts the network sees: jump at gaps, walls and walkers."""
    from superbeam.features import compute_features

    f = compute_features(game.x, game.y, game.vc, game.ve, game.level, game.walkers)
    standing, _, gap, _, wall, _, walker, _ = f
    if standing and (gap <= 1 or wall <= 4 or walker <= 12):
        return 4
    return 2


def solve(level: Level, frame_skip: int = 4, max_frames: int = 600, node_limit: int = 20000) -> list[int] | None:
    """A winning action sequence (depth-first search, the simple controller's choice first, then
    right, right+jump, noop, jump, left), or None when none is found within node_limit steps."""
    seen: set = set()
    nodes = 0

    def dfs(game: Game, frames: int, path: list[int]) -> bool:
        nonlocal nodes
        first = simple_controller(game)
        for action in dict.fromkeys((first, 2, 4, 0, 3, 1)):
            nodes += 1
            if nodes > node_limit:
                return False
            g = game.copy()
            n = step(g, action, frame_skip, max_frames, frames)
            if g.status == WON:
                path.append(action)
                return True
            if g.status == DEAD or frames + n >= max_frames:
                continue
            k = g.key()
            if k in seen:
                continue
            seen.add(k)
            path.append(action)
            if dfs(g, frames + n, path):
                return True
            path.pop()
        return False

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * max_frames + 100))
    try:
        path: list[int] = []
        return path if dfs(Game(level), 0, path) else None
    finally:
        sys.setrecursionlimit(limit)
