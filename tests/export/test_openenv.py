"""The OpenEnv server (optional, needs `openenv-core`): reset gives the task's prompt, step grades the
reply with the task's own grade (`Score.to_json()` as the result), both carry the suite; and a real
server (uvicorn on 127.0.0.1, a free port) under hostile requests: unknown tasks, huge bodies, 50 sessions
at once, a grade past its time limit. Runs with the Python named by WSP_OPENENV_PYTHON (a venv with
`pip install -e '.[openenv]'`, which .ci/parts.sh makes: openenv-core pins an older pillow), else in this
interpreter when it has openenv-core, else it is skipped. (Importing openenv-core takes ~10 s because it
loads gradio, so this is opt-in.)"""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import missing_part, need_sandbox
from wspbench.evaluation import ONE_WORKER
from wspbench.harness.clients import OfflineClient
from wspbench.harness.protocols import run_task
from wspbench.harness.record import RunConfig
from wspbench.protocols import make
from wspbench.tasks import get_task, suite

SRC = Path(__file__).resolve().parents[2] / "src"
CHECK = """
import json
from fastapi.testclient import TestClient
from wspbench.export.openenv_server import make_app
from wspbench.tasks import get_task
client = TestClient(make_app(episodes=2))
out = {"reset": client.post("/reset", json={"task": "original/breakout"}).json()}
answer = get_task("original/breakout").offline_answer("reference")
out["step"] = client.post("/step", json={"action": {"task": "original/breakout", "answer": answer}}).json()
out["bad"] = client.post("/step", json={"action": {"task": "superbeam", "answer": "no weights"}}).json()
unknown = client.post("/reset", json={"task": "original/nope"})
out["unknown"] = [unknown.status_code, unknown.json()]
typo = client.post("/reset", json={"task": "original/brekout"})
out["typo"] = [typo.status_code, typo.json()]
with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:  # the default: several
    for socket_ in (first, second):
        socket_.send_text(json.dumps({"type": "reset", "data": {"task": "original/asterix"}}))
    out["sessions"] = [json.loads(s.receive_text())["type"] for s in (first, second)]
    for socket_ in (first, second):
        socket_.send_text(json.dumps({"type": "close"}))
print(json.dumps(out))
"""


def python_with_openenv() -> str:
    __tracebackhide__ = True  # the skip reports the test's own line
    candidate = os.environ.get("WSP_OPENENV_PYTHON", "")
    if not candidate and importlib.util.find_spec("openenv") is not None:
        return sys.executable
    if not candidate or not Path(candidate).is_file():
        missing_part(
            "openenv",
            "openenv-core is not installed (pip install openenv-core, or set WSP_OPENENV_PYTHON to a Python "
            "that has it, as .ci/parts.sh makes)",
        )
    return candidate


def websockets_client():
    """The tests' side of a websocket runs in this interpreter, which needs the websockets package."""
    __tracebackhide__ = True  # the skip reports the test's own line
    try:
        return importlib.import_module("websockets.sync.client")
    except ImportError:
        missing_part("openenv", "this Python lacks websockets for the client side (pip install websockets)")


def test_reset_prompts_and_step_grades():
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [python_with_openenv(), "-c", CHECK], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    task = get_task("original/breakout")
    system, user = task.messages()
    observation = out["reset"]["observation"]
    assert (observation["system_prompt"], observation["prompt"]) == (system["content"], user["content"])
    assert out["reset"]["done"] is False and observation["suite"] == suite().to_json()
    expected = task.grade(task.offline_answer("reference"), task.scoring_episodes(2), ONE_WORKER)
    result = out["step"]["observation"]["result"]
    assert out["step"]["done"] is True and out["step"]["reward"] == expected.normalized
    assert out["step"]["observation"]["suite"] == suite().to_json()
    assert {k: v for k, v in result.items() if k != "seconds"} == {
        k: v for k, v in expected.to_json().items() if k != "seconds"
    }
    assert out["bad"]["reward"] == 0.0 and "no JSON object" in out["bad"]["observation"]["result"]["error"]
    assert out["unknown"][0] == 400 and "unknown task 'original/nope'" in out["unknown"][1]["detail"]
    status, typo = out["typo"]  # a few close ids, never the whole suite
    assert status == 400 and "did you mean original/breakout?" in typo["detail"] and "repair/" not in typo["detail"]
    assert out["sessions"] == ["observation", "observation"]


