"""Calibrate the hindsight bound of every synthetic, generated and original game (issue 48): `bound.calibrate` on each
game's calibration episodes (its budget found by doubling), checked episode by episode against every player we
ship, and every play replayed in the reference game.

The players, each on every episode: the zero network, the six constant actions, the reference program, the trained
network, every public program (the hand-written references and every generated game's network; their best on each
episode) and, for a hand-written synthetic game, its scripted player. Where the bound is below the best of them on
an episode the search is too weak there and searches it again wider (`bound.WIDER`); the episodes where it is still
below are counted per player (`below`), and where the scripted player is still above it, its own play (its actions
recorded) is that episode's best known play (`scripted_plays` lists those episodes). Every play is replayed in the
reference Python game (`bound.replay`), so each value is a return that one action sequence really gets.

One JSON line per game goes to `--results` (by default `benchmarks/results/bound.jsonl`, which is committed as it
grows: the whole calibration takes more core-hours than one machine keeps); a game already there with the same
settings and the same game source is skipped, so a run resumes. Each line names the commit that searched it.

    python benchmarks/calibrate_bound.py [--games synth,gen,original] [--episodes 200] [--workers 2] [--results FILE]
    python benchmarks/calibrate_bound.py --report  # what the lines so far give: caps, shares, the keep rules
    python benchmarks/calibrate_bound.py --markdown  # the same as docs/validity.md's tables
    python benchmarks/calibrate_bound.py --publish  # and write them into minatar_synth/bound.json (`optimal`)
    python benchmarks/calibrate_bound.py --ship  # and set the caps from the bound (every game calibrated)

Costs are CPU seconds (`time.process_time`), so they hold on a busy machine; each game runs on one core.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import hashlib  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from wspbench.baselines import bound, generated, measured  # noqa: E402
from wspbench.baselines.ppo import trained_answer  # noqa: E402
from wspbench.evaluation import ONE_WORKER  # noqa: E402
from wspbench.games import minatar_original, synth  # noqa: E402
from wspbench.tasks import get_task, select, suite  # noqa: E402
from wspbench.tasks.minatar import BOUND_FILE, BOUND_FORMAT, GENERATED_FILE, GENERATED_NETWORKS  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_synth import (  # noqa: E402 - a sibling script
    has_scripted_player,
    scripted_play,
    scripted_returns,
)

PACKAGE = Path(__file__).parents[1] / "src" / "minatar_synth"
BOUND_PATH, DATA = PACKAGE / BOUND_FILE, PACKAGE / GENERATED_FILE
GAMES, NETWORKS = PACKAGE / "games", PACKAGE / GENERATED_NETWORKS
TWINS = Path(__file__).parents[1] / "src" / "wspbench" / "evaluation" / "compiled" / "synth"
RESULTS = Path(__file__).parent / "results" / "bound.jsonl"  # committed as it grows: a calibration spans sessions
CAPS_BEFORE = RESULTS.parent / "caps_before.json"  # the caps --ship replaced, by task id
CONFORMANCE = Path(__file__).parents[1] / "tests" / "data"  # the seed grader's results on a sample of games


def after_ship() -> str:
    """What follows --ship, in order: each command writes what the tests check (the conformance samples replay the
    games and episodes their files already hold)."""
    lines = [
        "then, in this order (each writes what the tests check):",
        "  python benchmarks/calibrate_synth.py --recap",
    ]
    for name in ("generated_expected.json", "synth_expected.json"):
        sample = json.loads((CONFORMANCE / name).read_text())
        games = ",".join(sorted(sample["results"]))
        lines += [
            f"  python benchmarks/generated_conformance.py --episodes {sample['episodes']} --games {games} \\",
            f"      --write tests/data/{name}",
        ]
    return "\n".join(
        [
            *lines,
            f"  python benchmarks/baselines.py --rescale benchmarks/results/{CAPS_BEFORE.name}",
            "  python benchmarks/reading_floors.py",
            "and by hand: SUITE_VERSION (wspbench/tasks/registry.py), the README's and docs' figures",
            "(tests/test_docs.py names them), docs/validity.md's tables (--markdown), the CHANGELOG, and the two tests",
            "of a reply above its cap (tests/cli/test_cli.py, tests/harness/test_offline.py: under caps from the bound",
            "no shipped player passes one)",
        ]
    )


ORIGINAL_EPISODES = 20  # an original game's bound is its `optimal`, not its cap: fewer episodes (`episodes_of`)


CAP_LINE = r"(?m)^(    score_cap = ).*$"  # a game module's cap (the contract of wspbench/games/synth.py)


def source_sha256(task) -> str:
    """The SHA-256 of the game module's text but its cap: a game whose rules changed is calibrated again, and one
    whose cap `--ship` just set is not. An original game's module is the installed `minatar` package's."""
    if task.family == "original":
        return hashlib.sha256(minatar_original.source_file(task.game.name).read_bytes()).hexdigest()
    text = Path(inspect.getfile(synth.environment_class(task.game.name))).read_text()
    return hashlib.sha256(re.sub(CAP_LINE, "", text, count=1).encode()).hexdigest()


def players(task, episodes: list[int]) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Every shipped player's return on each episode (the public programs': their best on each episode), and each
    public program's mean (a row of the cross-play table: the generated family's public rule is judged on it again
    under the new caps, `generated.public_family`)."""
    network = task.network
    out = {"zero": task.score(network.zeros(), episodes, ONE_WORKER).values}
    for action in range(network.sizes[-1]):
        out[f"constant {action}"] = task.score(measured.constant_weights(network, action), episodes, ONE_WORKER).values
    out["reference"] = task.grade(task.offline_answer("reference"), episodes, ONE_WORKER).values
    answer = trained_answer(task)
    if answer is not None:
        out["trained"] = task.grade(answer, episodes, ONE_WORKER).values
    own = task.game.name
    public = {
        name: task.score(w, episodes, ONE_WORKER).values
        for name, w in generated.public_programs().items()
        if name != own
    }
    out["public"] = np.max(list(public.values()), axis=0)
    if has_scripted_player(own):
        out["scripted"] = scripted_returns(own, episodes)
    means = {name: round(float(np.mean(values)), 3) for name, values in public.items()}
    return {name: [float(v) for v in values] for name, values in out.items()}, means


