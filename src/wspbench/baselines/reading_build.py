"""Make a reading set's networks: train them (`ppo.py`), choose and measure the damage of each repair network,
and refill the rows of W1 that a network never uses. `wsp reading build` writes a private set with `build`;
benchmarks/damage.py and benchmarks/refill.py made the public set (`reading/`) with the same functions.

Refill (docs/reading.md, "Floors"): PPO leaves the row of an input that is never on exactly as it drew it, so the
map of untouched rows is a map of where the game puts its objects, and the public code plus the training seed draws
them. The inputs that are ever on are collected while the network (and each damaged copy) plays, as the grader
plays it, SCORING_EPISODES scoring and TRAINING_EPISODES training episodes. Every other row of W1 is redrawn:
each entry drawn from the used rows' entries in its column, times exp(N(-JITTER^2, JITTER)) (mean square 1, so
the refilled rows are no larger than the others), from numpy's default_rng seeded by HMAC-SHA256(key, label).
An input that is never on contributes exactly 0, so every episode gives the same return before and after, which
`refill` checks. Rows of inputs that are on in these episodes but never were in training still hold their initial
values: they are redrawn the same way, which can change a return, so damages are measured after the refill.

Damages (`measure_damages`): a repair network gets a task when it has learned something: its mean return on
TRAINING_EPISODES training episodes is positive and at least LEARNED times the best of the zero network and the
six constant-action networks. Then its round's kinds (`repair.kind_order`) are measured in order until one is
clear (`repair.clear_kinds`). For each kind the possible parameters (a pair of actions, a channel; for the kinds
that hit units, units drawn without replacement, in the order drawn) are tried in an order
drawn from default_rng(crc32("<game>/<kind>")), at most MAX_TRIES, each played on the training episodes; the
first that costs at least MIN_DROP of the trained network's mean return is kept if the trained network is ahead
on every first n >= MIN_EPISODES of the SCORING_EPISODES first scoring episodes (so that every score has a positive
denominator). Scoring episodes never choose a parameter or a game.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import time
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from wspbench.baselines import measured
from wspbench.baselines.ppo import Budget, initial, train
from wspbench.evaluation import ONE_WORKER
from wspbench.evaluation.engine import play_reference
from wspbench.games.minatar import MinAtarGame, all_games
from wspbench.networks import MINATAR_NETWORK, Weights, save_network
from wspbench.tasks import repair
from wspbench.tasks.minatar import MinAtarTask
from wspbench.tasks.reading_set import DAMAGES_FILE, DAMAGES_FORMAT, SET_FILE, SET_FORMAT, ReadingSet, set_tag

SCORING_EPISODES, TRAINING_EPISODES = 200, 100
JITTER = 0.2
LEARNED = 1.5
MAX_TRIES = 8
CHOICES = {
    "swap_actions": [list(pair) for pair in itertools.combinations(range(6), 2)],
    "zero_channel": [[channel] for channel in range(6)],
}
BUDGET = Budget(steps=1_000_000, environments=16, minibatches=8, learning_rate=2.5e-4, checkpoints=0)  # the
# public set's networks: 1M steps, the last network kept (benchmarks/train.py trains the baseline for 10M)


# --- refill -------------------------------------------------------------------------------------------
def used_inputs(binding: MinAtarGame, networks: list[Weights], episodes: list[int]) -> np.ndarray:
    """Which of the 600 inputs are ever on while these networks play these episodes."""
    seen = np.zeros(600, dtype=bool)

    def observe(screen, logits, action, value):
        seen[:] |= screen.reshape(-1) != 0

    for weights in networks:
        play_reference(binding, weights, episodes, observe=observe)
    return seen


def refilled(weights: Weights, redraw: np.ndarray, generator: np.random.Generator) -> Weights:
    """A copy of `weights` whose rows of W1 marked in `redraw` hold values drawn like the others' (see above)."""
    out = {name: np.array(tensor, copy=True) for name, tensor in weights.items()}
    w1, unused = out["W1"], np.flatnonzero(redraw)
    for column in range(w1.shape[1]):
        pool = w1[~redraw, column]
        drawn = pool[generator.integers(len(pool), size=len(unused))]
        w1[unused, column] = drawn * np.exp(generator.normal(-(JITTER**2), JITTER, size=len(unused)))
    return out


def returns(task: MinAtarTask, weights: Weights, episodes: list[int]) -> list[float]:
    return list(task.score(weights, episodes, ONE_WORKER).values)


