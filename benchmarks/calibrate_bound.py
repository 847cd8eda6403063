"""Calibrate the hindsight bound of every synthetic, generated and original game (issue 48): `bound.calibrate` on each
game's calibration episodes (its budget found by doubling), checked episode by episode against every player we
ship, and every play replayed in the reference game.

The players, each on every episode: the zero network, the six constant actions, the reference program, the trained
network, every public program (the hand-written references and every generated game's network; their best on each
episode) and, for a hand-written synthetic game, its scripted player. Where the bound is below the best of them on
an episode the search is too weak there and searches it again wider (`bound.WIDER`); the episodes where it is still
below are counted per player (`below`). Every found play is replayed in the reference Python game
(`bound.replay`), so each value is a return that one action sequence really gets.

One JSON line per game goes to `--results` (by default `benchmarks/results/bound.jsonl`, which is committed as it
grows: the whole calibration takes more core-hours than one machine keeps); a game already there with the same
settings and the same game source is skipped, so a run resumes. Each line names the commit that searched it.

    python benchmarks/calibrate_bound.py [--games synth,gen,original] [--episodes 200] [--workers 2] [--results FILE]

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

from wspbench.baselines import bound, generated, measured  # noqa: E402
from wspbench.baselines.ppo import trained_answer  # noqa: E402
from wspbench.evaluation import ONE_WORKER  # noqa: E402
from wspbench.games import minatar_original, synth  # noqa: E402
from wspbench.tasks import get_task, select  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_synth import (  # noqa: E402 - a sibling script
    has_scripted_player,
    scripted_returns,
)

RESULTS = Path(__file__).parent / "results" / "bound.jsonl"  # committed as it grows: a calibration spans sessions


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
    for play in plays:
        if bound.replay(task, play.episode, play.actions) != (play.value, play.length):
            raise SystemExit(f"{task_id} episode {play.episode}: the found play does not replay to its return")
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
        "player_cpu_seconds": round(player_seconds, 1),
    }


def done(path: Path, count: int) -> dict[str, str]:
    """The games already in `path` with these settings and episodes, and their source's SHA-256."""
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["task"]: r["source_sha256"] for r in rows if r["settings"] == bound.settings() and r["episodes"] == count}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="synth,gen,original")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--results", default=str(RESULTS))
    args = parser.parse_args()
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    wanted = [t.id for t in select(args.games)]
    previous = done(path, args.episodes)
    todo = [t for t in wanted if previous.get(t) != source_sha256(get_task(t))]
    print(f"{len(wanted)} games, {len(wanted) - len(todo)} already calibrated", flush=True)
    with ProcessPoolExecutor(args.workers) as pool:
        futures = [pool.submit(calibrate, t, args.episodes) for t in todo]
        for future in as_completed(futures):
            row = future.result()
            with path.open("a") as file:
                file.write(json.dumps(row) + "\n")
            print(
                f"{row['task']:16s} cap {row['cap']:7.1f}  bound {row['mean']:8.2f} (width {row['width']}"
                f"{'' if row['converged'] else '+'}, {len(row['wider'])} wider)  below {sum(row['below'].values())}"
                f"  cpu {row['cpu_seconds']} + {row['player_cpu_seconds']} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
