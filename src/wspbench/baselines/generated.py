"""Calibrated generated games: a game written by `minatar_synth/generator.py` becomes a task only when a network of
the task's shape, trained by PPO (`ppo.py`) on training episodes, clearly beats every trivial player, and that
network sets its cap. No hand-written reference or scripted player is needed.

For one seed (`calibrate`), on CALIBRATION episodes (`MinAtarTask.calibration_episodes`: seeds disjoint from the
scoring and the training episodes):
  1. trivial players: the zero network (uniformly random actions), each constant action
     (`measured.constant_weights`) and RANDOM random networks (`measured.random_weights`), mean returns;
  2. PPO with BUDGET on training episodes (its checkpoints are scored on the first training episodes);
  3. the trained network's mean return and standard error;
  4. with `programs`, every public program played unchanged (`crossplay`): the best one (`best_public`).
Keep rule (`judge`): trained >= TIMES x the best trivial player (the zero network or a constant action), trained -
best trivial >= STANDARD_ERRORS standard errors of that difference, and the best public program's mean <=
PUBLIC_SHARE x the cap. Cap rule: `synth.cap_rule(CAP_FACTOR x trained mean)`, or of the game's hindsight bound's
mean where `synth.CAP_SOURCE` is "bound" (then measured for each game that passes the trivial rule). A score is
min(raw, cap) / cap, so a cap at the trained mean would give a 1.0 that better networks cannot pass; CAP_FACTOR is
set from what 20M steps of the same PPO reach on a sample of games (benchmarks/generated_headroom.py,
docs/generated.md).

The public family `gen/<seed>` was calibrated by benchmarks/calibrate_generated.py (rows in
`minatar_synth/generated.json`, networks in `minatar_synth/trained/`); `build` makes a private set of generated
games from a key (`wsp games generate`), loaded through WSP_PRIVATE_SETS as the private reading sets are
(`tasks/reading_set.py`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np

from minatar_synth import generator
from wspbench.baselines.measured import constant_weights, random_weights
from wspbench.baselines.ppo import Budget, train
from wspbench.evaluation import ONE_WORKER
from wspbench.games import synth
from wspbench.games.minatar import MinAtarGame
from wspbench.networks import MINATAR_NETWORK, Weights, load_network, save_network
from wspbench.tasks.minatar import (
    GENERATED_FILE,
    GENERATED_FORMAT,
    GENERATED_NETWORKS,
    MinAtarTask,
    generated_calibration,
)

CALIBRATION = 200  # calibration episodes per player
RANDOM = 5  # random networks per game
TIMES = 2.0  # kept only if trained >= TIMES x best trivial ...
STANDARD_ERRORS = 10.0  # ... and trained - best trivial >= STANDARD_ERRORS standard errors
CAP_FACTOR = 3.0  # cap = synth.cap_rule(CAP_FACTOR x trained mean): the smallest factor (in steps of 0.5) that kept
# every 20M-step network of the headroom sample at or below 0.9 (docs/generated.md, "Headroom")
PUBLIC_SHARE = 0.5  # ... and kept only if the best public program's mean <= PUBLIC_SHARE x cap
BUDGET = Budget(steps=5_000_000, checkpoints=10, checkpoint_episodes=50)
PRIVATE_SEEDS = 10**6  # a private set's seeds start here, above any public one
SEEDS_PER_GAME = 4  # a private build tries at most this many seeds per game it is asked for


def settings(budget: Budget = BUDGET, episodes: int = CALIBRATION) -> dict:
    """What a calibration row depends on besides the game: rows with other settings are not reused."""
    found = {"steps": budget.steps, "episodes": episodes, "random_networks": RANDOM}
    if synth.CAP_SOURCE != "bound":
        return found
    from wspbench.baselines import bound  # the compiled search: loaded only where a cap comes from it

    return {**found, "bound": bound.settings()}


def rules(bound: bool = False) -> dict:
    """The keep and cap rules in words (`generated.json` keeps them); `bound`: caps from the hindsight bound."""
    cap = "the hindsight bound's mean" if bound else f"{CAP_FACTOR:g} x trained mean"
    return {
        "keep": f"trained >= {TIMES:g} x best trivial (zero or a constant action) and the gap >= "
        f"{STANDARD_ERRORS:g} standard errors, on calibration episodes",
        "cap": f"synth.cap_rule({cap} on calibration episodes)",
        "trivial": f"zero network, 6 constant actions, {RANDOM} random networks (their mean: not in the keep rule)",
        "public": f"the best public program played unchanged (a hand-written game's reference program or another "
        f"kept generated game's network) <= {PUBLIC_SHARE:g} x cap, on calibration episodes",
    }


def cap_of(trained: float, bound: float | None = None) -> float | None:
    """A game's cap: from its hindsight bound's mean where one was measured (issue 48: `synth.cap_rule` of it),
    else CAP_FACTOR x its trained network's mean."""
    if bound is not None:
        return synth.cap_rule(bound) if bound > 0 else None
    return synth.cap_rule(CAP_FACTOR * trained) if trained > 0 else None


