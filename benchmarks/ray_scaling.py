"""The Ray executor's scaling, and the throughput model of docs/scale.md.

Scaling: the same grading batch (the reference answer of each task in --tasks on its first --episodes
held-out episodes, --concurrency tasks at a time, as `wsp run` grades them) on a Ray cluster of one node,
then of two: a head and a worker started on this machine with `ray start --num-cpus 1` each (their own
ports and temp dirs; stopped at the end, and only they). Prints the wall times and the speed-up, and checks
that both results equal the local process pool's, episode by episode.

Throughput (--throughput): episodes per second on one core (one process, no pool) for every task's
reference answer, and what a study of all tasks x --models models x --rounds feedback rounds (each round
grades --train-episodes training episodes, then 1000 held-out episodes) costs on N cores.

    python benchmarks/ray_scaling.py [--tasks original/*,synth/ferry] [--episodes 600]
    python benchmarks/ray_scaling.py --throughput [--sample 200]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.evaluation.test_ray import start_node, stop_node  # noqa: E402 - the test's nodes (and Ray token)
from wspbench.evaluation import ONE_WORKER, Grading  # noqa: E402
from wspbench.evaluation.executors import LOCAL, RayExecutor, use_executor  # noqa: E402
from wspbench.tasks import GameTask, all_tasks, select  # noqa: E402


def grade_batch(tasks, episodes: int, executor, concurrency: int) -> tuple[float, list]:
    """Wall seconds and each task's (values, lengths), graded `concurrency` tasks at a time on `executor`."""

    def grade(task):
        with use_executor(executor):
            score = task.grade(task.offline_answer("reference"), task.scoring_episodes(episodes), Grading(workers=2))
        return score.values, score.lengths

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as threads:
        results = list(threads.map(grade, tasks))
    return time.perf_counter() - started, results


def scaling(tasks, episodes: int, concurrency: int) -> None:
    _, local = grade_batch(tasks, episodes, LOCAL, concurrency)
    logs = Path(tempfile.mkdtemp(prefix="wspray-logs"))  # the nodes' `ray start` output, kept on failure
    started, times = [], {}
    try:
        started.append(start_node(None, logs / "head.log"))
        port = started[0][2]
        cluster = RayExecutor(f"127.0.0.1:{port}")
        cluster.connect()  # in the main thread
        for nodes in (1, 2):
            if nodes == 2:
                started.append(start_node(port, logs / "worker.log"))
                while cluster.workers() < 2:
                    time.sleep(0.3)
            grade_batch(tasks, min(episodes, 200), cluster, concurrency)  # warm up the node's workers
            times[nodes], results = grade_batch(tasks, episodes, cluster, concurrency)
            assert results == local, f"{nodes} node(s): results differ from the local pool's"
            print(f"{nodes} node(s): {times[nodes]:.1f} s, chunks per node so far {dict(cluster.nodes)}", flush=True)
        cluster.close()
    finally:
        for process, temp, _ in reversed(started):
            stop_node(process, temp)
    shutil.rmtree(logs)
    total = len(tasks) * episodes
    print(f"\nbatch: {len(tasks)} tasks x {episodes} episodes ({total} episodes), concurrency {concurrency}")
    print("results equal the local process pool's, episode by episode, on 1 and 2 nodes")
    for nodes, seconds in times.items():
        print(f"  {nodes} node(s) x 1 CPU: {seconds:6.1f} s  {total / seconds:7.0f} episodes/s")
    print(f"  speed-up: {times[1] / times[2]:.2f}x")


def throughput(sample: int, models: int, rounds: int, train_episodes: int) -> None:
    """Episodes per second per core for every task's reference answer, and the study's cost model."""
    print(f"{'task':28} {'episodes':>8} {'mean length':>11} {'episodes/s/core':>15}")
    study_core_seconds = 0.0
    for task in all_tasks():
        reply = task.offline_answer("reference")
        task.grade(reply, task.scoring_episodes(2), ONE_WORKER)  # load the compiled code
        episodes = task.scoring_episodes(sample)
        score = task.grade(reply, episodes, Grading(workers=1, engine="auto"))
        rate = len(score.values) / score.seconds
        held_out = len(task.scoring_episodes(1000))
        train = len(task.training_episodes(train_episodes)) if isinstance(task, GameTask) else 0  # one-shot only
        per_model = held_out + rounds * train
        study_core_seconds += models * per_model / rate
        mean_length = sum(score.lengths) / len(score.lengths)
        print(f"{task.id:28} {len(episodes):8d} {mean_length:11.0f} {rate:15.1f}", flush=True)
    print(
        f"\nstudy: {len(all_tasks())} tasks x {models} models x {rounds} rounds ({train_episodes} training "
        f"episodes a round, 1000 held-out): {study_core_seconds / 3600:.2f} core-hours of grading"
    )
    for cores in (1, 2, 8, 32, 128):
        print(f"  {cores:4d} cores: {study_core_seconds / cores / 60:8.1f} min")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", default="original/*,synth/ferry,synth/rockfall")
    parser.add_argument("--episodes", type=int, default=600)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--throughput", action="store_true")
    parser.add_argument("--sample", type=int, default=200, help="episodes per task measured for --throughput")
    parser.add_argument("--models", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--train-episodes", type=int, default=100)
    args = parser.parse_args()
    if args.throughput:
        throughput(args.sample, args.models, args.rounds, args.train_episodes)
    else:
        scaling(select(args.tasks), args.episodes, args.concurrency)


if __name__ == "__main__":
    main()
