"""SUPERBEAM levels: the byte layout the ROM reads, a seeded generator and the fixed "classic" level.

A level is NCOL = 48 columns of 8 px (384 px of world). Each column is one byte in the ROM's RAM
table `LEVEL`:

    bits 0-1  terrain: 0 gap, 1 ground (top row 24), 2 pipe (top 16), 3 tall pipe (top 8)
    bits 2-3  coin:    0 none, 1 low (rows 19-22), 2 mid (rows 11-14), 3 high (rows 3-6)

The player starts standing on column 1 (x = 8 px); the flag stands on column FLAG_COL = 45 and the
level is won when the player's right edge reaches it. Two walkers, `(column, direction)` with
direction 0 left / 1 right, start at offset 0 of a ground column.

The generator (`generate(seed, difficulty)`) is deterministic (its random numbers come from
`random.Random("superbeam-level:<seed>:<difficulty>")`) and lays the level out left to right:

* columns 0..4 and 42..47 are always ground (a safe start, and a run-up to the flag);
* in between it alternates a ground run of 2..4 columns with an obstacle, chosen with
  probabilities that grow with the difficulty d in [0, 1]:
  - a gap (p = 0.3 + 0.3 d) of one column (8 px) or, with probability 0.2 + 0.6 d, two (16 px);
  - a pipe (p = 0.3 + 0.2 d) of one or two columns, then with probability 0.2 + 0.6 d a tall pipe
    of one column right after it (a tall pipe is only reachable from a pipe next to it);
  - otherwise more ground;
  every obstacle is followed by ground: at least three columns after a gap (room to land and
  take off again), at least two after a pipe (it can be walked off safely);
* a level always has at least one gap and one pipe (otherwise it is laid out again from the same
  random stream);
* walkers: each of the two is spawned with probability 0.25 + 0.75 d on a random ground column
  with ground on both sides, at column 8 or later (never on or next to the player's start);
  unused slots are dead;
* coins: each column from 3 on gets a coin with probability 0.25, at a height that fits its
  terrain: ground low or mid, pipe mid or high, tall pipe high, gap mid (taken mid-jump).

Every level for seeds 0..499 at difficulties 0.2, 0.5 and 0.8 is proven winnable in the tests by a
search over action sequences (see `superbeam.physics`).

The hard generator (`generate_hard(seed)`, for the superbeam/hard task; `random.Random(
"superbeam-hard-level:<seed>")`) asks for several features at once. Columns 0..4 and from HARD_END on
are ground; in between, obstacles follow one another with only 1..3 ground columns (HARD_GROUND)
between them, each drawn with equal chances from HARD_OBSTACLES: a gap right after a pipe, a tall-pipe
climb, a climb then a gap, a gap right before a pipe, a narrow landing between two gaps. Both walkers
are always there, on ground columns from column 8 on that are beside an obstacle; coins as above. Not
every such level is winnable, nor hard: the task keeps only those a search proves winnable and that no
single action held throughout wins (`wspbench.tasks.superbeam.hard_certificate`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

NCOL = 48
START_COL = 1
START_X = 8 * START_COL
FLAG_COL = 45
WIN_X = 8 * FLAG_COL - 7  # the player's left x at which its right edge reaches the flag column
GAP, GROUND, PIPE, TALL = 0, 1, 2, 3
NO_COIN, COIN_LOW, COIN_MID, COIN_HIGH = 0, 1, 2, 3
TOP = (32, 24, 16, 8)  # top pixel row of each terrain (32: none)
STAND_Y = tuple(t - 6 for t in TOP)  # the player's y when standing on it: 26 (none), 18, 10, 2
COIN_ROW = (0, 19, 11, 3)  # top row of a coin of each kind (4 rows tall)
N_WALKERS = 2
TERRAIN_CHARS = {GAP: " ", GROUND: "#", PIPE: "h", TALL: "H"}


@dataclass
class Level:
    """Terrain + coin bytes for the 48 columns, and the two walkers' start (None: no walker)."""

    columns: bytes
    walkers: list = field(default_factory=list)  # [(column, direction) or None] * 2
    name: str = ""

    def __post_init__(self):
        if len(self.columns) != NCOL:
            raise ValueError(f"a level has {NCOL} columns, got {len(self.columns)}")
        self.walkers = (list(self.walkers) + [None] * N_WALKERS)[:N_WALKERS]

    def terrain(self, c: int) -> int:
        return self.columns[c] & 3

    def etab(self) -> bytes:
        """The walker table as the ROM keeps it: (alive, column, offset px, direction) per walker."""
        out = bytearray()
        for w in self.walkers:
            out += bytes((0, 0, 0, 0)) if w is None else bytes((1, w[0], 0, w[1]))
        return bytes(out)

    @property
    def coins_total(self) -> int:
        return sum(1 for b in self.columns if b >> 2 & 3)

    def text(self) -> str:
        """The terrain, one character per column: "#" ground, " " gap, "h" pipe, "H" tall pipe."""
        return "".join(TERRAIN_CHARS[b & 3] for b in self.columns)


