"""The Ray executor (`wspbench/evaluation/executors.py`) against a real two-node Ray cluster on this machine:
a head and a worker node, one CPU each, each with its own ports and temp dir, started by the fixture and
stopped by it (only the process groups it started). Results must equal the local process pool's, episode
by episode, and both nodes must have played chunks.

A node's ports are chosen without a race (issue 52): below the kernel's ephemeral range, which `bind(0)` anywhere
else on the machine draws from, each checked free and all of one node's held at once (so they differ), under a
lock file that two test processes (pytest-xdist workers) take in turn until the node has bound them."""

from __future__ import annotations

import fcntl
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from wspbench.evaluation import Grading, engine, evaluate
from wspbench.evaluation.executors import LOCAL, ExecutorError, RayExecutor, resolve_executor, use_executor
from wspbench.harness.clients import OfflineClient
from wspbench.harness.record import RunConfig
from wspbench.harness.runs import RunDir, build_manifest, run_batch
from wspbench.protocols import make
from wspbench.tasks import get_task
from wspbench.tasks.held_out import SECRET_FILE, new_secret

pytestmark = pytest.mark.slow  # starts Ray clusters

RAY = Path(sys.executable).parent / "ray"
START_SECONDS = 60
# The cluster's own token for Ray's token authentication (on by default once a local ray.init has written
# ~/.ray/auth_token), the same for the nodes and this driver, so that no token file of the machine matters.
# Set when this module is imported: ray reads it once, when it is first imported.
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
os.environ.update(AUTH)


PORTS = range(20_000, 32_000)  # below net.ipv4.ip_local_port_range (32768 and up): bind(0) never hands these out
PORT_LOCK = Path(tempfile.gettempdir()) / "wspbench-ray-ports.lock"


