"""Baselines for every task: the zero network, the best constant action, random networks, a weight-space search,
the reference program and (synthetic games) the scripted player, each scored by the normal grader on the task's
scoring episodes (`src/wspbench/baselines/measured.py` says exactly what each one is).

The results go to `src/wspbench/baselines/baselines.json` after each task, so an interrupted run resumes where it
stopped: a task already measured as it is now (by its digest) with these settings is skipped, the costly scripted
player and search come after the others, in passes of their own, and each is measured for an entry that lacks it;
`--redo` measures a task again, `--skip scripted,search` leaves those out (and `--skip random` the random networks:
the generated games were measured with `--tasks gen --skip scripted,search,random`, their calibration having measured
random networks on calibration episodes; docs/generated.md). `docs/baselines.md` is written from
them. One command reproduces them all:

    python benchmarks/baselines.py [--tasks original,synth,superbeam*] [--workers N] [--redo] [--skip scripted,search]

When only caps changed (`benchmarks/calibrate_bound.py --ship` sets caps from the hindsight bound and keeps the old
ones in `benchmarks/results/caps_before.json`), `--rescale benchmarks/results/caps_before.json` takes each stale entry
of a task named there to its new cap and stops (`rescaled`: every baseline's raw return is the same on the same
episodes, so nothing is played again; an entry marks it); a run without it then measures whatever is still stale.

The reading and repair tasks (docs/reading.md) have none of these baselines: their answer is a game's name or an
edit of a given network, and their zero and reference scores are 0 and 1 by construction.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import json
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import track

from wspbench.baselines import cma_search, generated, generic, measured
from wspbench.baselines.ppo import trained_answer, trained_network
from wspbench.baselines.search import Budget, evolve
from wspbench.evaluation import Grading
from wspbench.statistics import normalize
from wspbench.tasks import all_tasks, select, suite
from wspbench.tasks.minatar import generated_calibration
from wspbench.tasks.spec import Score, Task

ROOT = Path(__file__).parents[1]
DATA = ROOT / "src" / "wspbench" / "baselines" / measured.BASELINES_FILE
DOC = ROOT / "docs" / "baselines.md"
LOCK = Path("/tmp/wspbench-baselines.lock")
sys.path.insert(0, str(Path(__file__).parent))
from calibrate_synth import has_scripted_player, scripted_score  # noqa: E402 - a sibling script

SEARCH_BUDGET = Budget()  # 4,000 training episodes per task
CMA_BUDGET = cma_search.Budget()  # 2,000 candidates x 10 training levels, on SUPERBEAM only (its 246 weights)
FLOORS = ("reading",)  # sections of baselines.json measured by other scripts: reading_floors.py's


def settings() -> dict:
    return {
        "constant_bias": measured.CONSTANT_BIAS,
        "random_networks": measured.RANDOM_NETWORKS,
        "random_init": "U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for every weight and bias, numpy default_rng(seed), "
        f"seeds 0..{measured.RANDOM_NETWORKS - 1}",
    }


def summary(score: Score) -> dict:
    if score.error:
        raise SystemExit(f"{score.task}: a baseline was rejected: {score.error}")
    return {"score": score.normalized, "raw": score.raw, "interval": list(score.interval())}


def measure(task: Task, workers: int | None, random: bool = True) -> dict:
    episodes = task.scoring_episodes()
    seconds: dict[str, float] = {}

    def timed(kind: str, play):
        started = time.perf_counter()
        result = play()
        seconds[kind] = round(seconds.get(kind, 0.0) + time.perf_counter() - started, 2)
        return result

    network, grading = task.network, Grading(workers=workers)
    zero = timed("zero", lambda: task.score(network.zeros(), episodes, grading))
    constants = [
        timed("constant", lambda a=a: task.score(measured.constant_weights(network, a), episodes, grading))
        for a in range(network.sizes[-1])
    ]
    randoms = [
        timed("random", lambda s=s: task.score(measured.random_weights(network, s), episodes, grading))
        for s in range(measured.RANDOM_NETWORKS if random else 0)
    ]
    reference = timed(
        "reference", lambda: task.grade(task.offline_answer("reference"), episodes, Grading(workers=workers))
    )
    best = int(np.argmax([c.normalized for c in constants]))
    random_scores = [r.normalized for r in randoms]
    entry = {
        "digest": task.digest(),
        "episodes": len(episodes),
        "zero": summary(zero),
        "constant": {**summary(constants[best]), "action": best, "scores": [c.normalized for c in constants]},
        "reference": summary(reference),
    }
    if random_scores:
        entry["random"] = {"score": float(np.mean(random_scores)), "best": max(random_scores), "scores": random_scores}
    entry["seconds"] = seconds
    return entry


class Clipped(ValueError):
    """A stored score was clipped at its cap, so its raw value is not known."""


def rescaled(entry: dict, old_cap: float, new_cap: float) -> dict:
    """A task's baselines under `old_cap` taken to `new_cap` from what the entry stores: a raw mean is normalised
    again, a normalised value (a random network's, a constant action's, an interval's bound) is first taken back to
    its raw value (x old_cap; 0 stays 0, as a raw value at or below 0 gives 0 under any cap); a search's curve is
    in raw returns already.
    Clipped where a stored value was clipped at the old cap (its raw value is not kept): measure that task again.
    The weights behind each baseline are the ones found under the old cap (a search's objective was clipped
    there); the entry says so (`rescaled`). The digest is the caller's to set."""

    def again(value: float) -> float:
        if value >= 1.0:
            raise Clipped(f"a stored score of {value} was clipped at the cap of {old_cap:g}")
        return normalize(value * old_cap, new_cap)

    out = json.loads(json.dumps(entry))
    for kind in measured.KINDS:
        found = out.get(kind)
        if found is None:
            continue
        found["score"] = normalize(found["raw"], new_cap) if "raw" in found else again(found["score"])
        for key in ("interval", "scores"):
            if key in found:
                found[key] = [again(value) for value in found[key]]
        if "best" in found:
            found["best"] = again(found["best"])
    if "random" in out:  # its mean and best, as `measure` computes them
        out["random"]["score"] = float(np.mean(out["random"]["scores"]))
        out["random"]["best"] = max(out["random"]["scores"])
    out["rescaled"] = {"from_cap": old_cap, "to_cap": new_cap}
    return out


SCRIPTED_EPISODES = 200  # the planning players cost up to 2.5 ms a step: 1,000 episodes of all 20 games take hours


def scripted(task: Task, workers: int | None) -> dict | None:
    """The scripted player on the first SCRIPTED_EPISODES scoring episodes (synthetic games only)."""
    if not has_scripted_player(task.game.name):
        return None
    episodes = task.scoring_episodes(SCRIPTED_EPISODES)
    raw = scripted_score(task.game.name, episodes, workers)
    return {"score": normalize(raw, task.game.score_cap), "raw": raw, "episodes": len(episodes)}


_searched: dict[str, tuple] = {}


def search(task: Task, workers: int | None) -> dict:
    """The search's weights graded on the scoring episodes, with its budget and learning curve. Tasks with the same
    game, network and training episodes (superbeam and superbeam/extended) share one search."""
    pool = task.training_episodes(SEARCH_BUDGET.generations * SEARCH_BUDGET.episodes)
    key = repr((task.game.name, task.network, pool))
    if key not in _searched:
        _searched[key] = evolve(task, SEARCH_BUDGET)
    weights, about = _searched[key]
    return {**summary(task.score(weights, grading=Grading(workers=workers))), **about}


def cma(task: Task, workers: int | None) -> dict | None:
    """CMA-ES (`cma_search.py`) on a small network's weights, from the best constant action, on training episodes;
    graded on the scoring episodes, with the network found (as its JSON answer), its budget and its curve. Tasks with
    the same game and training episodes share one search."""
    if sum(int(np.prod(shape)) for shape in task.network.shapes.values()) > cma_search.MAX_WEIGHTS:
        return None
    key = repr(("cma", task.game.name, task.network, task.training_episodes(CMA_BUDGET.episodes)))
    if key not in _searched:
        _searched[key] = cma_search.search(task, CMA_BUDGET)
    weights, about = _searched[key]
    return {**summary(task.score(weights, grading=Grading(workers=workers))), "answer": task.write(weights), **about}


def public(task: Task, workers: int | None) -> dict | None:
    """A generated game's best public program, as its calibration found it (a hand-written game's reference program
    or another generated game's network, `generated.public_programs`), played unchanged: the score of copying
    instead of programming (docs/generated.md)."""
    row = generated_calibration(task.private_set).get(task.game.name)
    if row is None or not row.get("public"):
        return None
    program = row["public"]["program"]
    return {
        **summary(task.score(generated.public_programs()[program], grading=Grading(workers=workers))),
        "program": program,
    }


def generic_program(task: Task, workers: int | None) -> dict | None:
    """A generated game's generic program (`wspbench/baselines/generic.py`): toward reward, away from danger, fire
    when a danger is in line, from the two facts every module states (issue 49's floor)."""
    row = generated_calibration(task.private_set).get(task.game.name)
    if row is None:
        return None
    weights = generic.program(row["mechanics"]["layout"], row["mechanics"]["fire"])
    return {**summary(task.score(weights, grading=Grading(workers=workers))), "settings": generic_settings()}


def generic_settings() -> dict:
    return dataclasses.asdict(generic.Settings())


def trained(task: Task, workers: int | None) -> dict | None:
    """The shipped PPO network (`benchmarks/train.py`) graded from the reply the offline model `trained` gives,
    the network written in the task's answer format: which also shows that the format holds it exactly."""
    answer = trained_answer(task)
    if answer is None:
        return None
    about = trained_about(task)
    return {
        **summary(task.grade(answer, grading=Grading(workers=workers))),
        "answer": {"characters": len(answer), "sha256": hashlib.sha256(answer.encode()).hexdigest()},
        **{key: about[key] for key in ("budget", "steps", "training_episodes", "seconds")},
    }


def trained_answer_digest(task: Task) -> str | None:
    answer = trained_answer(task)
    return None if answer is None else hashlib.sha256(answer.encode()).hexdigest()


WRITING = "original,synth,gen,superbeam*"  # the tasks that write a network from scratch

# Measured after the others, each in a pass over all tasks of its own, so that the cheap baselines of every task
# come first; an entry gets one when it lacks it (a search, when it lacks one with SEARCH_BUDGET).
EXTRAS = {
    "public": public,
    "generic": generic_program,
    "trained": trained,
    "scripted": scripted,
    "search": search,
    "cma": cma,
}


def has(task: Task, entry: dict | None, kind: str) -> bool:
    if entry is None:
        return False
    if kind == "search":
        return entry.get("search", {}).get("budget") == SEARCH_BUDGET.describe()
    if kind == "cma":
        return entry.get("cma", {}).get("budget") == CMA_BUDGET.describe()
    if kind == "generic":  # measured again when its settings change
        return entry.get("generic", {}).get("settings") == generic_settings()
    if kind == "trained":  # graded again when the shipped network changes
        return entry.get("trained", {}).get("answer", {}).get("sha256") == trained_answer_digest(task)
    return kind in entry


def document(data: dict) -> str:
    lines = [
        "# Baselines",
        "",
        "Generated by `python benchmarks/baselines.py` from `src/wspbench/baselines/baselines.json` (last run on suite "
        f"{data['suite']['version']}, digest {data['suite']['digest'][:12]}; each entry keeps the digest of the task "
        "it measured, and a task changed since is marked stale); `wsp baselines` prints the same table. One command "
        "measures them all again: `python benchmarks/train.py && python benchmarks/baselines.py --redo`. "
        "Normalised scores on each task's scoring episodes, graded by the normal grader:",
        "",
        "- *zero*: the all-zero network;",
        f"- *constant*: the best single action (its output bias set to {measured.CONSTANT_BIAS:g}; the action's "
        "number in brackets);",
        f"- *random*: {measured.RANDOM_NETWORKS} random networks ({data['settings']['random_init']}): their "
        "mean and their best;",
        f"- *search*: an evolution strategy from the zero network ({search_budget()}), on training episodes "
        "only (`src/wspbench/baselines/search.py`; superbeam and superbeam/extended share one search, as they share "
        "their training levels);",
        f"- *cma*: CMA-ES on every weight of a small network (SUPERBEAM's 246), from the best constant action, "
        f"{CMA_BUDGET.evaluations:,} candidates of {CMA_BUDGET.population} a generation, each playing all "
        f"{CMA_BUDGET.episodes} training levels, kept by the task's own order (levels won, then progress) "
        "(`src/wspbench/baselines/cma_search.py`);",
        "- *public*: a generated game's best public program, played unchanged: the hand-written games' reference "
        "programs and the other generated games' networks, the best on the game's calibration episodes (its "
        "calibration chose it, docs/generated.md), here on the scoring episodes (its name in brackets);",
        "- *generic*: one hand-written program for every generated game, toward reward, away from danger, fire when "
        "a danger is in line, from the two facts each module states, its layout and whether it fires "
        "(`src/wspbench/baselines/generic.py`; docs/generated.md);",
        f"- *trained*: a network of the task's shape trained by PPO on training episodes ({ppo_budget()}; "
        "`src/wspbench/baselines/ppo.py`, `benchmarks/train.py`), written out in the task's answer format and graded "
        "as a reply; the networks are shipped in `src/wspbench/baselines/trained/`;",
        "- *reference*: the shipped hand-written program;",
        "- *scripted*: the scripted player of a synthetic game, which reads the game's hidden state (its mean on "
        "calibration episodes, disjoint from these, sets the cap: docs/games.md), on the first "
        f"{SCRIPTED_EPISODES} scoring episodes (the episode count in brackets where it played more).",
        "",
        "A baseline-relative score is (score - trivial) / (reference - trivial), with trivial the better of zero "
        "and constant (`src/wspbench/baselines/measured.py`).",
        "",
        "| task | episodes | zero | constant | random mean | random best | search | cma | public | generic | trained | "
        "reference | scripted | seconds |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for task_id, entry in data["tasks"].items():
        searched = f"{entry['search']['score']:.4f}" if "search" in entry else ""
        searched += f" | {entry['cma']['score']:.4f}" if "cma" in entry else " | "
        searched += f" | {entry['public']['score']:.4f} ({entry['public']['program']})" if "public" in entry else " | "
        searched += f" | {entry['generic']['score']:.4f}" if "generic" in entry else " | "
        scripted = scripted_cell(entry)
        learned = f"{entry['trained']['score']:.4f}" if "trained" in entry else ""
        randoms = f"{entry['random']['score']:.4f} | {entry['random']['best']:.4f}" if "random" in entry else " | "
        stale = "" if measured.is_current(task_id, entry) else " (stale)"
        lines.append(
            f"| {task_id}{stale} | {entry['episodes']} | {entry['zero']['score']:.4f} | "
            f"{entry['constant']['score']:.4f} ({entry['constant']['action']}) | {randoms} | {searched} | {learned} | "
            f"{entry['reference']['score']:.4f} | "
            f"{scripted} | {sum(entry['seconds'].values()):.0f} |"
        )
    total = sum(sum(e["seconds"].values()) for e in data["tasks"].values())
    lines += [
        "",
        f"Compute: {total / 60:.1f} minutes of wall time in all ({data['machine']}), besides the PPO training "
        f"({training_minutes():.0f} core-minutes, one core per game). An empty cell is a baseline not measured yet "
        "for that task.",
        *family_section(data["tasks"]),
        *training_section(),
        *reading_section(data.get("reading", {}).get("tasks", {})),
    ]
    return "\n".join(lines) + "\n"


def reading_section(entries: dict) -> list[str]:
    """The reading tasks' floors (benchmarks/reading_floors.py): per family, each solver's mean score."""
    if not entries:
        return []
    lines = [
        "",
        "## Reading tasks: floors",
        "",
        "What scores on the reading tasks without reading what the network does, from what the prompts show and "
        "the public code (`python benchmarks/reading_floors.py`, which says how each solver works; per task in "
        "`baselines.json`, section `reading`). *nearest* also uses every network shipped with the package: the "
        "library floor; *initial*, the weights PPO started from, which the public code draws from the public set's "
        "seeds (a private set's come from its key). docs/reading.md says what these floors mean for the scores.",
        "",
        "| family | tasks | floors (mean score) |",
        "| --- | ---: | --- |",
    ]
    for family, (count, means) in measured.reading_floors(entries, current_only=False).items():
        lines.append(f"| {family} | {count} | {', '.join(f'{name} {mean:.3f}' for name, mean in means.items())} |")
    return lines


def family_section(entries: dict) -> list[str]:
    """Each writing family's mean of each baseline, over its tasks measured as they are now (`wsp baselines`)."""
    lines = ["", "## Family means", "", "Each baseline's mean normalised score over a family's current tasks that "
             "have it (how many, where fewer than all):", "", "| family | tasks | " + " | ".join(measured.KINDS) + " |",
             "| --- | ---: |" + " ---: |" * len(measured.KINDS)]  # fmt: skip
    for family, (count, means) in measured.family_means(entries).items():
        cells = [f"{means[kind][0]:.4f}" + (f" ({means[kind][1]})" if means[kind][1] < count else "")
                 if kind in means else "" for kind in measured.KINDS]  # fmt: skip
        lines.append(f"| {family} | {count} | " + " | ".join(cells) + " |")
    return lines


def training_section() -> list[str]:
    """How each shipped network of the trained baseline was trained: budget, throughput, the step it was kept
    at, and its learning curve (docs/training_curves.png, drawn by benchmarks/train.py; docs/training.md)."""
    lines = [
        "",
        "## The trained networks",
        "",
        "Each game's network, as `src/wspbench/baselines/trained/<game>.0.json` records it: environment steps, the "
        "step of the checkpoint kept (the best of the checkpoints scored on the first training episodes), "
        "throughput on one core and wall seconds, and the learning curve (mean return of the training episodes "
        "that ended in each update). How the trainer works and how fast it is: docs/training.md.",
        "",
        "| game | steps | kept at | steps/s | seconds | training episodes |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for game, about in trained_games().items():
        kept = about.get("kept", {}).get("steps", about["steps"])
        rate = about.get("steps_per_second") or round(about["steps"] / about["seconds"])
        lines.append(
            f"| {game} | {about['steps']:,} | {kept:,} | {rate:,} | {about['seconds']:,.0f} | "
            f"{about['training_episodes']['played']:,} |"
        )
    return [*lines, "", "![learning curves of the trained networks](training_curves.png)"]


def scripted_cell(entry: dict) -> str:
    if "scripted" not in entry:
        return ""
    played = entry["scripted"]["episodes"]
    return f"{entry['scripted']['score']:.4f}" + ("" if played == SCRIPTED_EPISODES else f" ({played})")


def ppo_budget() -> str:
    """The budget most games were trained with, and how the others' differ (each network's json has its own)."""
    budgets = {
        task.game.name: about["budget"] for task in select(WRITING) if (about := trained_about(task)) is not None
    }
    if not budgets:
        return "not trained yet"
    counts = Counter(json.dumps(budget, sort_keys=True) for budget in budgets.values())
    common = json.loads(counts.most_common(1)[0][0])
    text = (
        f"{common['steps']:,} environment steps per game, {common['environments']} episodes side by side, rollouts "
        f"of {common['rollout']} steps, {common['epochs']} epochs of {common['minibatches']} minibatches, Adam "
        f"learning rate {common['learning_rate']:g} annealed to 0, clip {common['clip']:g}, entropy "
        f"{common['entropy']:g}, seed {common['seed']}"
    )
    differ = [
        f"{game}: " + ", ".join(f"{key} {value:,}" if isinstance(value, int) and not isinstance(value, bool)
                                else f"{key} {value}" for key, value in budget.items() if common.get(key) != value)
        for game, budget in budgets.items()
        if budget != common
    ]  # fmt: skip
    return text + (f" (except {'; '.join(differ)})" if differ else "") + "; training seconds per game in each json"


def training_minutes() -> float:
    return sum(about["seconds"] for about in trained_games().values()) / 60


def trained_games() -> dict[str, dict]:
    """Each game's shipped network's training record, once per game (superbeam/hard plays superbeam's game with
    no network of its own: it must not hide superbeam's)."""
    games: dict[str, dict] = {}
    for task in select(WRITING):
        about = trained_about(task)
        if about is not None:
            games.setdefault(task.game.name, about)
    return games


def trained_about(task: Task) -> dict | None:
    stored = trained_network(task)
    return None if stored is None else stored[1]


def search_budget() -> str:
    budget = SEARCH_BUDGET
    return (
        f"{budget.generations} generations of {budget.population} candidates, {budget.episodes} training episodes "
        f"each: {budget.generations * budget.population * budget.episodes:,} episodes; sigma {budget.sigma:g} and Adam "
        f"learning rate {budget.learning_rate:g} in units of each layer's 1/sqrt(fan_in), seed {budget.seed}"
    )


def rescale(caps: dict[str, float], tasks: list[Task], stored, save, console: Console) -> None:
    """`--rescale`: each of `tasks` named in `caps` whose entry is stale is taken from its old cap to today's; a task
    with a clipped value is left stale, for a run without --rescale to measure. The entries of tasks named in `caps`
    that are no longer in the suite (generated games the new caps rejected) are dropped."""
    with locked():
        data = json.loads(DATA.read_text()) if DATA.exists() else {"tasks": {}}
        gone = sorted(set(caps) & set(data["tasks"]) - {task.id for task in all_tasks()})
        for task_id in gone:
            del data["tasks"][task_id]
        if gone:
            DATA.write_text(json.dumps(data, indent=1) + "\n")
            console.print(f"dropped {len(gone)} entries of tasks no longer in the suite: {', '.join(gone)}")
    for task in tasks:
        entry = data["tasks"].get(task.id)
        if task.id not in caps or entry is None or stored(task) is not None:
            continue
        try:
            update = rescaled(entry, caps[task.id], task.game.score_cap)
        except Clipped as why:
            console.print(f"{task.id}: measured again ({why})", markup=False)
            continue
        save(task.id, {**update, "digest": task.digest()}, replace=True)
        console.print(f"{task.id}: rescaled from the cap {caps[task.id]:g} to {task.game.score_cap:g}", markup=False)


@contextmanager
def locked():
    """One writer of baselines.json at a time: passes may run side by side in separate processes."""
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=WRITING, help="the writing tasks (reading tasks have no such baselines)")
    parser.add_argument("--workers", type=int, default=None, help="grading processes (default: all cores)")
    parser.add_argument("--redo", action="store_true", help="measure tasks already in the file again")
    parser.add_argument(
        "--skip", default="", help=f"comma-separated baselines to leave out: {', '.join(EXTRAS)}, random"
    )
    parser.add_argument("--machine", default="a 2-core machine", help="where it ran, for docs/baselines.md")
    parser.add_argument(
        "--rescale",
        type=Path,
        help="the old caps (calibrate_bound.py --ship writes them): only "
        "take each stale entry of a task named there to its new cap, playing nothing",
    )
    options = parser.parse_args()
    options.skip = set(filter(None, options.skip.split(",")))
    if options.skip - {*EXTRAS, "random"}:
        parser.error(f"--skip takes {', '.join(EXTRAS)} and random")
    console = Console()
    tasks = select(options.tasks)

    def save(task_id: str, update: dict, replace: bool = False) -> dict:
        """Merge one task's new results into the file under a lock, so that passes can run in parallel
        (`--skip search` in one process, `--skip scripted` in another); `replace` starts the entry afresh."""
        with locked():
            data = json.loads(DATA.read_text()) if DATA.exists() else {}
            if data.get("settings") != settings():
                floors = {key: data[key] for key in FLOORS if key in data}  # measured by other scripts
                data = {"format": measured.FORMAT, "settings": settings(), "tasks": {}, **floors}
            data["suite"] = suite().to_json()  # the suite of the last run; each entry has its task's digest
            data["machine"] = options.machine
            entry = {} if replace else data["tasks"].get(task_id, {})
            data["tasks"][task_id] = entry
            seconds = {**entry.get("seconds", {}), **update.pop("seconds", {})}
            entry.update(update, seconds=seconds)
            DATA.write_text(json.dumps(data, indent=1) + "\n")
            DOC.write_text(document(data))
            return entry

    def stored(task: Task) -> dict | None:
        data = json.loads(DATA.read_text()) if DATA.exists() else {}
        entry = data.get("tasks", {}).get(task.id) if data.get("settings") == settings() else None
        return entry if entry is not None and entry.get("digest") == task.digest() else None

    if options.rescale:
        rescale(json.loads(options.rescale.read_text())["caps"], tasks, stored, save, console)
        return
    for task in track(tasks, description="baselines", console=console):
        if stored(task) is not None and not options.redo:
            continue
        entry = save(task.id, measure(task, options.workers, "random" not in options.skip), replace=True)
        console.print(
            f"{task.id}: zero {entry['zero']['score']:.4f}, constant {entry['constant']['score']:.4f}, reference "
            f"{entry['reference']['score']:.4f} in {sum(entry['seconds'].values()):.0f} s",
            markup=False,
        )
    for kind, play in EXTRAS.items():
        if kind in options.skip:
            continue
        for task in track(tasks, description=kind, console=console):
            if has(task, stored(task), kind):
                continue
            started = time.perf_counter()
            result = play(task, options.workers)
            if result is None:
                continue
            save(task.id, {kind: result, "seconds": {kind: round(time.perf_counter() - started, 2)}})
            console.print(
                f"{task.id}: {kind} {result['score']:.4f} in {time.perf_counter() - started:.0f} s", markup=False
            )
    with locked():  # the document again, as this version writes it, even when nothing was new
        DOC.write_text(document(json.loads(DATA.read_text())))


if __name__ == "__main__":
    main()