# --- a real server under hostile conditions (uvicorn on 127.0.0.1, a free port) -----------------------


class Server:
    """`python -m wspbench.export.openenv_server --port 0` in a child process, stopped by the test: the server binds
    a free port itself and says which (no port is chosen here and freed for it: two servers never race for one)."""

    def __init__(self, *args: str):
        self.port: int | None = None
        env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - a file, not a pipe: a full pipe would stall the server
        self.process = subprocess.Popen(
            [python_with_openenv(), "-m", "wspbench.export.openenv_server", "--port", "0", *args],
            env=env,
            stdout=self.log,
            stderr=self.log,
        )

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-3000:]

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 180
        while True:
            assert self.process.poll() is None, self.output()
            assert time.monotonic() < deadline, "the server did not start"
            if self.port is None:
                said = re.search(r"listening on http://[^:]+:(\d+)", self.output())
                if said is None:
                    time.sleep(0.2)
                    continue
                self.port = int(said.group(1))
            try:
                if self.request("GET", "/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)

    def request(self, method: str, path: str, payload=None, timeout: float = 60) -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            body = None if payload is None else json.dumps(payload).encode()
            connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def peak_memory_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) / 1024

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def servers():
    """A server for many short grades (2 episodes) and one whose grades run past a 1 s limit."""
    fast = Server("--episodes", "2", "--max-sessions", "64", "--graders", "2")
    slow = Server("--episodes", "20000", "--graders", "1", "--grade-timeout", "1")
    try:
        fast.wait_ready()
        slow.wait_ready()
        yield fast, slow
    finally:
        fast.stop()
        slow.stop()


def test_bad_requests_are_4xx_and_never_echoed(servers):
    fast, _ = servers
    status, body = fast.request("POST", "/reset", {"task": "original/nope"})
    assert status == 400 and b"nope" in body
    for task in (["a"], {"b": 1}, "x" * 1000):
        assert fast.request("POST", "/reset", {"task": task})[0] in (400, 422)
    status, body = fast.request("POST", "/step", {"action": {"task": "synth/nope", "answer": "x"}})
    assert status == 400
    junk = "Z" * 200_000
    status, body = fast.request("POST", "/step", {"action": {"answer": 5, "task": junk}})
    assert status == 422 and len(body) < 5000 and b"ZZZZ" not in body
    status, body = fast.request("POST", "/step", {"action": {"task": "original/breakout", "answer": "B" * 1_200_000}})
    result = json.loads(body)
    assert status == 200 and result["reward"] == 0.0 and "over the limit" in result["observation"]["result"]["error"]
    assert len(body) < 5000
    assert fast.request("POST", "/step", "not an object")[0] == 422


def test_a_huge_body_is_refused_before_it_is_read(servers):
    """With a Content-Length over the limit the 413 comes before a byte of the body is sent; a chunked body is
    read up to the limit, then refused, and the server's memory does not grow with what the client sends. (When
    the server closes a connection the client is still sending on, TCP may reset it before the client reads the
    413, so the 413 is checked where it cannot be lost: issue 52.)"""
    fast, _ = servers
    before = fast.peak_memory_mb()
    for declared in (True, False):
        connection = http.client.HTTPConnection("127.0.0.1", fast.port, timeout=60)
        connection.putrequest("POST", "/step")
        connection.putheader("Content-Type", "application/json")
        connection.putheader(*(("Content-Length", "300000000") if declared else ("Transfer-Encoding", "chunked")))
        connection.endheaders()
        chunk = b"%x\r\n%s\r\n" % (1 << 20, b"x" * (1 << 20))
        try:
            for _ in range(0 if declared else 300):
                connection.send(chunk)
        except OSError:  # the server answered and closed the connection
            pass
        if declared:
            response = connection.getresponse()
            assert response.status == 413 and b"over the limit" in response.read()
        else:
            try:
                assert connection.getresponse().status == 413
            except (ConnectionError, http.client.RemoteDisconnected):  # reset before the 413 could be read
                pass
        connection.close()
    assert fast.peak_memory_mb() - before < 200 and fast.request("GET", "/health")[0] == 200