def commit() -> str:
    """The commit of this checkout (what searched a line; a search is a pure function of its code, game and width)."""
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def calibrate(task_id: str, count: int) -> dict:
    task = get_task(task_id)
    episodes = list(task.calibration_episodes(count))
    started = time.process_time()
    played, public = players(task, episodes)
    player_seconds = time.process_time() - started
    best = np.max(list(played.values()), axis=0)
    summary, plays = bound.calibrate(task, episodes, best)
    summary, seeded = with_scripted_plays(task, episodes, played.get("scripted"), summary, plays)
    for play in plays:
        if bound.replay(task, play.episode, play.actions) != (play.value, play.length):
            raise ValueError(f"{task_id} episode {play.episode}: the found play does not replay to its return")
    values = np.asarray(summary["values"])
    return {
        "task": task_id,
        "game": task.game.name,
        "source_sha256": source_sha256(task),
        "commit": commit(),
        "settings": bound.settings(),
        "cap": task.game.score_cap,
        **summary,
        "players": {name: float(np.mean(v)) for name, v in played.items()},
        "below": {name: int(np.sum(values < np.asarray(v))) for name, v in played.items()},
        "public_programs": public,
        "scripted_plays": seeded,
        "player_cpu_seconds": round(player_seconds, 1),
    }


def with_scripted_plays(task, episodes, scripted, summary: dict, plays: list) -> tuple[dict, list[int]]:
    """Where even the widest search found less than the scripted player got, the scripted player's own play is the
    episode's best known action sequence, and so its bound (its actions are recorded and replayed like any found
    play): the bound is the best return of the action sequences known, and the episodes it took from the scripted
    player are listed (`scripted_plays`), so that the search's gaps stay visible. `plays` is updated in place."""
    seeded = []
    for i, episode in enumerate(episodes if scripted is not None else ()):
        if scripted[i] > plays[i].value:
            value, length, actions = scripted_play(task.game.name, episode)
            plays[i] = bound.Found(episode, value, length, actions, plays[i].width, 0.0)
            seeded.append(episode)
    return {**summary, **bound.statistics(plays)}, seeded


def episodes_of(task_id: str, count: int) -> int:
    """How many calibration episodes a game's bound plays: `count`, but at most ORIGINAL_EPISODES for an original
    game, whose bound sets no cap (it is published as `optimal`) and whose episodes last up to 10,000 steps."""
    return min(count, ORIGINAL_EPISODES) if task_id.startswith("original/") else count


