"""Calibrate the games: what the zero network, the shipped reference program and a scripted strong player
score, how long episodes last and what a step costs, on calibration episodes (seeds disjoint from the scoring
and training ones: `MinAtarTask.calibration_episodes`). Prints the table, with the cap each synthetic game's
scripted player gives by `cap_rule` (src/wspbench/games/synth.py) next to the game's `score_cap`; `--write`
stores it in `src/minatar_synth/calibration.json` (which `wsp games` shows) and regenerates `docs/games.md`.

    python benchmarks/calibrate_synth.py [--episodes 1000] [--games a,b] [--write]

The zero network samples uniformly among the six actions. The scripted player
(`minatar_synth.policies.<game>.policy(env)`) reads the game's internal state and sets the score cap;
the reference program (`minatar_synth/references/<game>.txt`) is the game's proof of solvability.
Original games are calibrated too (zero network and `wspbench/references/<game>.txt`). A cap that differs from
the rule's is changed by hand in the game module, which changes the suite version (src/wspbench/tasks/registry.py).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from wspbench.games import synth
from wspbench.games.minatar import EPISODE_SEED, MAX_STEPS, STICKY_ACTION_PROB, game_spec
from wspbench.games.synth import CALIBRATION_EPISODES, cap_rule
from wspbench.statistics import normalize
from wspbench.tasks import Task, select

ROOT = Path(__file__).parents[1]
CALIBRATION = ROOT / "src" / "minatar_synth" / "calibration.json"
GAMES_DOC = ROOT / "docs" / "games.md"
GENERATED_SECTION = "\n## Generated games\n"  # written by benchmarks/calibrate_generated.py --ship, kept here
KINDS = ("zero", "reference", "scripted")  # the players a row normalises (`<kind>_raw` is their mean return)


def has_scripted_player(game: str) -> bool:
    """Synthetic games ship a scripted strong player (`minatar_synth.policies.<game>`)."""
    return (
        importlib.util.find_spec("minatar_synth.policies") is not None
        and importlib.util.find_spec(f"minatar_synth.policies.{game}") is not None
    )


def scripted_score(game: str, episodes: list[int], workers: int | None = None) -> float:
    """Mean return of the scripted strong player, seeded as the graders seed an episode, with sticky actions;
    the episodes are split among `workers` processes (default: every core), which changes nothing but time."""
    workers = max(1, min(workers or os.cpu_count() or 1, len(episodes)))
    chunks = [list(chunk) for chunk in np.array_split(episodes, workers)]
    with ProcessPoolExecutor(workers) as pool:
        returns = [value for part in pool.map(scripted_returns, [game] * workers, chunks) for value in part]
    return float(np.mean(returns))


def scripted_returns(game: str, episodes: list[int]) -> list[float]:
    return [scripted_play(game, episode)[0] for episode in episodes]


def scripted_play(game: str, episode: int) -> tuple[float, int, tuple[int, ...]]:
    """The scripted player's return on `episode`, its length and the actions it chose, in order (replayed in the
    same episode they give the same return: sticky actions draw from the episode's own generator)."""
    policy = importlib.import_module(f"minatar_synth.policies.{game}").policy
    environment = synth.environment_class(game)(sticky_action_prob=STICKY_ACTION_PROB)
    environment.seed(EPISODE_SEED + int(episode))
    environment.reset()
    total, actions = 0.0, []
    for _ in range(MAX_STEPS):
        actions.append(int(policy(environment)))
        reward, terminal = environment.act(actions[-1])
        total += float(reward)
        if terminal:
            break
    return total, len(actions), tuple(actions)


def microseconds_per_step(task: Task, steps: int = 3000) -> float:
    """state() plus act() with random actions, averaged over `steps` steps (a finished episode is reset,
    not rebuilt, so that building generators is not counted as stepping)."""
    actions = np.random.RandomState(0).randint(6, size=steps).tolist()
    environment, _ = task.binding.start_episode(0)  # the MinAtar game binding (wspbench/games/minatar.py)
    started = time.perf_counter()
    for action in actions:
        environment.state()
        if environment.act(action)[1]:
            environment.reset()
    return (time.perf_counter() - started) / steps * 1e6


def calibrate(task: Task, count: int) -> dict:
    episodes = task.calibration_episodes(count)
    zero = task.grade(task.offline_answer("zero"), episodes)
    reference = task.grade(task.offline_answer("reference"), episodes)
    if reference.error:
        raise SystemExit(f"{task.id}: the reference program failed: {reference.error}")
    game = task.game
    row = {
        "source": task.id.split("/")[0],
        "cap": game.score_cap,
        "max_steps": game.max_steps,
        "description": game.description,
        "episodes": len(episodes),
        "first_episode": episodes[0],
        "zero": zero.normalized,
        "zero_raw": zero.raw,
        "reference": reference.normalized,
        "reference_raw": reference.raw,
        "reference_mean_length": reference.mean_length,
        "us_per_step": round(microseconds_per_step(task), 1),
    }
    if has_scripted_player(game.name):
        row["scripted_raw"] = scripted_score(game.name, episodes)
        row["scripted"] = normalize(row["scripted_raw"], game.score_cap)
    return row


