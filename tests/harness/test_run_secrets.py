"""Credentials against a real local chat-completions server (tests/harness/test_http.py's, 127.0.0.1): a reply
is graded as the model sent it whatever the key, and no credential of a request (API key, header values,
--extra-body keys, the base URL's userinfo and query) reaches a file of the run or its console, in any form
an echoing server sends it back (plain, JSON-escaped, URL-encoded, base64)."""

from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys
from urllib.parse import quote, quote_plus, urlencode

import pytest

from tests.harness.test_http import KEY, KEY_ENV, RIGHT, ChatServer, completion, failure, graded, record, wsp_run
from wspbench.harness.redaction import MIN_SECRET_CHARS, Redactor

AUTH = 'auth "quoted" \\ tok-5b1e9a77'  # JSON and Python escape it
SESSION = "sess-77aa+bb/cc=dd"  # URL-encoding changes it
PASSWORD_HEADER = "hunter2-correct-horse"
BODY_KEY = "body-key-ABCDEF123456"
BODY_TOKEN = "nested-tok-0099887766"
URL_USER, URL_PASSWORD = "evaluser", "p@ss/w0rd+Secret!"
QUERY_KEY = "query-secret-55aa66bb"
BASIC = base64.b64encode(f"{URL_USER}:{URL_PASSWORD}".encode()).decode()  # what Basic auth sends
SECRETS = [KEY, AUTH, SESSION, PASSWORD_HEADER, BODY_KEY, BODY_TOKEN, URL_PASSWORD, QUERY_KEY, BASIC]


@pytest.fixture
def server():
    chat = ChatServer()
    chat.thread.start()
    yield chat
    chat.release.set()
    chat.httpd.shutdown()
    chat.httpd.server_close()