def mean_and_error(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def calibrate(
    seed: int,
    folder: Path,
    budget: Budget = BUDGET,
    episodes: int = CALIBRATION,
    programs: dict[str, Weights] | None = None,
) -> tuple[dict, Weights, dict]:
    """Write game `seed` (placeholder cap) into `folder`, measure it and train on it: its row (`kept`, `cap`, the
    reasons it was rejected), the trained weights and what the training did. With `programs` (`public_programs`),
    each is played unchanged on the game and the best one counts in the verdict; the public family plays its own
    networks against each other after training them all (`public_family`). One core."""
    started = time.perf_counter()
    with written(seed, folder) as (task, text):
        return _calibrate(seed, task, text, budget, episodes, programs, started)


@contextmanager
def written(seed: int, folder: Path) -> Iterator[tuple[MinAtarTask, str]]:
    """Game `seed` written into `folder` with its placeholder cap, as a task while the context lasts, and its text:
    how the calibration plays a game before it has a cap (the scores do not depend on it)."""
    text = generator.write(seed, folder).read_text()
    name = generator.module_name(seed)
    with synth.borrowed(folder, name):
        yield MinAtarTask(MinAtarGame(name, "gen")), text


def _calibrate(
    seed: int, task: MinAtarTask, text: str, budget: Budget, episodes: int, programs: dict | None, started: float
) -> tuple[dict, Weights, dict]:
    name = task.game.name
    design = generator.design(seed)
    row = {"seed": seed, "game": name, "settings": settings(budget, episodes), "description": synth.description(name)}
    row["source_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    row["mechanics"] = {
        "layout": design.layout,
        "fire": design.fire,
        "scoring": design.scoring,
        "ending": design.ending,
        "reward_motion": design.reward.motion if design.reward else None,
        "danger_motion": design.danger.motion,
        "max_steps": design.max_steps,
    }
    row["lines"] = len(text.splitlines())
    seconds = {"generation": round(time.perf_counter() - started, 2)}

    started = time.perf_counter()
    chosen = task.calibration_episodes(episodes)
    network = task.network

    def returns(weights):
        return task.score(weights, chosen, ONE_WORKER).values

    zero_returns = returns(network.zeros())
    constant_returns = [returns(constant_weights(network, action)) for action in range(6)]
    zero = mean_and_error(zero_returns)
    constants = [mean_and_error(values)[0] for values in constant_returns]
    randoms = [mean_and_error(returns(random_weights(network, k)))[0] for k in range(RANDOM)]
    trivial = max(zero[0], *constants)
    row["baselines"] = {
        "zero": round(zero[0], 3),
        "constant": [round(c, 3) for c in constants],
        "best_constant": int(np.argmax(constants)),
        "random_mean": round(float(np.mean(randoms)), 3),
        "random_best": round(max(randoms), 3),
        "best_trivial": round(trivial, 3),
    }
    seconds["baselines"] = round(time.perf_counter() - started, 1)

    weights, about = train(task, budget)
    about["steps_per_second"] = round(about["steps"] / about["seconds"])
    seconds["training"] = about["seconds"]
    row["steps"] = about["steps"]
    row["steps_per_second"] = about["steps_per_second"]

    started = time.perf_counter()
    trained_returns = returns(weights)
    trained, error = mean_and_error(trained_returns)
    # The standard error of (trained - best trivial): the trivial player's own spread is counted too.
    best = network.zeros() if trivial == zero[0] else constant_weights(network, int(np.argmax(constants)))
    gap_error = float(np.sqrt(error**2 + mean_and_error(returns(best))[1] ** 2))
    row["trained"] = {"mean": round(trained, 3), "stderr": round(error, 3), "gap_stderr": round(gap_error, 3)}
    seconds["calibration"] = round(time.perf_counter() - started, 1)
    if synth.CAP_SOURCE == "bound" and not trivial_reasons(trained, trivial, gap_error):
        from wspbench.baselines import bound

        started = time.perf_counter()
        players = np.max([trained_returns, zero_returns, *constant_returns], axis=0)
        summary, _ = bound.calibrate(task, list(chosen), players)
        row["bound"] = round(summary["mean"], 3)
        row["bound_search"] = {key: summary[key] for key in ("stderr", "width", "converged", "cpu_seconds")}
        seconds["bound"] = round(time.perf_counter() - started, 1)
    if programs is not None:
        started = time.perf_counter()
        row["public"] = best_public(crossplay(task, programs, chosen))
        seconds["public"] = round(time.perf_counter() - started, 1)
    row["seconds"] = seconds
    return judge(row), weights, about


def trivial_reasons(trained: float, trivial: float, gap_error: float) -> list[str]:
    """Why the trained network does not clearly beat the best trivial player (the keep rule's first part); []
    when it does."""
    reasons = []
    if not trained >= TIMES * trivial:
        reasons.append(f"trained {trained:.2f} < {TIMES:g} x best trivial {trivial:.2f}")
    if not trained - trivial >= STANDARD_ERRORS * gap_error:
        reasons.append(f"gap {trained - trivial:.2f} < {STANDARD_ERRORS:g} standard errors ({gap_error:.2f} each)")
    return reasons


def judge(row: dict) -> dict:
    """The row with its cap and verdict (`kept`, `rejected_because`) by the keep and cap rules, from what it
    measured: its trivial players, its trained network, when measured its hindsight bound's mean (`bound`) and, when
    played, the best public program (`public`)."""
    trivial, trained = row["baselines"]["best_trivial"], row["trained"]["mean"]
    gap_error, cap = row["trained"]["gap_stderr"], cap_of(trained, row.get("bound"))
    reasons = trivial_reasons(trained, trivial, gap_error)
    if cap is None:
        reasons.append("trained mean not positive: no cap")
    public = row.get("public")
    if cap is not None and public is not None and public["mean"] > PUBLIC_SHARE * cap:
        program, mean = public["program"], public["mean"]
        reasons.append(f"public program {program} scores {mean:.2f} > {PUBLIC_SHARE:g} x cap {cap:g}")
    factor = None if row.get("bound") is not None else CAP_FACTOR
    return {**row, "kept": not reasons, "rejected_because": reasons, "cap_factor": factor, "cap": cap}


def hand_written_programs() -> dict[str, Weights]:
    """The reference programs of the hand-written games (original and synthetic), by game: public, so a model could
    play one unchanged on a generated game."""
    from wspbench.tasks import select

    return {task.game.name: task.read(task.offline_answer("reference"))[0] for task in select("original/*,synth/*")}


def network_programs(folder, games) -> dict[str, Weights]:
    """The trained networks of `games` (`<game>.0.npz` in `folder`), by game."""
    found = {}
    for game in games:
        stored = load_network(folder, f"{game}.{BUDGET.seed}", MINATAR_NETWORK)
        if stored is not None:
            found[game] = stored[0]
    return found


@cache
def public_programs() -> dict[str, Weights]:
    """Every program a private game is checked against: the hand-written references and the public family's
    networks (`minatar_synth/trained/`)."""
    networks = network_programs(resources.files("minatar_synth") / GENERATED_NETWORKS, generated_calibration())
    return {**hand_written_programs(), **networks}


def crossplay(task: MinAtarTask, programs: dict[str, Weights], episodes) -> dict[str, float]:
    """Each program's mean return on `task`'s `episodes`, played unchanged (its own game's network left out)."""
    own = task.game.name
    return {name: round(float(np.mean(task.score(w, episodes, ONE_WORKER).values)), 3)
            for name, w in programs.items() if name != own}  # fmt: skip


def crossplay_seed(seed: int, folder: Path, programs: dict[str, Weights], episodes: int = CALIBRATION) -> dict:
    """`crossplay` on game `seed`, `written` into `folder` as `calibrate` writes it."""
    with written(seed, folder) as (task, _):
        return crossplay(task, programs, task.calibration_episodes(episodes))


def best_public(scores: dict[str, float]) -> dict | None:
    if not scores:
        return None
    program = max(sorted(scores), key=scores.get)
    return {"program": program, "mean": scores[program]}


def public_family(rows: list[dict], table: dict[str, dict[str, float]], hand_written) -> list[dict]:
    """Judge a public family: each game against the programs that ship with it, the hand-written references and
    the networks of the other kept games (`table[game][program]`: mean returns on its calibration episodes). A
    rejected game's network is not shipped, so it no longer counts against the others: the game whose best public
    program takes the largest share of its cap is rejected first, one at a time, until every kept game passes."""
    judged = {row["game"]: judge({**row, "public": None}) for row in rows}
    kept = {game for game, row in judged.items() if row["kept"]}
    by_game = {row["game"]: row for row in rows}

    def against(game):
        allowed = set(hand_written) | (kept - {game})
        return judge({**by_game[game], "public": best_public({p: m for p, m in table[game].items() if p in allowed})})

    while True:
        verdicts = {game: against(game) for game in sorted(kept)}
        failing = [game for game, row in verdicts.items() if not row["kept"]]
        judged.update(verdicts)
        if not failing:
            break
        kept.remove(max(failing, key=lambda g: verdicts[g]["public"]["mean"] / verdicts[g]["cap"]))
    for game, row in judged.items():  # rejected by the other rules: the best public program too, for the record
        if row.get("public") is None and game in table:
            judged[game] = {**row, "public": against(game)["public"]}
    return [judged[row["game"]] for row in rows]


def write_family(
    rows: list[dict], games: Path, trained_from: Path, trained_to: Path, data: Path, rejected: dict | None = None
) -> list[str]:
    """Write a family from calibrated rows: each kept game's module with its cap into `games`, its trained network
    (`<game>.0.npz/json`, from `trained_from`) into `trained_to`, and every row, kept or not, into the file `data`
    (`minatar_synth/generated.json`'s format), after the `rejected` entries an earlier calibration wrote there. The
    kept games' names."""
    kept, rejected = {}, dict(rejected or {})
    for row in sorted(rows, key=lambda row: row["seed"]):
        if not row["kept"]:
            rejected[row["game"]] = {
                key: row.get(key) for key in ("seed", "rejected_because", "baselines", "trained", "public")
            }
            continue
        path = generator.write(row["seed"], games, row["cap"])
        kept[row["game"]] = {**row, "module_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
        for suffix in ("npz", "json"):
            stem = f"{row['game']}.{BUDGET.seed}.{suffix}"
            (trained_to / stem).write_bytes((trained_from / stem).read_bytes())
    generator_text = Path(generator.__file__).read_bytes()
    facts = {
        "format": GENERATED_FORMAT,
        "generator_sha256": hashlib.sha256(generator_text).hexdigest(),
        "rules": rules(bound=any("bound" in row for row in rows)),
        "calibrated": len(kept) + len(rejected),
        "kept": len(kept),
        "games": kept,
        "rejected": rejected,
    }
    data.write_text(json.dumps(facts, indent=1) + "\n")
    return list(kept)


def build(
    key: str,
    out: Path,
    name: str = "private",
    count: int = 5,
    budget: Budget = BUDGET,
    progress: Callable[[str], None] | None = None,
    max_seeds: int | None = None,
) -> list[str]:
    """Generate and calibrate games from seeds drawn from `key` into `out` until `count` are kept (at most
    `max_seeds` tried, default SEEDS_PER_GAME x count), and write a private set there: `set.json`, `games/` (the
    kept modules), `trained/` (their networks) and `generated.json` (every seed tried, kept or not). The same key
    gives the same set; the key is not written. Each seed's result is saved as it is measured, so a stopped build
    resumes. The kept games' names."""
    from wspbench.tasks.reading_set import SET_FILE, SET_FORMAT, drawn, set_tag

    tag = set_tag(key, name, "generated")
    out = Path(out)
    work = out / "calibration"
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is not a folder")
    if out.exists() and any(out.iterdir()) and not work.is_dir():
        raise ValueError(f"{out} is neither empty nor a stopped build of a private set of games")
    (work / "trained").mkdir(parents=True, exist_ok=True)
    results = work / "results.jsonl"
    done = {}
    if results.is_file():
        for line in results.read_text().splitlines():
            row = json.loads(line)
            done[row["seed"]] = row
    started = time.perf_counter()
    rows, programs = [], None
    for i in range(max_seeds or SEEDS_PER_GAME * count):
        if sum(row["kept"] for row in rows) >= count:
            break
        seed = PRIVATE_SEEDS + drawn(f"{tag}/seed/gen/{i}", 4)
        row = done.get(seed)
        if row is None or row["settings"] != settings(budget):
            programs = public_programs() if programs is None else programs
            row, weights, about = calibrate(seed, work / "modules", budget, programs=programs)
            save_network(work / "trained", f"{row['game']}.{budget.seed}", weights, {"task": f"{name}.gen", **about})
            with results.open("a") as file:
                file.write(json.dumps(row) + "\n")
        rows.append(row)
        if progress is not None:
            verdict = f"kept, cap {row['cap']:g}" if row["kept"] else "rejected: " + "; ".join(row["rejected_because"])
            progress(f"{row['game']}: {verdict} ({sum(row['seconds'].values()):.0f} s)")
    (out / "games").mkdir(exist_ok=True)
    (out / GENERATED_NETWORKS).mkdir(exist_ok=True)
    kept = write_family(rows, out / "games", work / "trained", out / GENERATED_NETWORKS, out / GENERATED_FILE)
    facts = {
        "format": SET_FORMAT,
        "name": name,
        "tag": tag,
        "identify": 0,
        "identify_choice": 0,
        "games": [],
        "generated": kept,
        "budget": budget.describe(),
        "seconds": round(time.perf_counter() - started, 1),
    }
    (out / SET_FILE).write_text(json.dumps(facts, indent=1) + "\n")
    return kept


def rejections(out: Path) -> list[str]:
    """Why each seed a build in `out` tried was rejected, one line per seed (`build` keeps every row)."""
    results = Path(out) / "calibration" / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.is_file() else []
    return [f"{row['game']}: {'; '.join(row['rejected_because'])}" for row in rows if not row["kept"]]