def refill(binding: MinAtarGame, weights: Weights, seed: int, key: bytes, label: str, damages: dict) -> tuple:
    """The network with its unused rows of W1 refilled (and its used rows that still hold their initial
    values, as `ppo.train` drew them with this seed, redrawn), and a record of it. `damages` (kind: entry) are
    played too, and every return of the network and each damaged copy is checked unchanged by the first step."""
    task = MinAtarTask(binding)
    damaged = [repair.damage(weights, kind, entry["parameter"]) for kind, entry in damages.items()]
    episodes = task.scoring_episodes(SCORING_EPISODES) + task.training_episodes(TRAINING_EPISODES)
    used = used_inputs(binding, [weights, *damaged], episodes)
    start = initial(MINATAR_NETWORK.sizes, 0.01, np.random.default_rng(seed))[0]
    untrained = (weights["W1"] == start).all(axis=1)
    digest = hmac.new(key, label.encode(), hashlib.sha256).digest()
    generator = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    unchanged = refilled(weights, ~used, generator)  # the unused rows only: every return must stay the same
    pairs = [(weights, unchanged)] + [
        (before, repair.damage(unchanged, kind, entry["parameter"]))
        for before, (kind, entry) in zip(damaged, damages.items(), strict=True)
    ]
    for before, after in pairs:
        if returns(task, before, episodes) != returns(task, after, episodes):
            raise RuntimeError(f"{label}: refilling unused rows changed a return")
    new = refilled(unchanged, untrained & used, generator) if (untrained & used).any() else unchanged
    record = {
        "rows": int((~used).sum()),
        "used_rows_at_initial_values": int((untrained & used).sum()),
        "episodes": {"scoring": SCORING_EPISODES, "training": TRAINING_EPISODES},
        "networks_played": len(pairs),
        "rule": "wspbench/baselines/reading_build.py: unused rows of W1 drawn from the used rows' column values times "
        f"exp(N(-{JITTER}^2, {JITTER})), from a secret key; every return checked unchanged",
    }
    return new, record


# --- damages ------------------------------------------------------------------------------------------
def choices(kind: str, seed: int) -> list[list[int]]:
    """The parameters to try for this kind of damage, in the seeded order (flip_units' units sorted)."""
    generator = np.random.default_rng(seed)
    if kind == "flip_units":
        return [
            sorted(int(u) for u in generator.choice(32, repair.FLIPPED_UNITS, replace=False)) for _ in range(MAX_TRIES)
        ]
    return [CHOICES[kind][i] for i in generator.permutation(len(CHOICES[kind]))[:MAX_TRIES]]


def mean_return(task: MinAtarTask, weights: Weights, episodes: list[int]) -> tuple[float, list[float]]:
    score = task.score(weights, episodes, ONE_WORKER)
    return score.raw, list(score.values)


def measure_damages(binding: MinAtarGame, trained: Weights, kinds: Sequence[str]) -> dict:
    """A repair network's `damages.json` entry: the trained network's returns and the damage of each of `kinds`,
    measured in order until one is clear, or {"skipped": why}."""
    name, task = binding.game, MinAtarTask(binding)
    started = time.perf_counter()
    train_episodes, scoring = task.training_episodes(TRAINING_EPISODES), task.scoring_episodes(SCORING_EPISODES)
    trained_train, _ = mean_return(task, trained, train_episodes)
    trivial = [task.network.zeros()] + [measured.constant_weights(task.network, a) for a in range(6)]
    floor = max(mean_return(task, weights, train_episodes)[0] for weights in trivial)
    if trained_train <= 0 or trained_train < LEARNED * floor:
        return {
            "skipped": f"its trained network's mean return on training episodes is {trained_train:.4g}, the best "
            f"of the zero and constant-action networks {floor:.4g}"
        }
    _, trained_scoring = mean_return(task, trained, scoring)
    entry = {"trained": trained_scoring, "trained_training_return": trained_train, "damages": {}, "skipped": {}}
    for kind in kinds:
        if repair.clear_kinds(entry):
            break
        seed = zlib.crc32(f"{name}/{kind}".encode())
        order = choices(kind, seed)
        for tried, parameter in enumerate(order, start=1):
            damaged = repair.damage(trained, kind, parameter)
            damaged_train, _ = mean_return(task, damaged, train_episodes)
            drop = (trained_train - damaged_train) / trained_train
            if drop >= repair.MIN_DROP:
                _, damaged_scoring = mean_return(task, damaged, scoring)
                gains = np.cumsum(np.subtract(trained_scoring, damaged_scoring))[repair.MIN_EPISODES - 1 :]
                if np.all(gains > 0):
                    entry["damages"][kind] = {
                        "parameter": parameter,
                        "seed": seed,
                        "tried": tried,
                        "training_drop": round(drop, 4),
                        "damaged": damaged_scoring,
                    }
                    break
        else:
            entry["skipped"][kind] = (
                f"none of {len(order)} seeded choices costs {repair.MIN_DROP:g} of the return on training episodes "
                f"and some return on every first n >= {repair.MIN_EPISODES} scoring episodes"
            )
    entry["seconds"] = round(time.perf_counter() - started, 1)
    return entry