def forms(secret: str) -> set[str]:
    """The secret as is, JSON-escaped and URL-encoded, and each of these in base64 (whole, and the part
    that is the same at each of the three byte alignments inside a longer base64 text)."""
    texts = {secret, json.dumps(secret)[1:-1], quote(secret, safe=""), quote_plus(secret)}
    found = set(texts)
    for text in texts:
        raw = text.encode()
        found.add(base64.b64encode(raw).decode())
        found |= {base64.b64encode(raw[skip:][: (len(raw) - skip) // 3 * 3]).decode() for skip in range(3)}
    return found


def leaks(text: str, secret: str) -> list[str]:
    """Each form of `secret` in `text`, and each piece of it of half its length or more."""
    size = max(MIN_SECRET_CHARS, math.ceil(len(secret) / 2))
    pieces = {secret[i : i + size] for i in range(len(secret) - size + 1)}
    return sorted(form for form in forms(secret) | pieces if form in text)


def echo(status: int = 200):
    """A server that sends back what it was sent: path, headers and body (as JSON, URL-encoded and base64),
    in its reply (and reasoning) when `status` is 200, else in its error message."""

    def make(request: dict) -> dict:
        body = {k: v for k, v in request["json"].items() if k != "messages"}
        seen = json.dumps({"path": request["path"], "headers": request["headers"], "body": body})
        text = (
            f"you sent {seen}\nform {urlencode(request['headers'])}&{urlencode(body)}\n"
            f"blob {base64.b64encode(seen.encode()).decode()}\nraw {request['headers']} {body}"
        )
        return completion(f"{RIGHT}\n{text}", reasoning=text) if status == 200 else failure(status, message=text)

    return make


def test_the_redactor_scrubs_whole_secrets_and_their_encodings_but_never_short_values():
    redactor = Redactor(["2", "hunter2", KEY, AUTH])
    assert not Redactor(["2", "hunter2"]) and set(redactor.secrets) == {AUTH, KEY}  # under 8 characters: no secret
    assert redactor.text("b3[2] = 9 # hunter2") == "b3[2] = 9 # hunter2"
    assert redactor.text("keys look like sk-test-DUMMY...") == "keys look like sk-test-DUMMY..."  # a short piece
    assert redactor.text(f"masked {KEY[:18]}...60aa") == "masked ***...60aa"  # half of the key or more
    for form in forms(KEY) | forms(AUTH):
        assert redactor.text(f"<{form}>") == "<***>", form
    blob = base64.b64encode(json.dumps({"a": "xy", "auth": AUTH}).encode()).decode()
    assert not leaks(redactor.text(blob), AUTH)  # JSON-escaped inside base64, at some alignment
    stored = redactor.tree({"usage": {KEY: 1}, "list": [f"k={quote_plus(AUTH)}", 3.5, None]})
    assert stored == {"usage": {"***": 1}, "list": ["k=***", 3.5, None]}


@pytest.mark.parametrize(
    ("key", "answer"),
    [
        ("2", "Always fire.\n```edits\nb3[2] = 9\n```\n"),  # `MYKEY=2`: "2" is no secret
        ("9.87654321", "Always fire.\n```edits\nb3[2] = 9.87654321\n```\n"),  # a secret inside the answer
    ],
)
def test_the_reply_is_graded_as_the_model_sent_it_whatever_the_key(server, monkeypatch, tmp_path, key, answer):
    monkeypatch.setenv(KEY_ENV, key)
    server.script["original/breakout"] = [completion(answer)]
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout")
    assert result.exit_code == 0, result.output
    assert server.requests[0]["auth"] == f"Bearer {key}"
    rec = record(tmp_path / "run", "original/breakout")
    expected = graded(answer)
    assert rec["rounds"][0]["parse_error"] is None and rec["test"]["error"] is None
    assert {k: v for k, v in rec["test"].items() if k != "seconds"} == {
        k: v for k, v in expected.items() if k != "seconds"
    }
    assert rec["test"]["normalized"] > 0
    stored = rec["rounds"][0]["reply"]["content"]
    assert stored == (answer if len(key) < MIN_SECRET_CHARS else answer.replace(key, "***"))


def test_a_run_with_every_kind_of_credential_leaves_no_trace_of_any(server, tmp_path):
    out = tmp_path / "run"
    server.script["original/breakout"] = [echo(500), echo()]  # an error, retried, then a reply: both echo
    server.script["original/asterix"] = [echo(401)]  # an error that fails the task: record, summary, console
    address = server.url.removeprefix("http://")
    base_url = f"http://{URL_USER}:{quote(URL_PASSWORD, safe='')}@{address}?api-key={quote(QUERY_KEY)}&v=1"
    extra = {"api_key": BODY_KEY, "provider": {"access_token": BODY_TOKEN, "order": ["a"]}, "top_k": 20}
    command = [sys.executable, "-m", "wspbench.cli", "run", "--model", "scripted-model", "--base-url", base_url]
    command += ["--api-key-env", KEY_ENV, "--out", str(out), "--episodes", "3", "--workers", "1"]
    command += ["--concurrency", "1", "--backoff", "0.01", "--max-tries", "3"]
    command += ["--tasks", "original/breakout,original/asterix", "--extra-body", json.dumps(extra)]
    command += ["--header", f"X-Auth: {AUTH}", "--header", f"X-Session: {SESSION}"]
    command += ["--header", f"X-Password: {PASSWORD_HEADER}", "--header", "User-Agent: wsp-test"]
    done = subprocess.run(
        command, env={**os.environ, KEY_ENV: KEY}, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 1, done.stderr  # asterix failed
    sent = server.requests[0]
    assert sent["headers"]["x-auth"] == AUTH and sent["headers"]["authorization"] == f"Basic {BASIC}"
    assert sent["json"]["api_key"] == BODY_KEY and sent["json"]["provider"]["access_token"] == BODY_TOKEN
    assert QUERY_KEY in sent["path"]  # every credential went to the server, which echoed it back

    breakout, asterix = record(out, "original/breakout"), record(out, "original/asterix")
    assert breakout["status"] == "ok" and breakout["test"]["normalized"] == graded(RIGHT)["normalized"]
    assert len(breakout["rounds"][0]["reply"]["retries"]) == 1 and asterix["status"] == "error"
    assert (
        "HTTP 401" in asterix["error"]
        and "***" in asterix["error"]
        and "***" in breakout["rounds"][0]["reply"]["content"]
    )
    params = json.loads((out / "manifest.json").read_text())["config"]["request_params"]
    assert params["headers"] == {
        "X-Auth": "<redacted>",
        "X-Session": "<redacted>",
        "X-Password": "<redacted>",
        "User-Agent": "wsp-test",
    }
    assert params["extra_body"] == {
        "api_key": "<redacted>",
        "provider": {"access_token": "<redacted>", "order": ["a"]},
        "top_k": 20,
    }
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert {"manifest.json", "summary.json", "summary.md"} <= {p.name for p in files}
    places = {str(p.relative_to(out)): p.read_bytes().decode("utf-8", "replace") for p in files}
    places |= {"stdout": done.stdout, "stderr": done.stderr}
    assert "HTTP 401" in done.stdout + done.stderr  # the echoed error was shown, scrubbed
    found = {(place, secret): leaks(text, secret) for place, text in places.items() for secret in SECRETS}
    assert not {where: what for where, what in found.items() if what}


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--base-url", f"http://{URL_USER}:{PASSWORD_HEADER}@127.0.0.1:port/v1", "not a URL"),
        ("--base-url", f"{URL_USER}:{PASSWORD_HEADER}@127.0.0.1/v1", "give an http(s) URL"),
        ("--header", f"Bearer {PASSWORD_HEADER}", "give NAME:VALUE"),
    ],
)
def test_a_usage_error_never_quotes_a_credential(server, monkeypatch, tmp_path, option, value, says):
    monkeypatch.setenv(KEY_ENV, KEY)
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout", option, value)
    assert result.exit_code == 2 and says in " ".join(result.output.split()), result.output
    assert not leaks(result.output, PASSWORD_HEADER) and "Traceback" not in result.output
    assert server.requests == [] and not (tmp_path / "run").exists()
