"""The compiled engine for the MinAtar games: the five original ones, the generated ones and the hand-written synthetic
ones (numba; imported only when it is used).

`mt19937.py` reproduces numpy's legacy `RandomState` stream, one module per game steps and observes that game
on an int64 state row exactly as `minatar` 1.0.15 does, `policy.py` decides actions with a rigorous bound
against the reference's one-row computation, and `engine.py` drives lockstep batches with slot reuse.

numba caches compiled code on disk (`cache=True`) but only notices changes to a function's own file, not to
the files of the functions it calls. So the cache in `__pycache__` is cleared here whenever any module of
this package changes (a digest of their sources is kept beside it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def _clear_stale_cache() -> None:
    folder = Path(__file__).parent
    digest = hashlib.sha256(b"".join(path.read_bytes() for path in sorted(folder.rglob("*.py")))).hexdigest()
    stamp = folder / "__pycache__" / "compiled_sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for cached in folder.rglob("__pycache__/*.nb[ic]"):
            cached.unlink()
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only installation: numba then caches in a user folder, keyed by file
        pass


_clear_stale_cache()
