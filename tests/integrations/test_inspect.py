"""The Inspect task (`wspbench/integrations/inspect_ai.py`) run by Inspect itself, offline: `inspect_ai.eval`
with Inspect's own `mockllm/model` provider, whose replies are the tasks' reference programs, gives the
score `wsp grade` gives the same reply, sends the prompt of `wsp run` and, in the feedback protocol, the
very conversation the harness (`harness/protocols.py`) sends for the same replies. The registered name
`wspbench/weight_programming` is run by the real `inspect eval` CLI against a real local chat-completions
server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ContentReasoning, ContentText, ModelOutput, ModelUsage, get_model  # noqa: E402

from tests.conftest import need_sandbox  # noqa: E402
from wspbench.cli import app  # noqa: E402
from wspbench.harness.clients import OfflineClient  # noqa: E402
from wspbench.harness.protocols import run_task  # noqa: E402
from wspbench.harness.record import Reply, RunConfig, block_json  # noqa: E402
from wspbench.harness.summary import by_skill, headline, replies_of  # noqa: E402
from wspbench.integrations.inspect_ai import weight_programming  # noqa: E402
from wspbench.protocols import OneShot, make  # noqa: E402
from wspbench.tasks import get_task, suite  # noqa: E402

EPISODES = 20
NO_ANSWER = "I am still thinking about it; no weights yet."


def scripted(replies_by_prompt: dict[str, list[str]], sent: dict[str, list] | None = None):
    """Inspect's mockllm model answering each task's prompt (its user message) from its own queue, and
    noting every conversation it was sent (role and text) under that prompt."""

    def reply(messages, tools, tool_choice, config):
        prompt = messages[1].text
        if sent is not None:
            sent.setdefault(prompt, []).append([{"role": m.role, "content": m.text} for m in messages])
        output = ModelOutput.from_content("mockllm/model", replies_by_prompt[prompt].pop(0))  # text or parts
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no offline token count
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def prompt_of(task, episodes: int) -> str:
    """The user message of a one-shot prompt (it states how many episodes are scored)."""
    return task.messages(OneShot(episodes=episodes))[1]["content"]


def run_eval(tmp_path: Path, model, **params):
    (log,) = inspect_ai.eval(
        weight_programming(episodes=EPISODES, **params), model=model, log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "success", log.error
    return read_eval_log(log.location)  # what `inspect view` shows: the log as written


def wsp_grade(tmp_path: Path, task_id: str, answer: str) -> dict:
    path = tmp_path / "answer.txt"
    path.write_text(answer)
    result = CliRunner().invoke(app, ["grade", task_id, str(path), "--episodes", str(EPISODES), "--json"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


def timeless(score: dict | None) -> dict | None:
    """A Score's JSON without its timing, the one field two gradings may differ in."""
    return score and {k: v for k, v in score.items() if k != "seconds"}


def requests_of(record) -> list[list[dict]]:
    """Every conversation the harness sent, as its record keeps them: assistant messages name their round, and the
    reply sent back is that round's content."""
    conversation, sent = [], []
    for message in record.messages:
        if "round" in message:
            sent.append(list(conversation))
            message = {"role": "assistant", "content": record.rounds[message["round"] - 1].reply.content}
        conversation.append(message)
    return sent


def drawn(task, answer: str, key: str | None) -> dict:
    """What a grade on the held-out episodes `key` draws gives (feedback and agent; identify has none: its own)."""
    score = task.grade(answer, task.held_out_episodes(EPISODES, key)).to_json()
    return score | ({"held_out_key": key} if key else {})


def same_draws(inspect_score, record, task) -> None:
    """Inspect's scorer and `wsp run` each draw the held-out episodes by a secret of their own: each grade is the
    answer's on the episodes its published key draws."""
    key = inspect_score.metadata.get("held_out_key")
    assert (key is None) == (record.held_out_key is None) == (task.secret_episodes is None)
    assert key is None or key != record.held_out_key
    same_score(inspect_score, drawn(task, inspect_score.answer, key))
    expected = drawn(task, inspect_score.answer, record.held_out_key)
    expected.pop("held_out_key", None)
    assert timeless(record.test.to_json()) == timeless(expected)


def same_score(inspect_score, expected: dict) -> None:
    assert timeless(inspect_score.metadata) == timeless(expected)
    assert inspect_score.value == expected["normalized"]