def done(path: Path, count: int) -> dict[str, str]:
    """The games already in `path` with these settings and episodes, and their source's SHA-256."""
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {
        r["task"]: r["source_sha256"]
        for r in rows
        if r["settings"] == bound.settings() and r["episodes"] == episodes_of(r["task"], count)
    }


def latest(path: Path) -> dict[str, dict]:
    """The last line of each game in `path` with today's settings, by task id."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.is_file() else []
    return {r["task"]: r for r in rows if r["settings"] == bound.settings()}


def share(value: float | None, of: float) -> float | None:
    return None if value is None or not of > 0 else value / of


def summary(row: dict) -> dict:
    """One game's figures: its cap now and the cap its bound gives (`synth.cap_rule`), and what each player reaches
    as a share of the bound (the best policy: the reference or the scripted player, whichever is higher)."""
    played, mean = row["players"], row["mean"]
    best = max(played.get("reference", 0.0), played.get("scripted", 0.0))
    return {
        "task": row["task"],
        "family": row["task"].split("/")[0],
        "cap": row["cap"],
        "bound": mean,
        "cap_from_bound": synth.cap_rule(mean) if mean > 0 else None,
        "width": row["width"],
        "converged": row["converged"],
        "reference": share(played.get("reference"), mean),
        "scripted": share(played.get("scripted"), mean),
        "trained": share(played.get("trained"), mean),
        "public": share(max(row.get("public_programs", {}).values(), default=None), mean),
        "best_policy": share(best, mean),
        "below": sum(row["below"].values()),
        "scripted_plays": len(row.get("scripted_plays", [])),
        "cpu_hours": (row["cpu_seconds"] + row["player_cpu_seconds"]) / 3600,
    }


def generated_verdicts(rows: dict[str, dict]) -> dict[str, dict]:
    """The generated family judged again (`generated.public_family`) with each calibrated game's cap from its
    bound: the games a cap from the bound would reject, by the public rule on the cross-play table the lines keep.
    A game not yet calibrated keeps its cap and the best public program its calibration found."""
    shipped = generated.generated_calibration()
    family, table = [], {}
    for game, entry in shipped.items():
        row = rows.get("gen/" + game.removeprefix("gen_"))
        family.append({**entry, "bound": row["mean"]} if row else entry)
        public = row.get("public_programs") if row else None
        table[game] = public or {entry["public"]["program"]: entry["public"]["mean"]}
    hand_written = {name for programs in table.values() for name in programs if not name.startswith("gen_")}
    return {row["game"]: row for row in generated.public_family(family, table, hand_written)}


OWN_PLAYERS = ("reference", "scripted", "trained")  # the game's own players (bound.json keeps their means) ...
PLAYERS = (*OWN_PLAYERS, "public")  # ... and the best public program (bound.json names it: `best_public`)


def median_of(summaries: list[dict], name: str) -> str:
    values = [one[name] for one in summaries if one[name] is not None]
    return f"{np.median(values):.3f}" if values else "-"


def by_family(summaries: list[dict]) -> dict[str, dict]:
    """Each family's figures (`report` and `markdown` show them): its games, the medians of the caps and of each
    player's share, the games not converged and the core-hours."""
    families = {}
    for family in sorted({one["family"] for one in summaries}):
        mine = [one for one in summaries if one["family"] == family]
        families[family] = {
            "games": len(mine),
            "median": {name: median_of(mine, name) for name in ("cap", "cap_from_bound", *PLAYERS)},
            "unconverged": sum(not one["converged"] for one in mine),
            "cpu_hours": sum(one["cpu_hours"] for one in mine),
        }
    return families


