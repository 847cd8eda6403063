"""The level generator: deterministic, well-formed, harder with difficulty, and every level for
seeds 0..499 at difficulties 0.2, 0.5, 0.8 proven winnable.

The proof is a search over action sequences (superbeam.physics.solve) run on the Python twin of
the ROM, which test_superbeam_game checks against the machine state for state; here a sample of
the found sequences is also replayed on the machine itself, and benchmarks/superbeam_levels.py
replays all 1500 of them there.
"""

import hashlib

import pytest

from superbeam import physics
from superbeam.env import SuperBeamEnv
from superbeam.levels import (
    FLAG_COL,
    GAP,
    GROUND,
    HARD_END,
    N_WALKERS,
    NCOL,
    PIPE,
    TALL,
    classic,
    generate,
    generate_hard,
    get_level,
)

DIFFICULTIES = (0.2, 0.5, 0.8)


def test_deterministic_and_seed_dependent():
    assert generate(7, 0.5) == generate(7, 0.5)
    assert generate(7, 0.5).columns != generate(8, 0.5).columns
    assert generate(7, 0.5).columns != generate(7, 0.8).columns
    assert get_level("classic") == classic() and get_level(7, 0.5) == generate(7, 0.5)


@pytest.mark.parametrize("d", DIFFICULTIES)
def test_levels_are_well_formed(d):
    for seed in range(500):
        L = generate(seed, d)
        t = [L.terrain(c) for c in range(NCOL)]
        assert t[:5] == [GROUND] * 5 and t[FLAG_COL - 3 :] == [GROUND] * (NCOL - FLAG_COL + 3)
        assert GAP in t and PIPE in t
        for c in range(NCOL):
            if t[c] == GAP and t[c - 1] != GAP:
                width = 1 if t[c + 1] != GAP else 2
                assert t[c - 1] == GROUND and t[c + width : c + width + 3] == [GROUND] * 3
            if t[c] == TALL:
                assert t[c - 1] == PIPE and t[c + 1 : c + 3] == [GROUND] * 2
            kind = L.columns[c] >> 2 & 3
            if kind:
                assert kind in {GAP: (2,), GROUND: (1, 2), PIPE: (2, 3), TALL: (3,)}[t[c]]
        for w in L.walkers:
            if w is not None:
                col, direction = w
                assert col >= 8 and t[col - 1] == t[col] == t[col + 1] == GROUND and direction in (0, 1)


def test_difficulty_raises_gaps_pipes_and_walkers():
    def stats(d):
        gaps = tall = walkers = 0
        for seed in range(100):
            L = generate(seed, d)
            gaps += sum(L.terrain(c) == GAP for c in range(NCOL))
            tall += sum(L.terrain(c) == TALL for c in range(NCOL))
            walkers += sum(w is not None for w in L.walkers)
        return gaps, tall, walkers

    easy, hard = stats(0.2), stats(0.8)
    assert all(h > e for h, e in zip(hard, easy, strict=True))


@pytest.mark.parametrize("d", DIFFICULTIES)
def test_every_level_is_winnable(d):
    unsolved = [seed for seed in range(500) if physics.solve(generate(seed, d)) is None]
    assert unsolved == []


@pytest.mark.parametrize("seed,d", [(0, 0.2), (41, 0.5), (1000003, 0.5), (77, 0.8), (499, 0.8), ("classic", 0.5)])
def test_found_solutions_win_on_the_machine(seed, d):
    L = get_level(seed, d)
    actions = physics.solve(L)
    env = SuperBeamEnv(L)
    info = {}
    for a in actions:
        _, _, term, trunc, info = env.step(a)
        if term or trunc:
            break
    assert info["won"]


def test_the_generator_is_unchanged():
    """`generate` gives every level byte for byte as it did before the hard generator joined it (a digest of
    seeds 0..299 at six difficulties, taken on the code before)."""
    digest = hashlib.sha256()
    for d in (0.2, 0.3, 0.5, 0.7, 0.8, 0.9):
        for seed in range(300):
            level = generate(seed, d)
            digest.update(level.columns + repr(level.walkers).encode())
    assert digest.hexdigest() == "7b94fd22372085fb28341cc3512a2661dd61bd8d36393899bbdc3202ce579877"


def test_hard_levels_are_deterministic_well_formed_and_harder():
    assert generate_hard(7) == generate_hard(7) and generate_hard(7).columns != generate_hard(8).columns
    assert generate_hard(7).columns != generate(7, 1.0).columns
    obstacles = {"hard": 0, "hardest of generate": 0}  # columns that are not ground
    for seed in range(300):
        L = generate_hard(seed)
        t = [L.terrain(c) for c in range(NCOL)]
        assert t[:5] == [GROUND] * 5 and t[HARD_END:] == [GROUND] * (NCOL - HARD_END)
        assert all(t[c - 1] in (PIPE, TALL) for c in range(NCOL) if t[c] == TALL)  # climbed from a pipe
        assert len(L.walkers) == N_WALKERS
        for col, direction in L.walkers:
            assert col >= 8 and t[col] == GROUND and {t[col - 1], t[col + 1]} != {GROUND} and direction in (0, 1)
        assert L.walkers[0][0] != L.walkers[1][0]
        obstacles["hard"] += sum(kind != GROUND for kind in t)
        obstacles["hardest of generate"] += sum(b & 3 != GROUND for b in generate(seed, 1.0).columns)
    assert obstacles["hard"] > 1.4 * obstacles["hardest of generate"]