def free_port() -> int:
    """A port nothing listens on now (for an address that must not answer)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reserve_ports(count: int) -> list[int]:
    """`count` distinct ports of PORTS that nothing on this machine holds now (all bound at once while they are
    chosen). Call it holding PORT_LOCK, until the node that takes them has bound them."""
    held: list[socket.socket] = []
    try:
        for port in random.sample(PORTS, len(PORTS)):
            probe = socket.socket()
            try:
                probe.bind(("", port))
            except OSError:
                probe.close()
                continue
            held.append(probe)
            if len(held) == count:
                return [s.getsockname()[1] for s in held]
        raise RuntimeError(f"fewer than {count} free ports in {PORTS}")
    finally:
        for probe in held:
            probe.close()


def start_node(head_port: int | None, log: Path) -> tuple[subprocess.Popen, str, int]:
    """`ray start --block` for one node, in its own process group and temp dir: a head (`head_port` None: it takes
    a port of its own) or a worker joining the head at `head_port`. Returns once it is up, with the head's port."""
    temp = tempfile.mkdtemp(prefix="wspray", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    names = ("node-manager", "object-manager", "dashboard-agent-listen", "dashboard-agent-grpc", "runtime-env-agent")
    with open(PORT_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the node is up (or failed): it holds its ports then
        chosen = reserve_ports(len(names) + 3)
        ports = [f"--{name}-port={port}" for name, port in zip((*names, "metrics-export"), chosen, strict=False)]
        if head_port is None:
            head_port = chosen[-1]
            role = ["--head", f"--port={head_port}", f"--dashboard-port={chosen[-2]}", "--include-dashboard=false"]
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
    return process, temp, head_port


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


class NotRay:
    """A server on 127.0.0.1 that is not a Ray head: an HTTP server, or a socket that accepts and never says
    anything."""

    def __init__(self, kind: str):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.kind, self.open = kind, []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.open.append(connection)
            if self.kind == "http":
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self.listener.close()
        for connection in self.open:
            connection.close()


def wsp(*args: str, env: dict | None = None, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    """The real `wsp` in a process of its own (ray connects once per process), with the time it took."""
    started = time.monotonic()
    command = [sys.executable, "-m", "wspbench.cli", *args]
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src, "COLUMNS": "300", **(env or {})}
    env.pop("RAY_ADDRESS", None)
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
    return result, time.monotonic() - started


def answer_file(tmp_path: Path, task_id: str = "synth/ferry") -> str:
    path = tmp_path / "answer.txt"
    path.write_text(get_task(task_id).offline_answer("reference"))
    return str(path)


@pytest.mark.parametrize("kind", ["http", "silent"])
def test_a_server_that_is_not_a_ray_head_is_one_line_and_exit_2_in_seconds(tmp_path, kind):
    pytest.importorskip("ray")
    server = NotRay(kind)
    try:
        address = f"127.0.0.1:{server.port}"
        result, seconds = wsp(
            "grade", "synth/ferry", answer_file(tmp_path), "--executor", "ray", "--ray-address", address
        )
    finally:
        server.close()
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.strip().splitlines()  # one line, no usage box, no traceback
    assert line.startswith(f"{address} answers, but not as a Ray cluster's head")
    assert seconds < 30  # the check itself gives up after CONNECT_S (5 s); the rest is starting Python


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    pytest.importorskip("ray")
    logs = tmp_path_factory.mktemp("ray")
    started = []
    try:
        started.append(start_node(None, logs / "head.log"))
        port = started[0][2]
        started.append(start_node(port, logs / "worker.log"))
        executor = RayExecutor(f"127.0.0.1:{port}")
        deadline = time.monotonic() + START_SECONDS
        while executor.workers() < 2:
            assert time.monotonic() < deadline, "the worker node did not join"
            time.sleep(0.3)
        yield executor
        executor.close()
    finally:
        for process, temp, _ in reversed(started):
            stop_node(process, temp)


def random_weights(network, seed: int) -> dict:
    generator = np.random.default_rng(seed)
    return {name: (generator.standard_normal(shape) * 0.6).astype(np.float32) for name, shape in network.shapes.items()}


@pytest.mark.parametrize("task_id, engine_name", [("original/breakout", "compiled"), ("synth/ferry", "fast")])
def test_evaluate_on_the_cluster_equals_the_local_pool(cluster, task_id, engine_name, monkeypatch):
    """The compiled engine and the fast one, episode by episode."""
    monkeypatch.setattr(engine, "POOL_WORTH_SECONDS", 0.0)  # spread even this short grading
    game = get_task(task_id).binding
    weights = random_weights(game.network, 7)
    local = evaluate(game, weights, 300, engine=engine_name, workers=2, executor=LOCAL)
    reported = []
    on_ray = evaluate(game, weights, 300, engine=engine_name, executor=cluster, progress=reported.append)
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
    local = task.grade(reply, episodes, Grading(workers=2)).to_json()
    with use_executor(cluster):
        on_ray = task.grade(reply, episodes).to_json()
    local.pop("seconds"), on_ray.pop("seconds")
    assert on_ray == local


def test_run_batch_on_the_cluster_equals_local(cluster, tmp_path):
    """Requests and records in the driver's threads, training and held-out gradings on the cluster: the same
    records as a local run (the two run directories hold one secret, so they draw the same held-out episodes)."""
    tasks = [get_task("original/breakout"), get_task("synth/ferry")]
    config = RunConfig("reference", protocol=make("feedback", rounds=2, episodes=150, train_episodes=130))
    scores, secret = {}, new_secret()
    for name, executor in (("local", None), ("ray", cluster)):
        (tmp_path / name).mkdir()
        (tmp_path / name / SECRET_FILE).write_text(secret)
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


def test_a_wrong_token_is_exit_2_naming_the_token_setting(cluster, tmp_path):
    result, seconds = wsp(
        "grade",
        "synth/ferry",
        answer_file(tmp_path),
        "--executor",
        "ray",
        "--ray-address",
        cluster.address,
        env={"RAY_AUTH_TOKEN": "0" * 64},
    )
    assert result.returncode == 2, result.stderr
    assert "RAY_AUTH_TOKEN" in result.stderr and "RAY_AUTH_MODE=token" in result.stderr
    assert result.stderr.count("gcs_client.cc") <= 6  # Ray's warning a second, for 5 s (it was 20)
    assert seconds < 60


def test_a_cluster_lost_mid_grade_is_an_infrastructure_error_not_a_rejection(tmp_path):
    """A head of its own (the module's cluster stays up), killed while `wsp grade` plays on it."""
    pytest.importorskip("ray")
    process, temp, port = start_node(None, tmp_path / "head.log")
    try:
        command = [sys.executable, "-m", "wspbench.cli", "-v", "grade", "synth/ferry", answer_file(tmp_path)]
        command += ["--episodes", "20000", "--workers", "2", "--executor", "ray", "--ray-address", f"127.0.0.1:{port}"]
        src = str(Path(__file__).resolve().parents[2] / "src")
        env = {**os.environ, "PYTHONPATH": src, "COLUMNS": "300"}
        grading = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in grading.stderr:  # wait until the grading has started on the cluster
            if "grading synth/ferry" in line:
                break
        time.sleep(float(os.environ.get("WSP_TEST_KILL_AFTER", "3")))
    finally:
        stop_node(process, temp)
    killed = time.monotonic()
    out, err = grading.communicate(timeout=120)
    assert grading.returncode == 2, out + err
    assert time.monotonic() - killed < 50  # Ray itself would end the process with status 1 after 60 s
    assert "failed while grading" in err and "Traceback" not in err


def test_a_chunk_error_is_the_clusters_unless_play_raised_it_on_a_live_cluster():
    """A worker stopped by SIGTERM fails its task with SystemExit inside a RayTaskError: that is the cluster
    going away (exit 2), as is any error while the head is silent; a game's own exception is a rejection."""
    pytest.importorskip("ray")
    import ray

    from wspbench.evaluation.executors import _RayPool

    head = socket.create_server(("127.0.0.1", 0))
    pool = object.__new__(_RayPool)
    pool.ray, pool.head = ray, f"127.0.0.1:{head.getsockname()[1]}"
    try:
        task_error = ray.exceptions.RayTaskError
        assert pool.cluster_failed(task_error("play_chunk", "", SystemExit(1)))
        assert pool.cluster_failed(ray.exceptions.WorkerCrashedError())
        assert pool.cluster_failed(task_error("play_chunk", "", ray.exceptions.RaySystemError("lost")))
        assert not pool.cluster_failed(task_error("play_chunk", "", ValueError("a broken game")))
        assert not pool.cluster_failed(ValueError("a broken game"))
    finally:
        head.close()
    assert pool.cluster_failed(task_error("play_chunk", "", ValueError("a broken game")))  # the head is gone
