"""The harness against a real chat-completions server (http.server in a thread, 127.0.0.1, a free port),
through the real `openai` client: retries, timeouts, reasoning text, failures as records, resume after a
kill, and no trace of the API key anywhere."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.evaluation import ONE_WORKER
from wspbench.harness.clients import ModelError, OpenAIClient
from wspbench.harness.record import MAX_RECORD_BYTES
from wspbench.harness.redaction import Redactor
from wspbench.harness.runs import RunDir
from wspbench.tasks import get_task
from wspbench.verifier import grade_answer

RUNNER = CliRunner()
KEY_ENV = "WSP_TEST_API_KEY"
KEY = "sk-test-DUMMY-7f3a9c1e5b2d4f60aa"
EXAMPLES = Path(__file__).parents[2] / "src" / "wspbench" / "references"
GOOD = (EXAMPLES / "breakout.txt").read_text()
ZERO = (EXAMPLES / "zero.txt").read_text()
RIGHT = "Always right.\n```edits\nb3[3] = 9\n```\n"


def completion(
    content: str | None, reasoning: str | None = None, finish: str = "stop", tokens: tuple[int, int] = (1000, 200)
) -> dict:
    message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "status": 200,
        "body": {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": tokens[0],
                "completion_tokens": tokens[1],
                "total_tokens": sum(tokens),
                "completion_tokens_details": {"reasoning_tokens": 7},
            },
        },
    }


def failure(status: int, retry_after: str | None = None, message: str | None = None) -> dict:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return {
        "status": status,
        "headers": headers,
        "body": {"error": {"message": message or f"scripted {status}", "type": "server_error", "code": status}},
    }


class ChatServer:
    """Scripted replies per task: the first key of `script` found in the request's user prompt picks
    the queue; each request pops one entry ({status, body, headers, delay}, or a function of the kept
    request that returns one). Each request's path, body and headers (names in lower case) are kept in
    `requests`."""

    def __init__(self):
        self.script: dict[str, list[dict]] = {}
        self.requests: list[dict] = []
        self.release = threading.Event()  # ends slow replies at teardown
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(
                    {
                        "path": self.path,
                        "auth": self.headers.get("Authorization"),
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "json": body,
                    }
                )
                entry = server.next_entry(body)
                if callable(entry):  # an entry made from the request itself (an echoing server)
                    entry = entry(server.requests[-1])
                if entry.get("delay"):
                    server.release.wait(entry["delay"])
                data = entry["raw"] if "raw" in entry else json.dumps(entry.get("body")).encode()
                try:
                    if entry.get("trickle") == "all":  # status line and headers too, a byte at a time
                        self.close_connection = True
                        head = (
                            f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                        ).encode()
                        return self.trickle(head + data)
                    self.send_response(entry["status"])
                    self.send_header("Content-Type", "application/json")
                    if "huge" in entry:  # a body of that many bytes, sent without ever holding it
                        if entry.get("length", True):
                            self.send_header("Content-Length", str(entry["huge"]))
                        self.close_connection = True
                        self.end_headers()
                        return self.stream_huge(entry["huge"])
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in entry.get("headers", {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    if entry.get("trickle") == "body":
                        return self.trickle(data)
                    if entry.get("cut"):  # the connection drops halfway through the body
                        self.close_connection = True
                        return self.wfile.write(data[: len(data) // 2])
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

            def trickle(self, data: bytes) -> None:
                for byte in data:
                    if server.release.wait(0.2):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()

            def stream_huge(self, size: int) -> None:
                head = (
                    b'{"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "'
                )
                block = b"x" * (1 << 20)
                self.wfile.write(head)
                sent = len(head)
                while sent < size and not server.release.is_set():
                    self.wfile.write(block[: size - sent])
                    sent += min(len(block), size - sent)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def next_entry(self, body: dict) -> dict:
        prompt = body["messages"][1]["content"]
        for key, queue in self.script.items():
            if key in prompt:
                if not queue:
                    return failure(400)
                return queue.pop(0)
        return failure(404)

    def count(self, key: str) -> int:
        return sum(key in r["json"]["messages"][1]["content"] for r in self.requests)


@pytest.fixture
def server():
    chat = ChatServer()
    chat.thread.start()
    yield chat
    chat.release.set()
    chat.httpd.shutdown()
    chat.httpd.server_close()


@pytest.fixture
def key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY


def wsp_run(server, out, *args):
    result = RUNNER.invoke(
        app,
        [
            "run",
            "--model",
            "scripted-model",
            "--base-url",
            server.url,
            "--api-key-env",
            KEY_ENV,
            "--out",
            str(out),
            "--episodes",
            "3",
            "--workers",
            "1",
            "--concurrency",
            "1",
            "--backoff",
            "0.01",
            "--max-tries",
            "3",
            *args,
        ],
    )
    return result


def record(out, task_id):
    return json.loads((Path(out) / "tasks" / f"{get_task(task_id).slug}.json").read_text())


def graded(answer: str, episodes: int = 3, key: str | None = None) -> dict:
    """What `wsp grade original/breakout` gives for `answer` on the first `episodes` episodes (`key`: on the held-out
    episodes it draws, as `--held-out-key` does)."""
    task = get_task("original/breakout")
    return task.grade(answer, task.held_out_episodes(episodes, key), ONE_WORKER).to_json()


# --- the client on its own ----------------------------------------------------------------------------


def test_client_retries_a_rate_limit_then_records_reply_usage_and_reasoning(server, key):
    server.script["ping"] = [failure(429, retry_after="0"), completion("hello", reasoning="thinking...")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=3, backoff_s=0.01)
    reply = client.complete([{"role": "system", "content": "s"}, {"role": "user", "content": "ping"}])
    assert (reply.content, reply.reasoning, reply.finish_reason, reply.attempts) == ("hello", "thinking...", "stop", 2)
    assert [r[:9] for r in reply.retries] == ["HTTP 429:"] and "scripted 429" in reply.retries[0]  # kept
    assert reply.usage["prompt_tokens"] == 1000 and reply.usage["completion_tokens"] == 200
    assert reply.latency_s >= 0 and reply.model == "scripted-model"
    assert [r["auth"] for r in server.requests] == [f"Bearer {KEY}"] * 2  # the key is sent, and only there


def test_client_gives_up_after_the_last_try_with_a_clear_error(server, key):
    server.script["ping"] = [failure(500)] * 3
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=3, backoff_s=0.01)
    with pytest.raises(ModelError, match=r"no reply after 3 tries; last error: HTTP 500") as failed:
        client.complete([{"role": "system", "content": "s"}, {"role": "user", "content": "ping"}])
    assert len(server.requests) == 3 and [r[:9] for r in failed.value.retries] == ["HTTP 500:"] * 3


def test_client_does_not_retry_a_bad_request(server, key):
    server.script["ping"] = [failure(400), completion("never sent")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=3, backoff_s=0.01)
    with pytest.raises(ModelError, match=r"HTTP 400.*not retried"):
        client.complete([{"role": "system", "content": "s"}, {"role": "user", "content": "ping"}])
    assert len(server.requests) == 1


def test_client_times_out_a_slow_reply_and_retries(server, key):
    server.script["ping"] = [{**completion("late"), "delay": 20}, completion("on time")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=0.5, max_tries=2, backoff_s=0.01)
    started = time.perf_counter()
    reply = client.complete([{"role": "system", "content": "s"}, {"role": "user", "content": "ping"}])
    assert (reply.content, reply.attempts) == ("on time", 2)
    assert time.perf_counter() - started < 10
    server.script["ping"] = [{**completion("late"), "delay": 20}]
    client.max_tries = 1
    with pytest.raises(ModelError, match="timed out after 0.5 s"):
        client.complete([{"role": "system", "content": "s"}, {"role": "user", "content": "ping"}])


def test_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(ModelError, match=KEY_ENV):
        OpenAIClient("m", None, KEY_ENV)


def test_scrub_removes_the_key_and_pieces_of_half_of_it_or_more():
    text = Redactor([KEY]).text(f"bad key {KEY} (you sent sk-test-DUMMY-7f3a...60aa)")
    assert text == "bad key *** (you sent ***...60aa)"


PING = [{"role": "system", "content": "s"}, {"role": "user", "content": "ping"}]


@pytest.mark.parametrize("mode", ["body", "all"])
def test_a_trickling_server_cannot_stretch_the_deadline(server, key, mode):
    """A byte every 0.2 s keeps every socket read alive; the one deadline per request still ends it."""
    server.script["ping"] = [{**completion("slow " * 200), "trickle": mode}, completion("on time")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=1.0, max_tries=2, backoff_s=0.01)
    started = time.perf_counter()
    reply = client.complete(PING)
    assert (reply.content, reply.attempts) == ("on time", 2)
    assert time.perf_counter() - started < 15  # hang bound, not a timing claim


def test_a_reply_that_breaks_off_is_retried(server, key):
    server.script["ping"] = [{**completion("cut " * 500), "cut": True}, completion("whole")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=2, backoff_s=0.01)
    assert (client.complete(PING).content, len(server.requests)) == ("whole", 2)


@pytest.mark.parametrize(("status", "length"), [(200, True), (200, False), (500, True), (500, False)])
def test_a_huge_reply_is_an_error_not_retried_and_never_buffered(server, key, status, length):
    """Error replies too: the SDK reads those whole, so the cap sits on every response body."""
    import resource

    server.script["ping"] = [{"status": status, "huge": 150_000_000, "length": length}, completion("never sent")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=30, max_tries=3, backoff_s=0.01)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ModelError, match=r"over the cap of 8,388,608.*not retried"):
        client.complete(PING)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert len(server.requests) == 1 and grown_mb < 100


@pytest.mark.parametrize(
    "header",
    [
        "nan",
        "inf",
        "-inf",
        "-5",
        "1e400",
        "99999999",
        "0x10",
        "soon",
        "",
        "Wed, 21 Oct 2015 07:28:00 GMT",
        "Wed, 21 Oct 9999 07:28:00 GMT",
        "Mon, 99 Foo 2015 99:99:99 GMT",
        "9" * 5000,
    ],
)
def test_any_retry_after_gives_a_bounded_wait(server, key, header):
    waits: list[float] = []
    server.script["ping"] = [failure(429, retry_after=header), completion("hello")]
    client = OpenAIClient(
        "scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=2, backoff_s=0.01, sleep=waits.append
    )
    assert client.complete(PING).content == "hello"
    assert len(waits) == 1 and 0.0 <= waits[0] <= 60.0


def test_retry_after_in_seconds_or_as_a_date_is_honoured():
    from datetime import UTC, datetime, timedelta
    from email.utils import format_datetime

    from wspbench.harness.clients import _retry_after_seconds

    assert _retry_after_seconds("7") == 7.0 and _retry_after_seconds("2.5") == 2.5
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 20 < _retry_after_seconds(soon) <= 30
    assert [_retry_after_seconds(v) for v in ("nan", "inf", "-1", "x", None)] == [None] * 5


@pytest.mark.parametrize("usage", ["lots", [1, 2], 5, None, {"prompt_tokens": "many", "total_tokens": True}])
def test_a_reply_with_odd_usage_keeps_its_content(server, key, usage):
    entry = completion(GOOD)
    entry["body"]["usage"] = usage
    server.script["ping"] = [entry]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=1)
    reply = client.complete(PING)
    assert reply.content == GOOD and reply.usage is None


def test_odd_reply_shapes_are_retried_or_read_without_raising(server, key):
    odd = completion("x")
    odd["body"]["choices"] = [
        {
            "message": {"content": [{"type": "text", "text": "part one, "}, {"type": "text", "text": "part two"}]},
            "finish_reason": 7,
        }
    ]
    server.script["ping"] = [
        {"status": 200, "raw": b"<html>proxy error</html>"},
        {"status": 200, "raw": b"[1, 2]"},
        {"status": 200, "body": {"choices": "none"}},
        odd,
    ]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=4, backoff_s=0.01)
    reply = client.complete(PING)
    assert (reply.content, reply.finish_reason, reply.attempts) == ("part one, part two", None, 4)


def test_a_reply_that_echoes_the_key_is_handed_on_as_sent_and_stored_with_a_marker(server, key):
    server.script["ping"] = [completion(f"your key is {KEY}, ok", reasoning=f"I saw {KEY[3:20]}")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=1)
    reply = client.complete(PING)
    assert (reply.content, reply.reasoning) == (f"your key is {KEY}, ok", f"I saw {KEY[3:20]}")  # graded as sent
    text = json.dumps(client.redactor.tree(reply.to_json()))  # what a run directory stores
    assert not [KEY[i : i + 8] for i in range(len(KEY) - 7) if KEY[i : i + 8] in text] and "***" in text


def test_a_local_server_without_a_key_keeps_the_word_none(server, monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    server.script["ping"] = [completion("none of these")]
    client = OpenAIClient("scripted-model", server.url, KEY_ENV, timeout_s=10, max_tries=1)
    assert client.complete(PING).content == "none of these"


# --- wsp run against the server -----------------------------------------------------------------------


def test_one_shot_run_grades_exactly_like_wsp_grade(server, key, tmp_path):
    server.script["original/breakout"] = [completion(GOOD)]
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout")
    assert result.exit_code == 0, result.output
    rec = record(tmp_path / "run", "original/breakout")
    expected = graded(GOOD)
    assert rec["status"] == "ok" and rec["test"]["normalized"] == expected["normalized"] > 0
    assert {k: v for k, v in rec["test"].items() if k != "seconds"} == {
        k: v for k, v in expected.items() if k != "seconds"
    }
    assert (
        expected["normalized"] == grade_answer(get_task("original/breakout"), GOOD, 3, ONE_WORKER)["normalized_score"]
    )
    assert [m["role"] for m in rec["messages"]] == ["system", "user", "assistant"]
    assert rec["messages"][1]["content"] == server.requests[0]["json"]["messages"][1]["content"]
    assert rec["usage"] == {
        "prompt_tokens": 1000,
        "completion_tokens": 200,
        "total_tokens": 1200,
        "reasoning_tokens": 7,
    }
    assert rec["rounds"][0]["reply"]["finish_reason"] == "stop" and rec["prompt_version"] == "minatar-v2"
    assert rec["rounds"][0]["weights"]["format"] == "nonzero"
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["endpoint"] == server.url and manifest["api_key_env"] == KEY_ENV
    assert "original/breakout" in result.output


def test_feedback_run_where_round_two_improves(server, key, tmp_path):
    server.script["original/breakout"] = [completion(ZERO), completion(GOOD), completion(RIGHT)]
    result = wsp_run(
        server,
        tmp_path / "run",
        "--tasks",
        "original/breakout",
        "--protocol",
        "feedback",
        "--rounds",
        "3",
        "--train-episodes",
        "4",
    )
    assert result.exit_code == 0, result.output
    rec = record(tmp_path / "run", "original/breakout")
    scores = [r["train"]["normalized"] for r in rec["rounds"]]
    assert len(scores) == 3 and scores[1] > scores[0] and scores[1] > scores[2]
    assert rec["best_round"] == 2
    assert rec["rounds"][0]["train"]["episodes"] == [100000, 100001, 100002, 100003]  # not scoring episodes
    assert rec["test"]["normalized"] == graded(GOOD, key=rec["held_out_key"])["normalized"]  # drawn episodes
    second = server.requests[1]["json"]["messages"]  # the model saw its reply and grouped results
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert "training episodes" in second[3]["content"] and "episodes 100000..100000" in second[3]["content"]
    assert len(server.requests) == 3 and rec["usage"]["prompt_tokens"] == 3000


def test_reply_without_edits_block_gets_the_error_and_another_chance(server, key, tmp_path):
    server.script["original/breakout"] = [completion("I would move right."), completion(GOOD)]
    result = wsp_run(
        server,
        tmp_path / "run",
        "--tasks",
        "original/breakout",
        "--protocol",
        "feedback",
        "--rounds",
        "2",
        "--train-episodes",
        "3",
    )
    assert result.exit_code == 0, result.output
    rec = record(tmp_path / "run", "original/breakout")
    assert "no ```edits block" in rec["rounds"][0]["parse_error"] and rec["rounds"][0]["train"] is None
    assert "no ```edits block" in server.requests[1]["json"]["messages"][3]["content"]
    assert rec["best_round"] == 2 and rec["test"]["normalized"] > 0


def test_server_errors_become_a_recorded_failure_and_the_batch_goes_on(server, key, tmp_path):
    server.script["original/breakout"] = [failure(500)] * 3
    server.script["original/asterix"] = [completion(RIGHT)]
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout,original/asterix")
    assert result.exit_code == 1  # a failed task is reported, after the others ran
    failed, ok = record(tmp_path / "run", "original/breakout"), record(tmp_path / "run", "original/asterix")
    assert failed["status"] == "error" and "no reply after 3 tries" in failed["error"] and "500" in failed["error"]
    assert failed["test"] is None and ok["status"] == "ok" and ok["test"] is not None
    assert len(failed["failed_tries"]) == 3 and "HTTP 500" in failed["failed_tries"][0]
    assert server.count("original/breakout") == 3
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert [row["status"] for row in summary["rows"]] == ["error", "ok"]


def test_reply_with_reasoning_text_only_is_graded_from_the_reasoning(server, key, tmp_path):
    server.script["original/breakout"] = [completion(None, reasoning=GOOD, finish="length")]
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout")
    assert result.exit_code == 0, result.output
    rec = record(tmp_path / "run", "original/breakout")
    entry = rec["rounds"][0]
    assert entry["reply"]["content"] == "" and entry["reply"]["reasoning"] == GOOD
    assert entry["reply"]["finish_reason"] == "length" and entry["answer_source"] == "reasoning"
    assert rec["test"]["normalized"] > 0


def test_a_run_leaves_no_trace_of_the_key(server, key, tmp_path):
    server.script["original/breakout"] = [failure(401, message=f"Incorrect API key provided: {KEY}")]
    server.script["original/asterix"] = [failure(500), completion(RIGHT + f"\nmy key: {KEY}")]
    out = tmp_path / "run"
    result = wsp_run(server, out, "--tasks", "original/breakout,original/asterix")
    assert {r["auth"] for r in server.requests} == {f"Bearer {KEY}"}  # it was used...
    assert "HTTP 401" in record(out, "original/breakout")["error"]
    text = result.output + "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert not [KEY[i : i + 8] for i in range(len(KEY) - 7) if KEY[i : i + 8] in text]  # ...and never written


def test_resume_after_a_kill_loses_nothing_and_repeats_no_graded_work(server, key, tmp_path):
    out = tmp_path / "run"
    server.script["original/breakout"] = [completion(GOOD)]
    server.script["original/asterix"] = [{**completion(RIGHT), "delay": 60}, completion(RIGHT)]
    command = [
        sys.executable,
        "-m",
        "wspbench.cli",
        "run",
        "--model",
        "scripted-model",
        "--base-url",
        server.url,
        "--api-key-env",
        KEY_ENV,
        "--out",
        str(out),
        "--episodes",
        "3",
        "--workers",
        "1",
        "--concurrency",
        "1",
        "--tasks",
        "original/breakout,original/asterix",
    ]
    process = subprocess.Popen(
        command, env={**os.environ, KEY_ENV: KEY}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not (server.count("original/asterix") and (out / "tasks" / "original-breakout.json").exists()):
            assert time.monotonic() < deadline and process.poll() is None, "the run did not reach asterix"
            time.sleep(0.1)
    finally:
        process.kill()
        process.wait()
    finished = (out / "tasks" / "original-breakout.json").read_bytes()
    assert (out / "tasks" / "original-asterix.partial.json").exists()

    result = wsp_run(server, out, "--tasks", "original/breakout,original/asterix")
    assert result.exit_code == 0, result.output
    assert (out / "tasks" / "original-breakout.json").read_bytes() == finished  # not graded again
    assert server.count("original/breakout") == 1 and server.count("original/asterix") == 2
    assert record(out, "original/asterix")["status"] == "ok"
    assert not list((out / "tasks").glob("*.partial.json"))
    kept = list((out / "attempts").glob("original-asterix.partial.*.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text())["task"] == "original/asterix"


def test_each_reply_is_stored_once_in_its_record(server, key, tmp_path):
    marker = "UNIQUE-REPLY-MARKER-42"
    server.script["original/breakout"] = [completion(f"{marker}\n{GOOD}")]
    assert wsp_run(server, tmp_path / "run", "--tasks", "original/breakout").exit_code == 0
    text = (tmp_path / "run" / "tasks" / "original-breakout.json").read_text()
    assert text.count(marker) == 1
    assert record(tmp_path / "run", "original/breakout")["messages"][2] == {"role": "assistant", "round": 1}


def test_a_second_run_on_the_same_directory_is_refused_with_exit_2(server, key, tmp_path):
    from wspbench.harness.runs import RunDir

    holder = RunDir(tmp_path / "run")
    holder.lock()
    try:
        server.script["original/breakout"] = [completion(GOOD)]
        result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout")
        assert result.exit_code == 2 and "in use by another" in " ".join(result.output.split())
        assert server.requests == []  # nothing paid
    finally:
        holder.close()
    assert wsp_run(server, tmp_path / "run", "--tasks", "original/breakout").exit_code == 0


# --- a record holds what the run wrote ----------------------------------------------------------------

E_ACUTE = "é" * 3_900_000  # 7.8 MB as UTF-8, under the 8 MB reply cap; 23.4 MB ASCII-escaped


def utf8_completion(content: str) -> dict:
    """A reply sent as UTF-8 (not ASCII-escaped), as a hostile server may."""
    body = completion(content)["body"]
    return {"status": 200, "raw": json.dumps(body, ensure_ascii=False).encode()}


def test_six_rounds_of_non_ascii_replies_are_counted_and_never_asked_again(server, key, tmp_path):
    hostile, plain = get_task("original/breakout"), get_task("original/freeway")
    server.script = {hostile.id: [utf8_completion(E_ACUTE) for _ in range(6)], plain.id: [completion("none")] * 6}
    args = ["--tasks", f"{hostile.id},{plain.id}", "--protocol", "feedback", "--rounds", "6", "--train-episodes", "1"]
    result = wsp_run(server, tmp_path, *args)
    assert result.exit_code == 0, result.output
    path = tmp_path / "tasks" / f"{hostile.slug}.json"
    size = path.stat().st_size
    assert 6 * len(E_ACUTE) * 2 < size < 6 * len(E_ACUTE) * 2 + 2**20 < MAX_RECORD_BYTES  # UTF-8: 2 bytes an "é"
    rows = RunDir(tmp_path).summary()[1]
    assert [(r["status"], r["test_score"], r["rounds"]) for r in rows] == [("ok", 0.0, 6), ("ok", 0.0, 6)]
    shown = RUNNER.invoke(app, ["runs", "show", str(tmp_path)])
    assert shown.exit_code == 0 and "2 of 2" in shown.output and "pending" not in shown.output, shown.output
    asked = len(server.requests)
    assert wsp_run(server, tmp_path, *args).exit_code == 0 and len(server.requests) == asked  # nothing asked again
    record = json.loads(path.read_bytes())
    assert all(r["reply"]["content"] == E_ACUTE for r in record["rounds"])


def test_a_task_that_keeps_sending_slow_blocks_stops_at_its_budget_with_its_candidate_graded(server, key, tmp_path):
    """issue 38.5: an agent that offers a candidate, then keeps sending blocks that sleep, stops at
    --task-timeout: status `time limit`, the candidate graded on the held-out episodes as usual, counted."""
    from tests.conftest import need_sandbox

    need_sandbox()
    slow = "```python\nimport time\ntime.sleep(2)\n```\n" * 3
    first = f"```play\n{RIGHT.split('```edits')[1].split('```')[0].strip()}\n```\n" + slow
    server.script["original/breakout"] = [completion(first)] + [completion(slow) for _ in range(19)]
    started = time.monotonic()
    result = wsp_run(server, tmp_path, "--tasks", "original/breakout", "--protocol", "agent", "--task-timeout", "3")
    assert result.exit_code == 0, result.output
    rec = record(tmp_path, "original/breakout")
    assert rec["status"] == "time limit" and time.monotonic() - started < 60
    assert len(server.requests) < 20 and rec["test"]["normalized"] == graded(RIGHT)["normalized"]
    not_run = [b for r in rec["rounds"] for b in r["blocks"] if b["status"] == "not run"]
    assert not_run and all("time budget" in b["output"] for b in not_run)
    shown = RUNNER.invoke(app, ["runs", "show", "--json", str(tmp_path)])
    assert json.loads(shown.output)["writing"]["tasks"] == 1  # counted, as a finished task is


def test_an_endpoint_nothing_answers_at_is_named_with_what_to_check(key, tmp_path):
    """issue 52: a --base-url where nothing listens ends in an error that names the URL and what to check, not the
    SDK's bare "Connection error."."""
    with socket.socket() as probe:  # a port nothing listens on: bound, never listened on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
        result = RUNNER.invoke(
            app,
            ["run", "--model", "m", "--base-url", url, "--api-key-env", KEY_ENV, "--tasks", "synth/ferry",
             "--episodes", "2", "--max-tries", "1", "--out", str(tmp_path / "run")],
        )  # fmt: skip
    assert result.exit_code == 1 and "cannot connect to" in " ".join(result.output.split())
    record = json.loads((tmp_path / "run" / "tasks" / "synth-ferry.json").read_text())
    assert record["status"] == "error" and f"cannot connect to {url} (" in record["error"]
    assert "check that the server runs and that --base-url is its address" in record["error"]