def test_fifty_sessions_at_once_over_websocket_and_http(servers):
    websockets = websockets_client()
    fast, _ = servers
    task = get_task("original/breakout")
    answer = task.offline_answer("reference")
    expected = task.grade(answer, task.scoring_episodes(2), ONE_WORKER).normalized
    prompt = task.messages()[1]["content"]
    rewards: dict[str, list] = {"ws": [], "http": []}

    def over_websocket() -> None:
        with websockets.connect(f"ws://127.0.0.1:{fast.port}/ws", open_timeout=60, close_timeout=5) as socket_:
            socket_.send(json.dumps({"type": "reset", "data": {"task": "original/breakout"}}))
            reset = json.loads(socket_.recv(timeout=120))
            assert reset["data"]["observation"]["prompt"] == prompt, reset
            socket_.send(json.dumps({"type": "step", "data": {"answer": answer}}))
            rewards["ws"].append(json.loads(socket_.recv(timeout=300))["data"]["reward"])
            socket_.send(json.dumps({"type": "close"}))

    def over_http() -> None:
        status, body = fast.request(
            "POST", "/step", {"action": {"task": "original/breakout", "answer": answer}}, timeout=300
        )
        rewards["http"].append(json.loads(body)["reward"] if status == 200 else status)

    with ThreadPoolExecutor(100) as pool:
        futures = [pool.submit(over_websocket) for _ in range(50)] + [pool.submit(over_http) for _ in range(50)]
        for future in futures:
            future.result(timeout=600)
    assert rewards == {"ws": [expected] * 50, "http": [expected] * 50}


def test_a_slow_grade_is_cut_at_its_limit_and_health_answers_meanwhile(servers):
    _, slow = servers
    answer = get_task("original/breakout").offline_answer("reference")
    with ThreadPoolExecutor(1) as pool:
        step = pool.submit(slow.request, "POST", "/step", {"action": {"task": "original/breakout", "answer": answer}})
        while not step.done():
            started = time.monotonic()
            assert slow.request("GET", "/health", timeout=10)[0] == 200
            assert time.monotonic() - started < 10  # hang bound
            time.sleep(0.1)
        status, body = step.result(timeout=120)
    result = json.loads(body)
    assert status == 200 and result["reward"] == 0.0
    assert "longer than the server's limit of 1 s" in result["observation"]["result"]["error"]


def test_a_websocket_message_over_the_limit_closes_the_session(servers):
    websockets = websockets_client()
    from websockets.exceptions import ConnectionClosed

    fast, _ = servers
    with websockets.connect(f"ws://127.0.0.1:{fast.port}/ws", open_timeout=60) as socket_:
        socket_.send(json.dumps({"type": "step", "data": {"answer": "x" * 9_000_000}}))
        with pytest.raises(ConnectionClosed) as closed:
            socket_.recv(timeout=60)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009  # message too big
    assert fast.request("GET", "/health")[0] == 200


@pytest.mark.parametrize("task_id", ["identify-choice/ferry/3", "repair/breakout/swap_actions"])
def test_reading_and_repair_tasks_reset_and_step(servers, task_id):
    """A 170,000-character identify prompt comes back whole; a repair reply is graded on the damaged network."""
    fast, _ = servers
    task = get_task(task_id)
    status, body = fast.request("POST", "/reset", {"task": task_id})
    assert status == 200 and json.loads(body)["observation"]["prompt"] == task.messages()[1]["content"]
    for model, reward in (("reference", 1.0), ("zero", 0.0)):
        status, body = fast.request(
            "POST", "/step", {"action": {"task": task_id, "answer": task.offline_answer(model)}}
        )
        assert status == 200 and json.loads(body)["reward"] == reward, body[:300]