def generate(seed: int, difficulty: float = 0.5) -> Level:
    """The level for (seed, difficulty); see the module docstring for the rules."""
    d = min(1.0, max(0.0, float(difficulty)))
    rng = random.Random(f"superbeam-level:{int(seed)}:{d:.6f}")
    for _ in range(100):
        cols = _lay_out(rng, d)
        kinds = {c & 3 for c in cols}
        if GAP in kinds and (PIPE in kinds):
            break
    walkers = []
    for _ in range(N_WALKERS):
        if rng.random() < 0.25 + 0.75 * d:
            spots = [
                c
                for c in range(8, FLAG_COL - 2)
                if cols[c - 1] == cols[c] == cols[c + 1] == GROUND and all(w[0] != c for w in walkers)
            ]
            if spots:
                walkers.append((rng.choice(spots), rng.randrange(2)))
    _add_coins(rng, cols)
    return Level(bytes(cols), walkers, name=f"level {seed} at difficulty {d:g}")


def _lay_out(rng: random.Random, d: float) -> list[int]:
    cols = [GROUND] * NCOL
    end = FLAG_COL - 3  # obstacles end before this column
    c = 5
    p_gap, p_pipe = 0.3 + 0.3 * d, 0.3 + 0.2 * d
    while True:
        r = rng.random()
        if r < p_gap:
            obstacle = [GAP] * (2 if rng.random() < 0.2 + 0.6 * d else 1)
        elif r < p_gap + p_pipe:
            obstacle = [PIPE] * rng.choice((1, 1, 2))
            if rng.random() < 0.2 + 0.6 * d:
                obstacle.append(TALL)
        else:
            obstacle = []
        if c + len(obstacle) + 3 > end:
            return cols
        cols[c : c + len(obstacle)] = obstacle
        c += len(obstacle) + rng.randint(3 if obstacle[:1] == [GAP] else 2, 4)


def _add_coins(rng: random.Random, cols: list[int]) -> None:
    for c in range(3, FLAG_COL):
        if rng.random() < 0.25:
            t = cols[c]
            coin = {GAP: (COIN_MID,), GROUND: (COIN_LOW, COIN_MID), PIPE: (COIN_MID, COIN_HIGH), TALL: (COIN_HIGH,)}[t]
            cols[c] |= rng.choice(coin) << 2


# --- hard levels (the superbeam/hard task) -----------------------------------------------------------

HARD_OBSTACLES = (  # each a row of parts (terrain, fewest columns, most columns), all drawn with equal chances
    ((PIPE, 1, 2), (GAP, 1, 2)),  # a gap right after a pipe
    ((PIPE, 1, 1), (TALL, 1, 2)),  # a tall-pipe climb
    ((PIPE, 1, 1), (TALL, 1, 1), (GAP, 1, 2)),  # a climb, then a gap
    ((GAP, 1, 1), (PIPE, 1, 2)),  # a gap right before a pipe
    ((GAP, 1, 2), (GROUND, 1, 2), (GAP, 1, 2)),  # a narrow landing between two gaps
)
HARD_GROUND = (1, 3)  # ground columns between two obstacles: fewest, most
HARD_END = FLAG_COL - 5  # obstacles end before this column


def generate_hard(seed: int) -> Level:
    """The hard level for `seed` (see the module docstring): obstacles that need several features at once."""
    rng = random.Random(f"superbeam-hard-level:{int(seed)}")
    cols = [GROUND] * NCOL
    c = 5
    while True:
        obstacle = [t for t, fewest, most in rng.choice(HARD_OBSTACLES) for _ in range(rng.randint(fewest, most))]
        if c + len(obstacle) > HARD_END:
            break
        cols[c : c + len(obstacle)] = obstacle
        c += len(obstacle) + rng.randint(*HARD_GROUND)
    beside = [k for k in range(8, FLAG_COL - 2) if cols[k] == GROUND and {cols[k - 1], cols[k + 1]} != {GROUND}]
    walkers = [(k, rng.randrange(2)) for k in rng.sample(beside, min(N_WALKERS, len(beside)))]
    _add_coins(rng, cols)
    return Level(bytes(cols), walkers, name=f"hard level {seed}")


CLASSIC_MAP = "#######h## ###ohH###  ##hh##### ###hhH####  ####"  # noqa
CLASSIC_COINS = {
    7: COIN_MID,
    13: COIN_LOW,
    15: COIN_MID,
    16: COIN_HIGH,
    20: COIN_MID,
    24: COIN_HIGH,
    31: COIN_MID,
    36: COIN_HIGH,
    41: COIN_MID,
}


def classic() -> Level:
    """A fixed hand-made level that shows every element: gaps of both widths, pipes, tall pipes,
    two walkers and coins at each height."""
    terrain = {"#": GROUND, "o": GROUND, " ": GAP, "h": PIPE, "H": TALL}
    row = (CLASSIC_MAP + "#" * NCOL)[:NCOL]
    cols = [terrain[ch] for ch in row]
    for c, kind in CLASSIC_COINS.items():
        cols[c] |= kind << 2
    return Level(bytes(cols), [(27, 0), (38, 1)], name="classic")


def get_level(level, difficulty: float = 0.5) -> Level:
    """A Level from a Level, the name "classic", or an integer seed."""
    if isinstance(level, Level):
        return level
    if isinstance(level, str) and level.strip().lower() == "classic":
        return classic()
    return generate(int(level), difficulty)
