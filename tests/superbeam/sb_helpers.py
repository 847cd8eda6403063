"""Helpers shared by the SUPERBEAM tests: levels drawn as text, and machine states set by hand."""

from superbeam.levels import GAP, GROUND, NCOL, PIPE, TALL, Level

CHARS = {"#": GROUND, " ": GAP, "h": PIPE, "H": TALL}


def level(text: str, coins: dict | None = None, walkers=()) -> Level:
    """A level from a terrain string ('#' ground, ' ' gap, 'h' pipe, 'H' tall pipe), padded with
    ground to 48 columns; coins {column: kind}; walkers [(column, direction)]."""
    cols = [CHARS[ch] for ch in (text + "#" * NCOL)[:NCOL]]
    for c, kind in (coins or {}).items():
        cols[c] |= kind << 2
    return Level(bytes(cols), list(walkers))


def put(env, x: int, y: int, vc: int = 8, ve: int | None = None, walkers=()) -> None:
    """Place the player at world x, y (VE = y unless given), set VC, and the walker table."""
    m = env.backend
    cam = max(0, min((x - 16) // 8, NCOL - 8))
    m.V[0xD], m.V[0xA], m.V[0xB], m.V[0xC] = cam, x - 8 * cam, y, vc
    m.V[0xE] = y if ve is None else ve
    table = bytearray(8)
    for e, w in enumerate(walkers):
        table[4 * e : 4 * e + len(w)] = bytes(w)
    m.write(env.sym["ETAB"], bytes(table))