@pytest.mark.parametrize("task_id", ["synth/ferry", "identify-choice/breakout/1"])
def test_the_agent_protocol_over_a_websocket_session_scores_what_wsp_run_scores(servers, task_id):
    """Each step is a turn: the reference agent's blocks run in the session's sandboxed kernel, its play is graded
    on training episodes, and the step that submits is graded on held-out episodes drawn by the session's own
    secret, whose key the result publishes (identify has none: its one question)."""
    need_sandbox()
    websockets = websockets_client()
    fast, _ = servers
    task = get_task(task_id)
    config = RunConfig("reference-agent", protocol=make("agent", rounds=4, episodes=2, train_episodes=3, passes=2))
    record = run_task(task, OfflineClient("reference-agent"), config, workers=1)
    with websockets.connect(f"ws://127.0.0.1:{fast.port}/ws", open_timeout=60, close_timeout=5) as socket_:
        reset = {"task": task_id, "protocol": "agent", "turns": 4, "passes": 2, "train_episodes": 3}
        socket_.send(json.dumps({"type": "reset", "data": reset}))
        observation = json.loads(socket_.recv(timeout=120))["data"]["observation"]
        assert observation["prompt"] == record.messages[1]["content"] and observation["protocol"] == "agent"
        steps = []
        for entry in record.rounds:
            socket_.send(json.dumps({"type": "step", "data": {"answer": entry.reply.content}}))
            steps.append(json.loads(socket_.recv(timeout=300))["data"])
        socket_.send(json.dumps({"type": "close"}))
    assert [step["done"] for step in steps] == [False, True]
    assert steps[0]["observation"]["prompt"] == record.messages[3]["content"]  # the same block results
    for step, entry in zip(steps, record.rounds, strict=True):
        assert [(b["kind"], b["status"], b["passes"], b["output"]) for b in step["observation"]["blocks"]] == [
            (b.kind, b.status, b.passes, b.output) for b in entry.blocks
        ]
    key = steps[1]["observation"]["result"]["held_out_key"]
    assert (key is None) == (record.held_out_key is None) == (task.secret_episodes is None) and (
        key is None or key != record.held_out_key
    )
    for graded, drawn_by in ((steps[1]["reward"], key), (record.test.normalized, record.held_out_key)):
        episodes = task.held_out_episodes(2, drawn_by)
        assert graded == task.grade(task.offline_answer("reference"), episodes, ONE_WORKER).normalized


def test_an_idle_session_expires_and_a_dropped_client_frees_its_slot_at_once():
    """issue 38.5: with one slot, a client that disconnects frees it at once, and a client that stays connected but
    idle loses it after --session-timeout (openenv's reaper runs every max(timeout / 4, 5 s))."""
    websockets = websockets_client()
    from websockets.exceptions import ConnectionClosed

    server = Server("--episodes", "2", "--max-sessions", "1", "--graders", "1", "--session-timeout", "2")

    def reset(socket_) -> bool:
        """Whether the session got its prompt (False: refused, the server being full)."""
        try:
            socket_.send(json.dumps({"type": "reset", "data": {"task": "original/breakout"}}))
            return json.loads(socket_.recv(timeout=60))["type"] == "observation"
        except ConnectionClosed:
            return False

    try:
        server.wait_ready()
        url = f"ws://127.0.0.1:{server.port}/ws"
        for _ in range(3):  # each client leaves without a word: the next one gets the slot at once
            with websockets.connect(url, open_timeout=60) as dropped:
                assert reset(dropped)
        with websockets.connect(url, open_timeout=60) as idle:
            assert reset(idle)
            with websockets.connect(url, open_timeout=60) as refused:  # the one slot is taken
                assert not reset(refused)
            started = time.monotonic()
            while True:  # the idle session is reaped: its slot is free again
                with websockets.connect(url, open_timeout=60) as later:
                    if reset(later):
                        break
                assert time.monotonic() - started < 30, "the idle session kept its slot"
                time.sleep(1)
            assert 1.5 < time.monotonic() - started
    finally:
        server.stop()
