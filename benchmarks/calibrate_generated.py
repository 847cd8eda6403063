"""Calibrate generated games and ship the kept ones as the public family `gen/<seed>` (issues 28 and 40): for each
seed, write the game (`minatar_synth.generator`), measure its trivial players, train PPO on it and keep it only if
the trained network clearly beats every trivial player and no public program, played unchanged, takes more than
half its cap (`wspbench/baselines/generated.py` states the rules).

    python benchmarks/calibrate_generated.py [--seeds 100-399] [--out /tmp/wspbench-generated] [--results FILE]
    python benchmarks/calibrate_generated.py --seeds 100-399 --out DIR --ship [--workers 2]  # write the family

Each seed's result is one JSON line appended to `--results` (default `<out>/results.jsonl`), its trained network
to `<out>/trained/gen_<seed>.0.npz` and `.json`. A seed already there with the same settings, the same game text
(its SHA-256) and its network saved is skipped, so an interrupted run resumes; two runs over disjoint seeds can
share the machine's cores. One core per run (PPO's steps and the games are single-threaded).

`--ship` trains nothing: from the results of the seeds given (later lines win), it plays every public program on
every game that passes the trivial rule (the hand-written references and all those games' networks; saved in
`<out>/crossplay.jsonl`, so it resumes), judges the family (`generated.public_family`: a rejected game's network
no longer counts against the others), and writes every kept game with its cap into `src/minatar_synth/games/`,
its network into `src/minatar_synth/trained/`, and every row, kept or rejected, into
`src/minatar_synth/generated.json`; generated games of the package not kept are removed. A table
(the calibration table of docs/generated.md) is printed at the end.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: threads would only fight
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import hashlib  # noqa: E402
import json  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

from rich.progress import track  # noqa: E402

from minatar_synth import generator  # noqa: E402
from wspbench.baselines import generated  # noqa: E402
from wspbench.baselines.ppo import TRAINED  # noqa: E402
from wspbench.games import synth  # noqa: E402
from wspbench.networks import save_network  # noqa: E402
from wspbench.tasks.minatar import GENERATED_FILE, GENERATED_NETWORKS  # noqa: E402

ROOT = Path(__file__).parents[1]
GAMES = ROOT / "src" / "minatar_synth" / "games"
NETWORKS = ROOT / "src" / "minatar_synth" / GENERATED_NETWORKS
DATA = ROOT / "src" / "minatar_synth" / GENERATED_FILE
GAMES_DOC = ROOT / "docs" / "games.md"
GENERATED_SECTION = "\n## Generated games\n"  # the rest of docs/games.md (benchmarks/calibrate_synth.py keeps it)


def seeds_of(text: str) -> list[int]:
    """'0-7' or '0,3,5' or '2' or '100-149,400-449'."""
    seeds = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds += range(int(first), int(last or first) + 1)
    return seeds


def source_digest(seed: int) -> str:
    return hashlib.sha256(generator.generate(seed).encode()).hexdigest()


def done_rows(results: Path, out: Path) -> dict[int, dict]:
    """The rows still valid for the current generator and settings, whose network is saved (or that were rejected)."""
    done = {}
    if results.is_file():
        for line in results.read_text().splitlines():
            row = json.loads(line)
            saved = not row["kept"] or (out / TRAINED / f"{row['game']}.0.npz").is_file()
            if saved and row["settings"] == generated.settings() and row["source_sha256"] == source_digest(row["seed"]):
                done[row["seed"]] = row
    return done


def public(row: dict) -> str:
    found = row.get("public")
    if found is None:
        return "-"
    share = f" ({found['mean'] / row['cap']:.2f})" if row.get("cap") else ""
    return f"{found['program']} {found['mean']:.2f}{share}"


def show(rows: list[dict]) -> str:
    columns = ["seed", "layout", "fire", "scoring", "ending", "zero", "best constant", "random", "trained (se)",
               "best public (/cap)", "cap", "kept", "s base/train/cal"]  # fmt: skip
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for row in rows:
        m, b, t, s = row["mechanics"], row["baselines"], row["trained"], row["seconds"]
        lines.append(
            f"| {row['seed']} | {m['layout']} | {'yes' if m['fire'] else 'no'} | {m['scoring']} | {m['ending']} | "
            f"{b['zero']:.2f} | {max(b['constant']):.2f} ({b['best_constant']}) | {b['random_mean']:.2f} | "
            f"{t['mean']:.2f} ({t['stderr']:.2f}) | {public(row)} | {row['cap'] if row['kept'] else '-'} | "
            f"{'yes' if row['kept'] else 'no: ' + '; '.join(row['rejected_because'])} | "
            f"{s['baselines']:.0f}/{s['training']:.0f}/{s['calibration']:.0f} |"
        )
    kept = sum(row["kept"] for row in rows)
    lines.append(f"\nkept {kept} of {len(rows)} ({kept / max(1, len(rows)):.0%})")
    return "\n".join(lines)


def crossplay_table(rows: list[dict], out: Path, workers: int = 1) -> tuple[dict[str, dict[str, float]], list[str]]:
    """Every public program's mean on every game that passes the other rules (`generated.public_family` reads it),
    on the calibration episodes: the hand-written references and the networks of all those games. Saved a game
    at a time in `<out>/crossplay.jsonl` with the SHA-256 of the programs it played, so it resumes; `workers`
    processes play games side by side."""
    candidates = [row["game"] for row in rows if generated.judge({**row, "public": None})["kept"]]
    hand_written = generated.hand_written_programs()
    programs = {**hand_written, **generated.network_programs(out / TRAINED, candidates)}
    digest = hashlib.sha256()
    for name in sorted(programs):
        digest.update(name.encode() + b"".join(programs[name][key].tobytes() for key in sorted(programs[name])))
    digest = digest.hexdigest()
    path = out / "crossplay.jsonl"
    table = {}
    if path.is_file():
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry["programs_sha256"] == digest:
                table[entry["game"]] = entry["scores"]
    seeds = {row["game"]: row["seed"] for row in rows}
    todo = [game for game in candidates if game not in table]
    with ProcessPoolExecutor(workers, initializer=_programs.update, initargs=(programs,)) as pool:
        played = pool.map(_crossplay, [(seeds[game], out) for game in todo])
        for game, scores in track(zip(todo, played, strict=True), "public programs on each game", len(todo)):
            table[game] = scores
            with path.open("a") as file:
                file.write(json.dumps({"game": game, "programs_sha256": digest, "scores": scores}) + "\n")
    return table, sorted(hand_written)


_programs: dict = {}  # a crossplay worker's programs, set once when it starts


def _crossplay(job: tuple[int, Path]) -> dict[str, float]:
    return generated.crossplay_seed(*job, _programs)


def ship(rows: list[dict], out: Path) -> None:
    for stale in GAMES.glob(f"{synth.GENERATED}*.py"):
        stale.unlink()
    for stale in NETWORKS.glob(f"{synth.GENERATED}*"):
        stale.unlink()
    kept = generated.write_family(rows, GAMES, out / TRAINED, NETWORKS, DATA)
    old = GAMES_DOC.read_text()
    head = old[: old.index(GENERATED_SECTION)] if GENERATED_SECTION in old else old
    GAMES_DOC.write_text(head + GENERATED_SECTION + section(rows, kept))
    print(f"shipped {len(kept)} games of {len(rows)} calibrated into {GAMES}, {NETWORKS}, {DATA} and {GAMES_DOC}")


def runs(rows: list[dict]) -> list[tuple[int, int]]:
    """The seeds of `rows` as (first, last) runs of consecutive seeds."""
    found: list[list[int]] = []
    for seed in sorted(row["seed"] for row in rows):
        if found and seed == found[-1][1] + 1:
            found[-1][1] = seed
        else:
            found.append([seed, seed])
    return [(first, last) for first, last in found]


def section(rows: list[dict], kept: list[str]) -> str:
    """docs/games.md's part on the generated family: what it is, a sample's rules and replay, the calibration."""
    sample = kept[0]
    rules = (GAMES / f"{sample}.py").read_text().split('"""')[1].strip()
    seeds = ", ".join(f"{first}-{last}" if first != last else f"{first}" for first, last in runs(rows))
    return f"""
Generated by `python benchmarks/calibrate_generated.py --ship` (docs/generated.md says how a game is generated,
calibrated and kept, and how to make a private set from a key). {len(kept)} games, tasks `gen/<seed>`, each a module
`minatar_synth/games/gen_<seed>.py` written by `minatar_synth/generator.py` from its seed. A generated game has no
hand-written reference: its reference is its PPO network ({generated.BUDGET.steps:,} steps,
`minatar_synth/trained/`), and its cap is {generated.CAP_FACTOR:g} x that network's mean return on calibration
episodes, rounded up to two significant figures, so that network scores about {1 / generated.CAP_FACTOR:.2f}.
{len(rows)} seeds were calibrated ({seeds}); {len(rows) - len(kept)} were rejected
({(len(rows) - len(kept)) / len(rows):.0%}), each for the reason in its row.

A sample, `gen/{sample[4:]}`: the rules its module states (the prompt shows the whole file),

```text
{rules}
```

and its trained network playing two held-out episodes (`wsp replay gen/{sample[4:]} ANSWER --episodes 2`, with the
answer `wsp run --model trained` sends):

![the trained network playing gen/{sample[4:]}](generated_{sample[4:]}.gif)

### Calibration

Per seed, on {generated.CALIBRATION} calibration episodes (mean raw returns): the zero network, the best of the six
constant actions (its number), the mean of {generated.RANDOM} random networks, the PPO network (standard error), the
cap, and whether it was kept (else why not); seconds for the trivial players, training and scoring the network on
one core of this 2-core machine, two calibrations side by side.

{show(rows)}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-7")
    parser.add_argument("--out", type=Path, default=Path("/tmp/wspbench-generated"))
    parser.add_argument("--results", type=Path, help="default: <out>/results.jsonl")
    parser.add_argument("--ship", action="store_true", help="write the kept games into the package; train nothing")
    parser.add_argument("--workers", type=int, default=1, help="processes for --ship's public programs")
    options = parser.parse_args()
    out = options.out.resolve()
    (out / TRAINED).mkdir(parents=True, exist_ok=True)
    results = options.results or out / "results.jsonl"
    done = done_rows(results, out)
    seeds = seeds_of(options.seeds)
    for seed in [] if options.ship else seeds:
        if seed in done:
            continue
        row, weights, about = generated.calibrate(seed, out)
        save_network(out / TRAINED, f"{row['game']}.0", weights, {"task": f"gen/{seed:05d}", **about})
        with results.open("a") as file:
            file.write(json.dumps(row) + "\n")
        done[seed] = row
        print(f"seed {seed}: {'kept' if row['kept'] else 'rejected'} {row['trained']} {row['seconds']}", flush=True)
    rows = [done[seed] for seed in seeds if seed in done]
    if options.ship:
        rows = generated.public_family(rows, *crossplay_table(rows, out, options.workers))
        ship(rows, out)
    print(show(rows))


if __name__ == "__main__":
    main()
