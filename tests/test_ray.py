"""The Ray executor (`wspbench/evaluation/executors.py`) against a real two-node Ray cluster on this machine:
a head and a worker node, one CPU each, each with its own ports and temp dir, started by the fixture and
stopped by it (only the process groups it started). Results must equal the local process pool's, episode
by episode, and both nodes must have played chunks."""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from wspbench.evaluation import engine, evaluate
from wspbench.evaluation.executors import LOCAL, ExecutorError, RayExecutor, resolve_executor, use_executor
from wspbench.harness.clients import OfflineClient
from wspbench.harness.record import RunConfig
from wspbench.harness.runs import RunDir, build_manifest, run_batch
from wspbench.tasks import get_task

RAY = Path(sys.executable).parent / "ray"
START_SECONDS = 60
# The cluster's own token for Ray's token authentication (on by default once a local ray.init has written
# ~/.ray/auth_token), the same for the nodes and this driver, so that no token file of the machine matters.
# Set when this module is imported: ray reads it once, when it is first imported.
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
os.environ.update(AUTH)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_node(head_port: int, head: bool, log: Path) -> tuple[subprocess.Popen, str]:
    """`ray start --block` for one node, in its own process group and temp dir; returns once it is up."""
    temp = tempfile.mkdtemp(prefix="wspray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    names = ("node-manager", "object-manager", "dashboard-agent-listen", "dashboard-agent-grpc", "runtime-env-agent")
    ports = [f"--{name}-port={free_port()}" for name in (*names, "metrics-export")]
    if head:
        role = ["--head", f"--port={head_port}"]
        role += [f"--dashboard-port={free_port()}", "--include-dashboard=false"]
    else:
        role = [f"--address=127.0.0.1:{head_port}"]
    command = [str(RAY), "start", "--block", f"--temp-dir={temp}", "--num-cpus=1", "--node-ip-address=127.0.0.1"]
    command += [*role, *ports, f"--object-store-memory={80 * 2**20}", "--disable-usage-stats"]
    env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    env.update(AUTH, RAY_USAGE_STATS_ENABLED="0")
    with open(log, "wb") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + START_SECONDS
    while b"Ray runtime started" not in log.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            stop_node(process, temp)
            pytest.fail(f"ray start failed:\n{log.read_text()[-3000:]}")
        time.sleep(0.3)
    return process, temp


def stop_node(process: subprocess.Popen, temp: str) -> None:
    """SIGTERM to the `ray start` process (it stops its node), then SIGKILL to what is left of its group."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(10)
    shutil.rmtree(temp, ignore_errors=True)


def test_an_address_nothing_answers_on_is_a_clear_error_in_seconds():
    pytest.importorskip("ray")
    import ray

    if ray.is_initialized():
        pytest.skip("this process is connected to a cluster")
    started = time.monotonic()
    with pytest.raises(ExecutorError, match="no Ray cluster answers"):
        RayExecutor(f"127.0.0.1:{free_port()}").workers()
    assert time.monotonic() - started < 30


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    pytest.importorskip("ray")
    logs = tmp_path_factory.mktemp("ray")
    port = free_port()
    started = []
    try:
        started.append(start_node(port, True, logs / "head.log"))
        started.append(start_node(port, False, logs / "worker.log"))
        executor = RayExecutor(f"127.0.0.1:{port}")
        deadline = time.monotonic() + START_SECONDS
        while executor.workers() < 2:
            assert time.monotonic() < deadline, "the worker node did not join"
            time.sleep(0.3)
        yield executor
        executor.close()
    finally:
        for process, temp in reversed(started):
            stop_node(process, temp)


def random_weights(network, seed: int) -> dict:
    generator = np.random.default_rng(seed)
    return {name: (generator.standard_normal(shape) * 0.6).astype(np.float32) for name, shape in network.shapes.items()}


@pytest.mark.parametrize("task_id", ["original/breakout", "synth/ferry"])
def test_evaluate_on_the_cluster_equals_the_local_pool(cluster, task_id, monkeypatch):
    """The compiled engine (an original game) and the fast one (a synthetic game), episode by episode."""
    monkeypatch.setattr(engine, "POOL_WORTH_SECONDS", 0.0)  # spread even this short grading
    game = get_task(task_id).binding
    weights = random_weights(game.network, 7)
    local = evaluate(game, weights, 300, workers=2, executor=LOCAL)
    reported = []
    on_ray = evaluate(game, weights, 300, executor=cluster, progress=reported.append)
    assert on_ray == local
    assert sum(reported) == 300 and len(reported) > 1  # progress arrives chunk by chunk


def test_both_nodes_played_chunks(cluster):
    game = get_task("synth/ferry").binding
    evaluate(game, random_weights(game.network, 8), 256, executor=cluster)
    assert len(cluster.nodes) == 2, cluster.nodes


def test_grade_on_the_cluster_equals_local(cluster):
    """`task.grade`, as `wsp grade` calls it, inside `use_executor`."""
    task = get_task("original/breakout")
    reply = task.offline_answer("reference")
    episodes = task.scoring_episodes(200)
    local = task.grade(reply, episodes, workers=2).to_json()
    with use_executor(cluster):
        on_ray = task.grade(reply, episodes).to_json()
    local.pop("seconds"), on_ray.pop("seconds")
    assert on_ray == local


def test_run_batch_on_the_cluster_equals_local(cluster, tmp_path):
    """Requests and records in the driver's threads, training and held-out gradings on the cluster: the same
    records as a local run."""
    tasks = [get_task("original/breakout"), get_task("synth/ferry")]
    config = RunConfig("reference", protocol="feedback", rounds=2, episodes=150, train_episodes=130)
    scores = {}
    for name, executor in (("local", None), ("ray", cluster)):
        run_dir = RunDir(tmp_path / name)
        run_dir.open(build_manifest(config, tasks))
        assert run_batch(run_dir, tasks, OfflineClient("reference"), config, 2, executor=executor) == [
            t.id for t in tasks
        ]
        records = RunDir(tmp_path / name).records()
        assert [r.status for r in records] == ["ok", "ok"]
        scores[name] = [(r.test, *(round.train for round in r.rounds)) for r in records]
    for local, on_ray in zip(scores["local"], scores["ray"], strict=True):
        assert [(s.values, s.lengths, s.normalized) for s in on_ray] == [
            (s.values, s.lengths, s.normalized) for s in local
        ]


def test_closing_the_executor_leaves_the_cluster_running(cluster):
    other = RayExecutor(cluster.address)
    other.close()  # connected to nothing yet: nothing to do
    cluster.close()  # only disconnects this driver
    assert cluster.workers() == 2  # reconnects: both nodes still there


def test_usage_errors():
    with pytest.raises(ExecutorError, match="unknown executor"):
        resolve_executor("dask")
    with pytest.raises(ExecutorError, match="needs --executor ray"):
        resolve_executor("local", "127.0.0.1:6379")
    assert resolve_executor("local") is LOCAL


def test_wsp_grade_with_the_ray_executor_equals_local(cluster, tmp_path):
    import json

    from typer.testing import CliRunner

    from wspbench.cli import app

    runner = CliRunner()
    if "--executor" not in runner.invoke(app, ["grade", "--help"], terminal_width=200).output:
        pytest.skip("wsp grade has no --executor option yet")
    answer = tmp_path / "answer.txt"
    answer.write_text(get_task("synth/ferry").offline_answer("reference"))
    common = ["grade", "synth/ferry", str(answer), "--episodes", "200", "--json"]
    results = []
    for extra in ([], ["--executor", "ray", "--ray-address", cluster.address]):
        result = runner.invoke(app, [*common, *extra])
        assert result.exit_code == 0, result.output
        score = json.loads(result.output.strip().splitlines()[-1])
        score.pop("seconds")
        results.append(score)
    assert results[0] == results[1]