def report(rows: dict[str, dict]) -> None:
    """Each calibrated game's figures, then per family the medians docs/validity.md shows, and the generated games
    that the public rule would reject under caps from the bound."""
    console = Console(width=160)
    table = Table(title=f"The hindsight bound: {len(rows)} games calibrated")
    names = ("task", "cap", "bound", "cap_from_bound", "width", *PLAYERS, "below", "scripted_plays")
    for name in names:
        table.add_column(name.replace("_", " "), justify="left" if name == "task" else "right")
    summaries = [summary(row) for _, row in sorted(rows.items())]
    for one in summaries:
        cells = []
        for name in names:
            value = one[name]
            if name in ("task", "below", "scripted_plays"):
                cells.append(str(value))
            elif name == "width":
                cells.append(f"{value}{'' if one['converged'] else '+'}")
            else:
                cells.append("" if value is None else f"{value:.3f}" if name in PLAYERS else f"{value:.4g}")
        table.add_row(*cells)
    console.print(table)
    for family, one in by_family(summaries).items():
        median = one["median"]
        console.print(
            f"{family}: {one['games']} games, median cap now {median['cap']}, from the bound "
            f"{median['cap_from_bound']}; medians of the bound's share: "
            + ", ".join(f"{name} {median[name]}" for name in PLAYERS)
            + f"; not converged {one['unconverged']}; {one['cpu_hours']:.2f} core-hours"
        )
    verdicts = generated_verdicts(rows)
    rejected = {game: v["rejected_because"] for game, v in verdicts.items() if not v["kept"]}
    console.print(f"generated: {len(verdicts) - len(rejected)} of {len(verdicts)} games kept under caps from the bound")
    for game, reasons in sorted(rejected.items()):
        console.print(f"  {game}: {'; '.join(reasons)}")