def test_one_shot_equals_wsp_grade_and_wsp_run(tmp_path):
    ids = ["synth/ferry", "original/breakout", "superbeam", "identify-choice/ferry/3", "repair/breakout/swap_actions"]
    tasks = {i: get_task(i) for i in ids}
    config = RunConfig(model="reference", protocol=make("one-shot", episodes=EPISODES))
    records = {i: run_task(t, OfflineClient("reference"), config) for i, t in tasks.items()}
    replies = {r.messages[1]["content"]: [tasks[i].offline_answer("reference")] for i, r in records.items()}
    log = run_eval(tmp_path, scripted(replies), task=",".join(ids))
    named = {task.public().id: task_id for task_id, task in tasks.items()}  # a reading task's id is opaque
    assert sorted(s.metadata["task"] for s in log.samples) == sorted(named)  # the log orders samples by id
    for sample in log.samples:
        task, record = tasks[named[sample.metadata["task"]]], records[named[sample.metadata["task"]]]
        assert sample.metadata["prompt_version"] == record.prompt_version
        assert sample.metadata["prompt_sha256"] == record.prompt_sha256
        assert sample.metadata["suite"] == suite().to_json() and sample.metadata["seeds"] == record.seeds
        assert [(m.role, m.text) for m in sample.input] == [(m["role"], m["content"]) for m in record.messages[:2]]
        score = sample.scores["registry_score"]
        assert score.answer == task.offline_answer("reference")
        same_score(score, wsp_grade(tmp_path, task.id, score.answer))
        same_score(score, record.test.to_json())
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    split = by_skill(replies_of(list(records.values())))  # what `wsp runs show` prints for these replies
    assert list(split) == ["writing", "reading"] and "mean" not in metrics  # no mean over writing and reading
    assert not any("weighted mean" in name for name in metrics)
    for skill, replies in split.items():
        expected = headline(replies)
        assert metrics[f"{skill} score"] == pytest.approx(expected["mean_test_score"])
        assert metrics[f"{skill} score tasks"] == expected["tasks"] == {"writing": 3, "reading": 2}[skill]
        assert (metrics[f"{skill} score low"], metrics[f"{skill} score high"]) == pytest.approx(tuple(expected["ci95"]))
        for row in expected["families"]:
            family = row["family"]
            assert metrics[family] == pytest.approx(row["mean_test_score"]) and metrics[f"{family} tasks"] == 1
            assert (metrics[f"{family} low"], metrics[f"{family} high"]) == pytest.approx(tuple(row["ci95"]))


def test_one_shot_rejected_reply_scores_zero_with_its_error(tmp_path):
    task = get_task("synth/ferry")
    log = run_eval(tmp_path, scripted({prompt_of(task, EPISODES): [NO_ANSWER]}), task=task.id)
    score = log.samples[0].scores["registry_score"]
    expected = wsp_grade(tmp_path, task.id, NO_ANSWER)
    assert expected["error"] and score.explanation == expected["error"]
    same_score(score, expected)


def test_an_answer_only_in_the_reasoning_is_graded_from_it(tmp_path):
    task = get_task("synth/ferry")
    reference = task.offline_answer("reference")
    reply = [ContentReasoning(reasoning=reference), ContentText(text=NO_ANSWER)]
    log = run_eval(tmp_path, scripted({prompt_of(task, EPISODES): [reply]}), task=task.id)
    score = log.samples[0].scores["registry_score"]
    assert score.answer == reference
    same_score(score, wsp_grade(tmp_path, task.id, reference))
    config = RunConfig(model="reference", protocol=make("one-shot", episodes=EPISODES))
    record = run_task(task, OfflineClient("reference"), config, paid=[Reply(NO_ANSWER, reference)])
    assert record.rounds[0].answer_source == "reasoning"  # the harness chose the same text
    same_score(score, record.test.to_json())


@pytest.mark.parametrize("task_id", ["original/breakout", "superbeam", "repair/breakout/swap_actions"])
def test_feedback_sends_what_the_harness_sends(tmp_path, task_id):
    task = get_task(task_id)
    replies = [NO_ANSWER, task.offline_answer("zero"), task.offline_answer("reference"), NO_ANSWER]
    config = RunConfig(model="reference", protocol=make("feedback", rounds=4, episodes=EPISODES, train_episodes=5))
    record = run_task(task, OfflineClient("reference"), config, paid=[Reply(text) for text in replies])
    assert record.status == "ok" and record.best_round == 3
    harness_sent = requests_of(record)

    sent: dict[str, list] = {}
    prompt = record.messages[1]["content"]
    params = {"protocol": "feedback", "rounds": 4, "train_episodes": 5}
    log = run_eval(tmp_path, scripted({prompt: list(replies)}, sent), task=task_id, **params)
    sample = log.samples[0]
    assert sent[prompt] == harness_sent  # every request: the same prompt, replies and feedback
    assert sample.metadata["prompt_sha256"] == record.prompt_sha256
    assert sample.metadata["best_round"] == record.best_round
    rounds = sample.store["wspbench:rounds"]
    assert [r["feedback"] for r in rounds] == [r.feedback for r in record.rounds]
    assert [timeless(r["train"]) for r in rounds] == [r.train and timeless(r.train.to_json()) for r in record.rounds]
    score = sample.scores["registry_score"]
    assert score.answer == task.offline_answer("reference")
    same_draws(score, record, task)


