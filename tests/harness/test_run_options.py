"""The request options and console behaviour of `wsp run` (and `wsp report`'s progress), against the real
local chat-completions server of tests/harness/test_http.py: every option reaches the server and the run's
config, credential headers never reach a file or the console, `--limit`, `--dry-run`, truncated replies,
visible retries, the all-done message and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from tests.harness.test_http import GOOD, KEY, KEY_ENV, RIGHT, ChatServer, completion, failure, record, wsp_run
from wspbench.cli import app
from wspbench.tasks import get_task

RUNNER = CliRunner()
HEADER_SECRET = "hdr-secret-4c1d9e7b22aa"
TOKEN_SECRET = "tok-secret-88f0b3a6d1"


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


def clean(text: str) -> str:
    return " ".join(text.split())


def traces(text: str, secret: str) -> list[str]:
    """Every 8-character piece of `secret` found in `text`."""
    return [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in text]


OPTIONS = [
    "--top-p",
    "0.5",
    "--seed",
    "7",
    "--reasoning-effort",
    "low",
    "--temperature",
    "0.2",
    "--extra-body",
    '{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}',
    "--header",
    "X-Title: run-42",
    "--header",
    f"X-Api-Key: {HEADER_SECRET}",
    "--header",
    f"x-session-token:{TOKEN_SECRET}",
]


def test_each_option_reaches_the_server_and_the_record_with_credentials_redacted(server, key, tmp_path):
    out = tmp_path / "run"
    server.script["original/breakout"] = [completion(f"echo {HEADER_SECRET}\n{GOOD}")]
    result = wsp_run(server, out, "--tasks", "original/breakout", *OPTIONS)
    assert result.exit_code == 0, result.output
    (sent,) = server.requests
    body, headers = sent["json"], sent["headers"]
    assert (body["top_p"], body["seed"], body["reasoning_effort"], body["temperature"]) == (0.5, 7, "low", 0.2)
    assert body["top_k"] == 20 and body["chat_template_kwargs"] == {"enable_thinking": False}
    assert headers["x-title"] == "run-42" and headers["x-api-key"] == HEADER_SECRET
    assert headers["x-session-token"] == TOKEN_SECRET and headers["authorization"] == f"Bearer {KEY}"
    params = json.loads((out / "manifest.json").read_text())["config"]["request_params"]
    assert params == {
        "temperature": 0.2,
        "top_p": 0.5,
        "seed": 7,
        "reasoning_effort": "low",
        "extra_body": {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}},
        "headers": {"X-Title": "run-42", "X-Api-Key": "<redacted>", "x-session-token": "<redacted>"},
    }
    written = result.output + "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert not traces(written, HEADER_SECRET) and not traces(written, TOKEN_SECRET)  # the echo too
    assert record(out, "original/breakout")["test"]["normalized"] > 0

    # the options decide results: another seed is another run; another token value is the same run
    again = wsp_run(server, out, "--tasks", "original/breakout", *OPTIONS[:2], "--seed", "8", *OPTIONS[4:])
    assert again.exit_code == 2 and "seed" in clean(again.output) and len(server.requests) == 1
    rotated = [o.replace(TOKEN_SECRET, "tok-rotated-000000") for o in OPTIONS]
    done = wsp_run(server, out, "--tasks", "original/breakout", *rotated)
    assert done.exit_code == 0, done.output
    assert f"all 1 task already finished in {out}; nothing to run" in clean(done.output)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--extra-body", "{not json", "not valid JSON"),
        ("--extra-body", "[1, 2]", "must be a JSON object"),
        ("--extra-body", '{"top_k": NaN}', "NaN is not a JSON number"),
        ("--extra-body", '{"messages": []}', "cannot be set here"),
        ("--header", "no-colon-here", "NAME:VALUE"),
        ("--header", "bad name: x", "NAME:VALUE"),
        ("--reasoning-effort", "extreme", "low, medium, high"),
        ("--top-p", "1.5", "--top-p"),
        ("--limit", "0", "--limit"),
    ],
)
def test_a_bad_option_is_a_usage_error_before_any_request(server, key, tmp_path, option, value, says):
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout", option, value)
    assert result.exit_code == 2 and says in clean(result.output), result.output
    assert server.requests == [] and not (tmp_path / "run").exists()


def test_limit_runs_the_first_n_selected_tasks(server, key, tmp_path):
    server.script["original/breakout"] = [completion(GOOD)]
    server.script["original/asterix"] = [completion(RIGHT)]
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout,original/asterix", "--limit", "1")
    assert result.exit_code == 0, result.output
    assert server.count("original/breakout") == 1 and server.count("original/asterix") == 0
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["tasks"] == ["original/breakout"]


def test_dry_run_prints_the_prompts_and_token_counts_and_calls_nothing(server, monkeypatch, tmp_path):
    monkeypatch.delenv(KEY_ENV, raising=False)  # no key needed: nothing is sent
    out = tmp_path / "run"
    result = RUNNER.invoke(
        app,
        ["run", "--model", "gpt-4o", "--tasks", "original/breakout,superbeam", "--out", str(out), "--dry-run"],
    )
    assert result.exit_code == 0, result.output
    assert server.requests == [] and not out.exists()
    for task_id in ("original/breakout", "superbeam"):
        system, user = get_task(task_id).messages()
        assert system["content"] in result.output and user["content"][:200] in result.output
    assert result.output.count("--- system (") == 2 and result.output.count("--- user (") == 2
    text = clean(result.output)
    assert "dry run: 2 tasks" in text and "no model was called and nothing was written" in text
    assert "tokens: tiktoken" in text or "tokens: estimated: pre-tokenizer pieces" in text


def test_token_counts_are_a_stated_estimate_without_tiktoken(monkeypatch):
    from wspbench.harness.tokens import token_counter

    monkeypatch.setitem(sys.modules, "tiktoken", None)  # import tiktoken raises ImportError
    count, how, note = token_counter("gpt-4o")
    assert count("x" * 9) == 3 and how.startswith("estimated: pre-tokenizer pieces or characters / 4")
    assert how.endswith("(tiktoken is not installed)") and count("[0.125, -0.5]") == 10 and note is None


def test_token_counts_use_tiktoken_when_its_encoding_loads_else_a_stated_estimate(monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")  # the `tokens` extra

    from wspbench.harness.tokens import token_counter

    local = tiktoken.Encoding(  # a real (tiny) byte-level encoding, built here: nothing is downloaded
        name="local_bytes", pat_str=r"\S+|\s+", mergeable_ranks={bytes([b]): b for b in range(256)}, special_tokens={}
    )
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: local)
    count, how, note = token_counter("gpt-4o")
    assert (count("hello"), how, note) == (5, "tiktoken o200k_base", None)
    assert "approximate" in token_counter("my-local-model")[1]

    def offline(name):
        raise ConnectionError("no network")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    count, how, note = token_counter("gpt-4o")
    assert count("x" * 9) == 3 and how.startswith("estimated: pre-tokenizer") and "could not load o200k_base" in how
    assert "(ConnectionError;" in note and "no network" not in note + how  # the type, not the raw text
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: time.sleep(5))
    count, how, note = token_counter("gpt-4o", wait_s=0.1)  # a download that stalls is given up
    assert count("abcd") == 1 and "no answer within 0.1 s" in note


def test_dry_run_without_a_loadable_tokenizer_is_the_estimate_with_one_note(monkeypatch, tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    raw = "HTTPSConnectionPool(host='openaipublic.blob.core.windows.net', port=443): Max retries exceeded"

    def offline(name):
        raise ConnectionError(raw)  # what requests raises for tiktoken's download with no network

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    result = RUNNER.invoke(app, ["run", "--model", "gpt-4o", "--tasks", "synth/ferry", "--dry-run"])
    assert result.exit_code == 0, result.output
    text = clean(result.output)
    notes = [line for line in text.splitlines() if line.startswith("note: tiktoken could not load")]
    assert len(notes) == 1 and "offline estimate" in notes[0] and "HTTPSConnectionPool" not in text
    assert "tokens: estimated: pre-tokenizer pieces" in text and "dry run: 1 task" in text


def test_a_truncated_reply_is_marked_shown_and_counted(server, key, tmp_path):
    server.script["original/breakout"] = [completion(GOOD, finish="length")]
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout")
    assert result.exit_code == 0, result.output
    rec = record(tmp_path / "run", "original/breakout")
    assert rec["rounds"][0]["truncated"] is True and rec["rounds"][0]["reply"]["finish_reason"] == "length"
    text = clean(result.output)
    assert "original/breakout: round 1: the reply was truncated (finish_reason=length)" in text
    assert "(1 truncated)" in text and "1 truncated replies (finish_reason=length): original/breakout" in text


def test_each_retry_is_shown_with_its_error_and_kept_in_the_record(server, key, tmp_path):
    server.script["original/breakout"] = [failure(500, message="overloaded"), completion(GOOD)]
    result = wsp_run(server, tmp_path / "run", "--tasks", "original/breakout")
    assert result.exit_code == 0, result.output
    text = clean(result.output)
    assert "original/breakout: try 1 of 3 failed (HTTP 500: Error code: 500 - overloaded); retrying in" in text
    assert "(1 retried)" in text
    reply = record(tmp_path / "run", "original/breakout")["rounds"][0]["reply"]
    assert reply["attempts"] == 2 and reply["retries"] == ["HTTP 500: Error code: 500 - overloaded"]


def test_ctrl_c_says_what_finished_exits_130_and_the_same_command_resumes(server, key, tmp_path):
    out = tmp_path / "run"
    server.script["original/breakout"] = [completion(GOOD)]
    server.script["original/asterix"] = [{**completion(RIGHT), "delay": 60}, completion(RIGHT)]
    command = [sys.executable, "-m", "wspbench.cli", "run", "--model", "scripted-model", "--base-url", server.url]
    command += ["--api-key-env", KEY_ENV, "--out", str(out), "--episodes", "3", "--workers", "1"]
    command += ["--concurrency", "1", "--tasks", "original/breakout,original/asterix"]
    process = subprocess.Popen(  # Ctrl-C as in a terminal: a child inherits an ignored SIGINT (a test or
        # library may have set SIG_IGN in this worker), and Python then installs no KeyboardInterrupt for it
        command,
        env={**os.environ, KEY_ENV: KEY},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not (server.count("original/asterix") and (out / "tasks" / "original-breakout.json").exists()):
            assert time.monotonic() < deadline and process.poll() is None, "the run did not reach asterix"
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, stderr
    assert f"interrupted: 1 of 2 tasks finished, their records are in {out}; run the same command to resume" in clean(
        stderr
    )
    assert "Traceback" not in stderr
    result = wsp_run(server, out, "--tasks", "original/breakout,original/asterix")
    assert result.exit_code == 0, result.output
    assert server.count("original/breakout") == 1 and record(out, "original/asterix")["status"] == "ok"


def test_report_shows_its_progress(tmp_path):
    from wspbench.report.report import build_report

    run = tmp_path / "run"
    result = RUNNER.invoke(
        app, ["run", "--model", "reference", "--tasks", "original/breakout", "--episodes", "2", "--out", str(run)]
    )
    assert result.exit_code == 0, result.output
    seen: list[tuple[str, int, int]] = []
    build_report([run], tmp_path / "report", replay_frames=5, progress=lambda *step: seen.append(step))
    assert [s for s in seen if s[0] == "loading runs"] == [("loading runs", 0, 1), ("loading runs", 1, 1)]
    assert [s for s in seen if s[0] == "writing replays"] == [("writing replays", 0, 1), ("writing replays", 1, 1)]
    assert seen[-1] == ("writing charts and pages", 1, 1)
    shown = RUNNER.invoke(app, ["report", str(run), "--out", str(tmp_path / "again"), "--replay-frames", "5"])
    assert shown.exit_code == 0, shown.output
    assert "loading runs" in shown.output and "writing replays" in shown.output


def test_samples_ask_each_task_k_times_with_offset_seeds_and_report_mean_and_best_of_k(server, key, tmp_path):
    out = tmp_path / "run"
    server.script["original/breakout"] = [completion(GOOD), completion(RIGHT), completion("no weights at all")]
    result = wsp_run(server, out, "--tasks", "original/breakout", "--seed", "7", "--samples", "3")
    assert result.exit_code == 0, result.output
    assert [r["json"]["seed"] for r in server.requests] == [7, 8, 9]  # reply k sends seed + k
    replies = [record(out, "original/breakout")] + [
        json.loads((out / "tasks" / f"original-breakout@{k}.json").read_text()) for k in (1, 2)
    ]
    assert [r["sample"] for r in replies] == [0, 1, 2] and replies[2]["test"]["error"]
    scores = [r["test"]["normalized"] for r in replies]
    found = json.loads((out / "summary.json").read_text())["scores"]
    assert found["samples"] == 3 and found["tasks"] == 1
    summary = found["writing"]
    assert summary["mean_test_score"] == pytest.approx(sum(scores) / 3) and summary["best_of_k"] == max(scores)
    for key_ in ("ci95", "best_of_k_ci95"):
        low, high = summary[key_]
        assert low <= summary["mean_test_score" if key_ == "ci95" else "best_of_k"] <= high
    assert "best of 3" in clean(result.output) and "best of 3" in (out / "summary.md").read_text()
    shown = RUNNER.invoke(app, ["runs", "show", "--json", str(out)])
    rows = json.loads(shown.output)["rows"]
    assert [(r["task"], r["sample"]) for r in rows] == [("original/breakout", k) for k in range(3)]
    done = wsp_run(server, out, "--tasks", "original/breakout", "--seed", "7", "--samples", "3")
    assert done.exit_code == 0 and len(server.requests) == 3  # resumed: nothing asked again
    other = wsp_run(server, out, "--tasks", "original/breakout", "--seed", "7", "--samples", "2")
    assert other.exit_code == 2 and "samples" in clean(other.output)