def markdown(rows: dict[str, dict]) -> str:
    """docs/validity.md's two tables (`--markdown`): each game, then each family's medians and cost. "cap then" is
    the cap when the game was calibrated; shares are of the bound's mean."""

    def cell(value, digits=3) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    summaries = [summary(row) for _, row in sorted(rows.items())]
    lines = [
        "| game | cap then | bound (width) | cap from it | reference | scripted | trained | best public "
        "| scripted plays |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for one in summaries:
        width = f"{one['width']:,}{'' if one['converged'] else ', not converged'}"
        lines.append(
            f"| {one['task']} | {one['cap']:g} | {one['bound']:.4g} ({width}) | {one['cap_from_bound']:g} | "
            + " | ".join(cell(one[name]) for name in PLAYERS)
            + f" | {one['scripted_plays']} |"
        )
    lines += [
        "",
        "| family | games | median cap then | median cap from the bound | reference | scripted | trained | best public "
        "| not converged | core-hours |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for family, one in by_family(summaries).items():
        median = one["median"]
        lines.append(
            f"| {family} | {one['games']} | {float(median['cap']):g} | {float(median['cap_from_bound']):g} | "
            + " | ".join(median[name] for name in PLAYERS)
            + f" | {one['unconverged']} | {one['cpu_hours']:.2f} |"
        )
    return "\n".join(lines)


def publish(rows: dict[str, dict], path: Path = BOUND_PATH) -> None:
    """Write each calibrated game's bound into the package (`minatar_synth/bound.json`, which `Task.optimal` and
    `wsp games` read): its mean, interval, budget and cost, and the players' means beside it. No cap moves."""
    games = {}
    for task_id, row in sorted(rows.items()):
        public = row.get("public_programs") or {}
        best = max(sorted(public), key=public.get) if public else None
        games[row["game"]] = {
            "task": task_id,
            "mean": row["mean"],
            "stderr": row["stderr"],
            "first_episode": row["first_episode"],
            "episodes": row["episodes"],
            "width": row["width"],
            "converged": row["converged"],
            "below": sum(row["below"].values()),
            "scripted_plays": len(row.get("scripted_plays", [])),
            "cpu_seconds": row["cpu_seconds"],
            "players": {name: round(row["players"][name], 3) for name in OWN_PLAYERS if name in row["players"]},
            "best_policy_share": round(summary(row)["best_policy"], 4),  # the reference's or the scripted player's
            "best_public": None if best is None else {"program": best, "mean": public[best]},
            "commit": row.get("commit"),
        }
    facts = {"format": BOUND_FORMAT, "settings": bound.settings(), "games": games}
    path.write_text(json.dumps(facts, indent=1) + "\n")
    print(f"{len(games)} games' bounds written to {path}")


def ship(rows: dict[str, dict]) -> None:
    """Every synthetic and generated game's cap from its bound (`synth.cap_rule` of its mean), once every one of them
    has a current line: a synthetic module's cap line is rewritten (and its compiled twin's SOURCE_SHA256); the
    generated family is judged again (`generated_verdicts`) and written as `calibrate_generated.py --ship`
    writes it, its newly rejected games' modules and networks removed, and private builds cap from the bound too
    (`synth.CAP_SOURCE`). The game sources but their caps are unchanged, so every line stays current. The old
    caps go to CAPS_BEFORE; what follows is printed (`after_ship`): every derived file from the raw returns it keeps."""
    wanted = select("synth,gen")
    stale = [t.id for t in wanted if t.id not in rows or rows[t.id]["source_sha256"] != source_sha256(t)]
    if stale:
        raise SystemExit(f"{len(stale)} games have no current bound yet ({', '.join(stale[:5])}...): nothing shipped")
    before = {"format": "wspbench.caps/1", "suite": suite().version, "caps": {t.id: t.game.score_cap for t in wanted}}
    CAPS_BEFORE.write_text(json.dumps(before, indent=1) + "\n")  # for baselines.py --rescale and the docs' table
    for task in select("synth"):
        path = Path(inspect.getfile(synth.environment_class(task.game.name)))
        cap = synth.cap_rule(rows[task.id]["mean"])
        path.write_text(re.sub(CAP_LINE, rf"\g<1>{cap!r}", path.read_text(), count=1))
        twin = TWINS / f"{task.game.name}.py"  # the compiled twin follows the module's exact text
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        twin.write_text(re.sub(r'(?m)^SOURCE_SHA256 = ".*"$', f'SOURCE_SHA256 = "{digest}"', twin.read_text(), count=1))
    verdicts = generated_verdicts(rows)
    for game, row in verdicts.items():
        if not row["kept"]:
            for stale_file in [GAMES / f"{game}.py", *NETWORKS.glob(f"{game}.*")]:
                stale_file.unlink(missing_ok=True)
    earlier = json.loads(DATA.read_text())["rejected"]
    kept = generated.write_family(list(verdicts.values()), GAMES, NETWORKS, NETWORKS, DATA, earlier)
    rules = Path(inspect.getfile(synth))  # the caps' source, which private builds follow: they measure the bound too
    rules.write_text(re.sub(r'(?m)^CAP_SOURCE = "players"', 'CAP_SOURCE = "bound"', rules.read_text(), count=1))
    print(f"caps from the bound: {len(select('synth'))} synthetic games, {len(kept)} of {len(verdicts)} generated kept")
    print(after_ship())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="synth,gen,original")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--results", default=str(RESULTS))
    parser.add_argument("--report", action="store_true", help="show what the lines so far give, search nothing")
    parser.add_argument("--markdown", action="store_true", help="print docs/validity.md's tables, search nothing")
    parser.add_argument("--publish", action="store_true", help="--report, and write minatar_synth/bound.json")
    parser.add_argument("--ship", action="store_true", help="--publish, and set every game's cap from its bound")
    args = parser.parse_args()
    path = Path(args.results)
    if args.markdown:
        print(markdown(latest(path)))
        return
    if args.report or args.publish or args.ship:
        report(latest(path))
        if args.publish or args.ship:
            publish(latest(path))
        if args.ship:
            ship(latest(path))
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    wanted = [t.id for t in select(args.games)]
    previous = done(path, args.episodes)
    todo = [t for t in wanted if previous.get(t) != source_sha256(get_task(t))]
    print(f"{len(wanted)} games, {len(wanted) - len(todo)} already calibrated", flush=True)
    with ProcessPoolExecutor(args.workers) as pool:
        futures = {pool.submit(calibrate, t, episodes_of(t, args.episodes)): t for t in todo}
        failed = []
        for future in as_completed(futures):
            try:
                row = future.result()
            except Exception as error:  # noqa: BLE001 - one game's failure is reported; the others go on
                failed.append(futures[future])
                print(f"{futures[future]}: not calibrated: {error!r}", flush=True)
                continue
            with path.open("a") as file:
                file.write(json.dumps(row) + "\n")
            print(
                f"{row['task']:16s} cap {row['cap']:7.1f}  bound {row['mean']:8.2f} (width {row['width']}"
                f"{'' if row['converged'] else '+'}, {len(row['wider'])} wider)  below {sum(row['below'].values())}"
                f"  cpu {row['cpu_seconds']} + {row['player_cpu_seconds']} s",
                flush=True,
            )
    if failed:
        raise SystemExit(f"{len(failed)} games not calibrated: {', '.join(failed)}")


if __name__ == "__main__":
    main()