@pytest.mark.parametrize(
    "task_id",
    ["original/breakout", "synth/ferry", "superbeam", "identify-choice/breakout/1", "repair/freeway/swap_actions"],
)
def test_agent_sends_what_the_harness_sends_and_keeps_the_same_blocks(tmp_path, task_id):
    need_sandbox()
    task = get_task(task_id)
    config = RunConfig(
        "reference-agent", protocol=make("agent", rounds=4, episodes=EPISODES, train_episodes=5, passes=3)
    )
    record = run_task(task, OfflineClient("reference-agent"), config)
    assert record.status == "ok" and record.best_round == 2, record.error
    replies = [entry.reply.content for entry in record.rounds]
    harness_sent = requests_of(record)

    sent: dict[str, list] = {}
    prompt = record.messages[1]["content"]
    params = {"protocol": "agent", "rounds": 4, "train_episodes": 5, "passes": 3}
    log = run_eval(tmp_path, scripted({prompt: list(replies)}, sent), task=task_id, **params)
    sample = log.samples[0]
    assert sent[prompt] == harness_sent  # every request: the same prompt, replies and block results
    assert sample.metadata["best_round"] == record.best_round
    inspect_blocks = [[timeless_block(b) for b in r["blocks"]] for r in sample.store["wspbench:rounds"]]
    assert inspect_blocks == [[timeless_block(block_json(b)) for b in r.blocks] for r in record.rounds]
    same_draws(sample.scores["registry_score"], record, task)


def timeless_block(block: dict) -> dict:
    return {**block, "seconds": None, "train": timeless(block["train"])}