def show(rows: dict[str, dict]) -> Table:
    table = Table(title="Game calibration (normalised scores)")
    columns = (
        "game",
        "source",
        "cap",
        "rule cap",
        "max len",
        "zero",
        "reference",
        "scripted",
        "ref mean len",
        "us/step",
    )
    for column in columns:
        table.add_column(column, justify="left" if column in ("game", "source") else "right")
    for game, row in rows.items():
        scripted = f"{row['scripted']:.3f}" if "scripted" in row else ""
        table.add_row(
            game,
            row["source"],
            f"{row['cap']:g}",
            f"{cap_rule(row['scripted_raw']):g}" if "scripted_raw" in row else "",
            str(row["max_steps"]),
            f"{row['zero']:.3f}",
            f"{row['reference']:.3f}",
            scripted,
            f"{row['reference_mean_length']:.0f}",
            f"{row['us_per_step']:.1f}",
        )
    return table


def games_document(rows: dict[str, dict]) -> str:
    first = next(iter(rows.values()))
    lines = [
        "# Games",
        "",
        "Generated by `python benchmarks/calibrate_synth.py --write`: each MinAtar game's rules "
        "and calibration. Scores are normalised (raw return / cap, clipped to [0, 1]) over "
        f"{first['episodes']} calibration episodes (from episode {first['first_episode']}: "
        "seeds no scoring or training episode uses); *zero* is the all-zero network (uniformly random "
        "actions), *reference* the shipped hand-written program, *scripted* a strong player that reads the "
        "game's internal state. A synthetic game's cap is its scripted player's mean return there, rounded up "
        "to two significant figures (`cap_rule` in src/wspbench/games/synth.py; suite 2, see CHANGELOG.md), so "
        "the scripted player scores just under 1.0, a level a network, which sees only the grid, may not reach.",
        "",
        "`wsp games` (or `wsp games --json`) lists every task of the suite, SUPERBEAM included "
        "(`docs/superbeam.md`), with the zero and reference scores on its scoring episodes instead, as `wsp "
        "grade` plays them by default and `wsp baselines` shows them (`docs/baselines.md`): another sample of "
        "episodes, so a figure may differ in the second or third decimal (breakout's reference: 0.120 here, "
        "0.123 there). A game's task id is `<source>/<game>`, e.g. `synth/ferry`.",
        "",
        "| game | source | cap | max length | zero | reference | scripted | description |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for game, row in rows.items():
        scripted = f"{row['scripted']:.3f}" if "scripted" in row else ""
        lines.append(
            f"| {game} | {row['source']} | {row['cap']:g} | {row['max_steps']} | {row['zero']:.3f} | "
            f"{row['reference']:.3f} | {scripted} | {row['description']} |"
        )
    for game in rows:
        if game not in synth.available_games():
            continue
        module = importlib.import_module(f"{synth.PACKAGE}.{game}")
        lines += ["", f"## {game}", "", (module.__doc__ or "").strip()]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=CALIBRATION_EPISODES)
    parser.add_argument("--games", default="", help="comma-separated games (default: all)")
    parser.add_argument("--write", action="store_true", help="store calibration.json and docs/games.md")
    parser.add_argument("--recap", action="store_true", help="only normalise the stored raw means by today's caps")
    options = parser.parse_args()
    if options.recap:
        write(recapped(json.loads(CALIBRATION.read_text())), Console())
        return
    wanted = set(filter(None, options.games.split(",")))
    tasks = [task for task in select("original,synth,gen") if not wanted or task.game.name in wanted]
    console = Console(width=160)
    rows = {}
    for task in tasks:
        console.print(f"calibrating {task.id} ...")
        rows[task.game.name] = calibrate(task, options.episodes)
    console.print(show(rows))
    synthetic = [row for game, row in rows.items() if game in synth.available_games()]
    if synthetic:
        mean = float(np.mean([row["reference"] for row in synthetic]))
        console.print(
            f"synthetic games: {len(synthetic)}; reference mean {mean:.3f}; "
            f"min {min(row['reference'] for row in synthetic):.3f}; "
            f"zero max {max(row['zero'] for row in synthetic):.3f}"
        )
    if options.write:
        stored = json.loads(CALIBRATION.read_text()) if CALIBRATION.exists() else {}
        stored.update({game: {**stored.get(game, {}), **row} for game, row in rows.items()})  # a bound stays
        write(stored, console)


def recapped(stored: dict[str, dict]) -> dict[str, dict]:
    """The stored rows under today's caps (`--recap`, after benchmarks/calibrate_bound.py --ship changed them): the
    raw means are those of the same episodes, so only the normalised scores change, and nothing is played again."""
    rows = {}
    for game, row in stored.items():
        cap = game_spec(game).score_cap
        rows[game] = {**row, "cap": cap, **{kind: normalize(row[f"{kind}_raw"], cap) for kind in KINDS if kind in row}}
    return rows


def write(stored: dict[str, dict], console: Console) -> None:
    """calibration.json in suite order, and docs/games.md from it (its generated games' section is kept)."""
    ordered = {
        task.game.name: stored[task.game.name] for task in select("original,synth,gen") if task.game.name in stored
    }
    CALIBRATION.write_text(json.dumps(ordered, indent=1) + "\n")
    old = GAMES_DOC.read_text() if GAMES_DOC.is_file() else ""
    kept = old[old.index(GENERATED_SECTION) :] if GENERATED_SECTION in old else ""  # calibrate_generated.py's
    GAMES_DOC.write_text(games_document(ordered) + kept)
    console.print(f"wrote {CALIBRATION.relative_to(ROOT)} and {GAMES_DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
