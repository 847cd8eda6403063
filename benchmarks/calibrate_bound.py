"""Calibrate the hindsight bound of every synthetic and generated game (issue 48): the search of
`wspbench/baselines/bound.py` on each game's calibration episodes, its budget found by doubling, and the check,
episode by episode, that it is at least every player we ship.

For each game: the beam plays the first SAMPLE calibration episodes at width W, 2W, 4W ... until doubling adds less
than GAIN to their mean (or MAX_WIDTH is reached); the last width is the game's. Then it plays all `--episodes`
calibration episodes at that width. On the same episodes every shipped player is played (the zero network, the six
constant actions, the reference program, the trained network, every public program: the hand-written references
and every generated game's network, and for a hand-written synthetic game its scripted player); where the bound is
below the best of them on an episode, the search was too weak there, and that episode is searched again at twice,
four and eight times the width (its best result is kept). Every result is replayed in the reference game
(`bound.replay`), so each value is a return that one action sequence really gets. One JSON line per game goes to
`--results`; a game already there with the same settings and the same game source is skipped, so a run resumes.

    python benchmarks/calibrate_bound.py [--games synth,gen | gen/00100,...] [--episodes 200] [--workers 2]
                                         [--results benchmarks/results/bound.jsonl]

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
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor, as_completed  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from wspbench.baselines import generated, measured  # noqa: E402
from wspbench.baselines.bound import replay, search  # noqa: E402
from wspbench.baselines.ppo import trained_answer  # noqa: E402
from wspbench.evaluation import Grading  # noqa: E402
from wspbench.games import synth  # noqa: E402
from wspbench.tasks import get_task, select  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_synth import has_scripted_player, scripted_returns  # noqa: E402 - a sibling script

ROOT = Path(__file__).parents[1]
GAIN = 0.02  # doubling the width must add less than this share of the sample's mean
SAMPLE = 8  # episodes of the doubling check
WIDTH, MAX_WIDTH = 64, 1024
WIDER = (2, 4, 8)  # an episode where a player beats the bound is searched again at these multiples of the width
ONE_WORKER = Grading(workers=1)


def settings(episodes: int) -> dict:
    return {"episodes": episodes, "sample": SAMPLE, "gain": GAIN, "width": WIDTH, "max_width": MAX_WIDTH,
            "wider": list(WIDER)}


def source_sha256(task) -> str:
    """The game module's SHA-256: a game whose text changed is calibrated again."""
    return hashlib.sha256(Path(inspect.getfile(synth.environment_class(task.game.name))).read_bytes()).hexdigest()


def players(task, episodes: list[int]) -> dict[str, list[float]]:
    """Every shipped player's return on each episode (the best public program's per episode: their maximum)."""
    network = task.network
    out = {"zero": task.score(network.zeros(), episodes, ONE_WORKER).values}
    for action in range(network.sizes[-1]):
        out[f"constant {action}"] = task.score(measured.constant_weights(network, action), episodes, ONE_WORKER).values
    out["reference"] = task.grade(task.offline_answer("reference"), episodes, ONE_WORKER).values
    answer = trained_answer(task)
    if answer is not None:
        out["trained"] = task.grade(answer, episodes, ONE_WORKER).values
    programs = generated.public_programs()
    own = task.game.name
    public = [task.score(w, episodes, ONE_WORKER).values for name, w in programs.items() if name != own]
    out["public"] = list(np.max(public, axis=0))
    if has_scripted_player(own):
        out["scripted"] = scripted_returns(own, episodes)
    return {name: [float(v) for v in values] for name, values in out.items()}


def calibrate(task_id: str, count: int) -> dict:
    task = get_task(task_id)
    episodes = list(task.calibration_episodes(count))
    started = time.process_time()
    played = players(task, episodes)
    player_seconds = time.process_time() - started

    width, ladder, previous = WIDTH, [], None
    while True:
        found = [search(task, e, width) for e in episodes[:SAMPLE]]
        mean = float(np.mean([f.value for f in found]))
        ladder.append({"width": width, "mean": mean, "cpu_seconds": round(sum(f.cpu_seconds for f in found), 2)})
        converged = previous is not None and mean - previous < GAIN * max(abs(previous), 1e-9)
        if converged or width * 2 > MAX_WIDTH:
            break
        previous, width = mean, width * 2
    results = found + [search(task, e, width) for e in episodes[SAMPLE:]]
    best_player = np.max(list(played.values()), axis=0)
    wider = {}
    for i, e in enumerate(episodes):
        for factor in WIDER:
            if results[i].value >= best_player[i]:
                break
            again = search(task, e, width * factor)
            wider[str(e)] = width * factor
            if again.value > results[i].value:
                results[i] = again
    for f in results:
        if replay(task, f.episode, f.actions) != (f.value, f.length):
            raise SystemExit(f"{task_id} episode {f.episode}: the found play does not replay to its return")
    values = np.array([f.value for f in results])
    return {
        "task": task_id,
        "game": task.game.name,
        "source_sha256": source_sha256(task),
        "settings": settings(count),
        "first_episode": episodes[0],
        "cap": task.game.score_cap,
        "actions": list(task.acting_actions() or range(6)),
        "width": width,
        "converged": converged,
        "ladder": ladder,
        "wider": wider,
        "mean": float(values.mean()),
        "stderr": float(values.std(ddof=1) / np.sqrt(len(values))),
        "values": values.tolist(),
        "lengths": [f.length for f in results],
        "players": {name: float(np.mean(v)) for name, v in played.items()},
        "below": {name: int(np.sum(values < np.asarray(v))) for name, v in played.items()},
        "cpu_seconds": {"search": round(sum(f.cpu_seconds for f in results) + sum(r["cpu_seconds"] for r in ladder[:-1]), 1),
                        "players": round(player_seconds, 1)},
    }


def done(path: Path, count: int) -> dict[str, str]:
    """The games already in `path` with these settings, and their source's SHA-256."""
    if not path.is_file():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["task"]: r["source_sha256"] for r in rows if r["settings"] == settings(count)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="synth,gen")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--results", default=str(ROOT / "benchmarks" / "results" / "bound.jsonl"))
    args = parser.parse_args()
    path = Path(args.results)
    path.parent.mkdir(parents=True, exist_ok=True)
    wanted = [t.id for t in select(args.games)]
    previous = done(path, args.episodes)
    todo = [t for t in wanted if t not in previous or previous[t] != source_sha256(get_task(t))]
    print(f"{len(wanted)} games, {len(wanted) - len(todo)} already calibrated", flush=True)
    with ProcessPoolExecutor(args.workers) as pool:
        futures = {pool.submit(calibrate, t, args.episodes): t for t in todo}
        for future in as_completed(futures):
            row = future.result()
            with path.open("a") as file:
                file.write(json.dumps(row) + "\n")
            print(f"{row['task']:16s} cap {row['cap']:7.1f}  bound {row['mean']:8.2f} (width {row['width']}"
                  f"{'' if row['converged'] else '+'}, {len(row['wider'])} wider)  below {row['below']}  "
                  f"cpu {row['cpu_seconds']}", flush=True)


if __name__ == "__main__":
    main()