class ReferenceServer:
    """A chat-completions endpoint on 127.0.0.1 answering each task's prompt with its reference program
    (Inspect's `openai` provider speaks chat completions to it with `-M responses_api=false`)."""

    def __init__(self, answers: dict[str, str]):
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
                message = {"role": "assistant", "content": answers[prompt]}
                data = json.dumps(
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def test_inspect_cli_finds_the_registered_task(tmp_path):
    ids = ["synth/ferry", "synth/firefighter"]
    answers = {prompt_of(get_task(i), 5): get_task(i).offline_answer("reference") for i in ids}
    server = ReferenceServer(answers)
    script = Path(sys.executable).with_name("inspect")  # the `inspect` command of this environment
    inspect_cli = [str(script)] if script.exists() else [sys.executable, "-m", "inspect_ai"]
    env = {**os.environ, "OPENAI_API_KEY": "none", "OPENAI_BASE_URL": server.url}
    try:
        command = [*inspect_cli, "eval", "wspbench/weight_programming", "-T", "task=synth/ferry,synth/fire*"]
        command += ["-T", "episodes=5", "--model", "openai/reference", "-M", "responses_api=false"]
        command += ["--max-retries", "0", "--log-dir", str(tmp_path / "logs"), "--display", "plain"]
        result = subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        server.close()
    assert result.returncode == 0, result.stdout + result.stderr
    (path,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.eval.task == "wspbench/weight_programming" and log.status == "success"
    assert sorted(s.metadata["task"] for s in log.samples) == ids
    for sample in log.samples:
        expected = get_task(sample.metadata["task"]).grade(sample.scores["registry_score"].answer, range(5))
        assert sample.scores["registry_score"].value == expected.normalized


BAD_PARAMS = [  # as `inspect eval -T` reads them (YAML): each once gave a silent 0, a traceback or a rounded count
    {"engine": "bogus"},
    {"rounds": 0},
    {"rounds": -2},
    {"episodes": 1.5},
    {"train_episodes": 2.5},
    {"episodes": [1, 2]},
    {"episodes": True},
    {"train_episodes": 0},
    {"workers": 0},
    {"protocol": ["feedback"]},
]


@pytest.mark.parametrize(
    "params",
    [{"task": "nope"}, {"protocol": "three-shot"}, {"episodes": 0}, {"task": "identify", "protocol": "feedback"}]
    + BAD_PARAMS,
)
def test_bad_parameters_are_one_clear_message(params):
    with pytest.raises(Exception, match="^wspbench/weight_programming: ") as caught:
        weight_programming(**params)
    assert type(caught.value).__name__ in ("PrerequisiteError", "ValueError")  # the CLI prints it, no traceback
    assert "\n" not in str(caught.value)
    if "task" not in params:  # the message names the parameter and its allowed values
        (name,) = params
        assert f"-T {name}=" in str(caught.value) and (
            " from 1 to " in str(caught.value) or "choose one of" in str(caught.value)
        )


@pytest.mark.parametrize("params", BAD_PARAMS[:3])
def test_bad_parameters_stop_the_eval_before_the_model_is_called(tmp_path, params):
    called = []

    def reply(*args):
        called.append(args)
        return ModelOutput.from_content("mockllm/model", NO_ANSWER)

    model = get_model("mockllm/model", custom_outputs=reply)
    with pytest.raises(Exception, match="^wspbench/weight_programming: -T "):
        inspect_ai.eval(
            "wspbench/weight_programming",
            task_args={"task": "synth/ferry", **params},
            model=model,
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    assert called == [] and not list(tmp_path.rglob("*.eval"))


def test_a_bad_parameter_is_one_line_from_the_inspect_cli(tmp_path):
    script = Path(sys.executable).with_name("inspect")
    inspect_cli = [str(script)] if script.exists() else [sys.executable, "-m", "inspect_ai"]
    command = [*inspect_cli, "eval", "wspbench/weight_programming", "-T", "task=synth/ferry", "-T", "episodes=[1,2]"]
    command += ["--model", "mockllm/model", "--log-dir", str(tmp_path / "logs"), "--display", "plain"]
    env = {**os.environ, "COLUMNS": "200"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    output = (result.stdout + result.stderr).strip()
    assert result.returncode != 0 and output.splitlines() == [
        "wspbench/weight_programming: -T episodes=[1, 2]: episodes must be a whole number from 1 to 100,000"
    ]
    assert not (tmp_path / "logs").exists()  # no sample ran


def test_mockllm_offline_is_one_message_before_any_sample(tmp_path, monkeypatch):
    """`mockllm/model`'s default replies have no usage, so Inspect counts their tokens with tiktoken, which
    downloads its encoding: offline (here: the download raising what requests raises), one message instead of
    a traceback per sample; with the encoding at hand (a tiny local one here), the same eval runs."""
    tiktoken = pytest.importorskip("tiktoken")

    def offline(name):
        raise ConnectionError("HTTPSConnectionPool(host='openaipublic.blob.core.windows.net', port=443)")

    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    params = {"task_args": {"task": "synth/ferry", "episodes": 5}, "log_dir": str(tmp_path / "logs")}
    with pytest.raises(Exception, match="^wspbench/weight_programming: mockllm/model counts .*TIKTOKEN_CACHE_DIR"):
        inspect_ai.eval("wspbench/weight_programming", model="mockllm/model", display="none", **params)
    assert not (tmp_path / "logs").exists()

    local = tiktoken.Encoding(
        name="local_bytes", pat_str=r"\S+|\s+", mergeable_ranks={bytes([b]): b for b in range(256)}, special_tokens={}
    )
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: local)
    (log,) = inspect_ai.eval("wspbench/weight_programming", model="mockllm/model", display="none", **params)
    assert log.status == "success" and log.samples[0].scores["registry_score"].value == 0.0  # its default reply


def test_a_conversation_stops_at_its_time_budget_as_wsp_run_stops(tmp_path):
    """issue 38.5: `-T task_timeout=...` bounds each conversation as `wsp run --task-timeout` does: once it is
    spent nothing more is asked, and the answer so far is graded (the sample says `time_limit`)."""
    task = get_task("original/breakout")
    prompt = task.messages(make("feedback", rounds=4, episodes=EPISODES, train_episodes=5))[1]["content"]
    replies = [task.offline_answer("reference"), NO_ANSWER, NO_ANSWER, NO_ANSWER]
    sent: dict[str, list] = {}
    params = {"protocol": "feedback", "rounds": 4, "train_episodes": 5, "task_timeout": 1e-9}
    log = run_eval(tmp_path, scripted({prompt: list(replies)}, sent), task=task.id, **params)
    sample = log.samples[0]
    assert len(sent[prompt]) == 1 and sample.metadata["time_limit"] is True
    assert sample.scores["registry_score"].answer == task.offline_answer("reference")