def damages_file(measured: dict[str, dict]) -> dict:
    """The contents of `damages.json` for these networks' entries (keyed "<game>.<seed>")."""
    return {
        "format": DAMAGES_FORMAT,
        "min_drop": repair.MIN_DROP,
        "training_episodes": TRAINING_EPISODES,
        "scoring_episodes": SCORING_EPISODES,
        "max_tries": MAX_TRIES,
        "networks": {name: entry for name, entry in measured.items() if "damages" in entry},
        "skipped_networks": {name: entry["skipped"] for name, entry in measured.items() if "damages" not in entry},
    }


# --- a private set ------------------------------------------------------------------------------------
def build(
    key: str,
    out: Path,
    name: str = "private",
    games: list[str] | None = None,
    budget: Budget = BUDGET,
    counts: tuple[int, int] = (1, 1),
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
) -> ReadingSet:
    """Train, refill and measure a private reading set into `out` (which must be empty or absent) and return
    it. Its seeds, ids and refilled values come from `key`: the same key builds the same set; the key itself is
    not written. `counts`: identify (original games only) and identify-choice networks per game; each game also
    gets a repair network per round of `repair.ROUNDS`."""
    tag = set_tag(key, name, "reading")
    known = {game.game: game for game in all_games()}
    chosen = list(known) if not games else games
    unknown = [game for game in chosen if game not in known]
    if unknown:
        raise ValueError(f"unknown games: {', '.join(unknown)} (games: {', '.join(sorted(known))})")
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"{out} is not an empty folder")
    out.mkdir(parents=True, exist_ok=True)
    reading_set = ReadingSet(out, name, counts, tag, frozenset(chosen))
    started = time.perf_counter()
    measured = {}
    with ProcessPoolExecutor(max(1, workers)) as pool:
        jobs = [pool.submit(_build_game, key, reading_set, known[game], budget) for game in chosen]
        for job in jobs:
            game, entries, line = job.result()
            measured.update(entries)
            if progress is not None:
                progress(line)
    (out / DAMAGES_FILE).write_text(json.dumps(damages_file(measured), separators=(",", ":")) + "\n")
    facts = {
        "format": SET_FORMAT,
        "name": name,
        "tag": tag,
        "identify": counts[0],
        "identify_choice": counts[1],
        "games": chosen,
        "budget": budget.describe() | {"seed": "drawn from the key, one per network"},
        "seconds": round(time.perf_counter() - started, 1),
    }
    (out / SET_FILE).write_text(json.dumps(facts, indent=1) + "\n")
    return reading_set


def _build_game(key: str, reading_set: ReadingSet, binding: MinAtarGame, budget: Budget) -> tuple[str, dict, str]:
    """Train, refill and save one game's networks in the set; its damages.json entry; a line saying so. One BLAS
    thread: the games run one per process, side by side."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _build_one(key, reading_set, binding, budget)


def _build_one(key: str, reading_set: ReadingSet, binding: MinAtarGame, budget: Budget) -> tuple[str, dict, str]:
    game, task, started = binding.game, MinAtarTask(binding), time.perf_counter()
    for seed in reading_set.identify_seeds(binding):
        weights, about = train(task, replace(budget, seed=seed))
        weights, about["refill"] = refill(binding, weights, seed, key.encode(), f"{game}.{seed}", {})
        save_network(reading_set.folder, f"{game}.{seed}", weights, about)

    def entry_of(_: int, seed: int, kinds: list[str]) -> dict:
        """Train the round's network, measure its damages, refill it and save it."""
        weights, about = train(task, replace(budget, seed=seed))
        entry = measure_damages(binding, weights, kinds)
        damages = {kind: entry["damages"][kind] for kind in repair.clear_kinds(entry)}
        weights, about["refill"] = refill(binding, weights, seed, key.encode(), f"{game}.{seed}", damages)
        if about["refill"]["used_rows_at_initial_values"]:
            entry = measure_damages(binding, weights, kinds)  # a redrawn row that is used can change the returns
        save_network(reading_set.folder, f"{game}.{seed}", weights, about)
        return entry

    entries, said = {}, []
    for seed, entry, kind in repair.walk_rounds(game, reading_set.seeds("repair", game), entry_of):
        entries[f"{game}.{seed}"] = entry
        said.append(f"a repair task ({kind})" if kind else f"no repair task: {no_repair_because(entry)}")
    return game, entries, f"{game}: {'; '.join(said)}, {time.perf_counter() - started:.0f} s"


def no_repair_because(entry: dict) -> str:
    """Why a network's measured damages (its damages.json entry) gave no repair task."""
    if "damages" not in entry:
        return str(entry.get("skipped"))
    why = [f"{kind}: {reason}" for kind, reason in entry.get("skipped", {}).items()]
    why += [
        f"{kind}: the damaged network keeps more than {repair.MAX_DAMAGED_SHARE:g} of the return on scoring episodes, "
        f"or the gap is under {repair.MIN_GAP_SE:g} standard errors"
        for kind in entry.get("damages", {})
    ]
    return "; ".join(why) or "no damage was measured"
