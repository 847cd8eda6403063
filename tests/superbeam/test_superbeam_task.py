"""The weights task: answer parsing (untrusted text), scoring, feedback and the CLI."""

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from superbeam.cli import superbeam_app
from superbeam.task import (
    DIFFICULTY,
    MAX_ANSWER_CHARS,
    TEST_LEVELS,
    TRAIN_LEVELS,
    AnswerError,
    feedback,
    grade,
    parse_answer,
    play_level,
    reference_weights,
    task_prompt,
    weights_json,
)
from wspbench.networks import SUPERBEAM_NETWORK


def zeros():
    return {k: v.tolist() for k, v in SUPERBEAM_NETWORK.zeros().items()}


def answer(obj, fence=True):
    body = json.dumps(obj)
    return f"My reasoning...\n```json\n{body}\n```\nDone." if fence else f"Here: {body} thanks"


def test_constants():
    assert TRAIN_LEVELS == list(range(10)) and TEST_LEVELS == list(range(1000000, 1000020))
    assert DIFFICULTY == 0.5


def test_parses_fenced_bare_and_last_block():
    w = zeros()
    w["b2"] = [0, 0, 1, 0, 0, 0]
    first = zeros()
    text = answer(first) + "\nRevised:\n" + answer(w)
    got = parse_answer(text)
    assert got["b2"].tolist() == [0, 0, 1, 0, 0, 0] and got["W1"].shape == (16, 8)
    assert got["W1"].dtype == np.float64
    assert parse_answer(answer(w, fence=False))["b2"][2] == 1
    assert parse_answer(weights_json(reference_weights()))["W2"][4][0] == 10


@pytest.mark.parametrize("text,message", [
    ("I think the weights should be small.", "no JSON object"),
    ("```json\n{\"W1\": [1, 2,\n```", "does not parse"),
    (answer([1, 2, 3]), "no JSON object"),
    (answer({"W1": [[0] * 8] * 16, "b1": [0] * 16, "W2": [[0] * 16] * 6}), "lacks b2"),
    (answer({**zeros(), "W1": [[0] * 8] * 15}), "W1 must be 16 lists of 8 numbers"),
    (answer({**zeros(), "W1": [[0] * 7] * 16}), "W1 must be 16 lists of 8 numbers"),
    (answer({**zeros(), "b1": [[0]] * 16}), "b1 holds [0], not a number"),
    (answer({**zeros(), "b2": [0, 0, "1", 0, 0, 0]}), "not a number"),
    (answer({**zeros(), "b2": [0, 0, True, 0, 0, 0]}), "not a number"),
    ("```json\n{\"W1\": [], \"b1\": [NaN]}\n```", "NaN"),
    ("```json\n" + json.dumps(zeros()).replace("0.0", "1e999", 1) + "\n```", "non-finite"),
    ("x" * (MAX_ANSWER_CHARS + 1), "limit"),
])
def test_malformed_answers_give_clear_errors_and_score_0(text, message):
    with pytest.raises(AnswerError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_answer(text)
    result = grade(text, [0])
    assert result["score"] == 0 and result["won"] == 0 and message.split()[0] in result["error"]
    assert "could not use" in feedback(result)


def test_deeply_nested_json_is_an_error_not_a_crash():
    text = "```json\n{\"W1\": " + "[" * 100_000 + "]" * 100_000 + "}\n```"
    with pytest.raises(AnswerError):
        parse_answer(text)


def test_reference_network_on_training_levels():
    result = grade(weights_json(reference_weights()), TRAIN_LEVELS)
    assert result["error"] is None and result["won"] >= 8
    text = feedback(result)
    assert text.startswith(f"Your network on 10 training levels: won {result['won']}")
    for r in result["detail"]:
        assert set(r) >= {"seed", "won", "progress", "coins", "cause", "where"}
        assert (r["cause"] is None) == r["won"]


def test_zero_and_always_right_networks_do_poorly():
    zero = grade(answer(zeros()), TRAIN_LEVELS[:3])
    assert zero["won"] == 0 and zero["mean_progress"] == 0
    assert "ran out of time" in zero["detail"][0]["cause"]
    right = zeros()
    right["b2"] = [0, 0, 1, 0, 0, 0]
    result = grade(answer(right), TRAIN_LEVELS[:3])
    assert result["won"] == 0 and all(r["cause"] == "fell into a gap" or "time" in r["cause"]
                                      for r in result["detail"])


def test_play_level_records_screens():
    screens = []
    r = play_level(reference_weights(), "classic", record=screens)
    assert r["won"] and len(screens) > 50 and screens[0].shape == (32, 64)


def test_prompt_names_features_and_shapes():
    text = task_prompt()
    for word in ("gap_dist", "walker_dist", "W1: 16 x 8", "right+jump", "```json"):
        assert word in text


def test_cli_grade_and_play(tmp_path):
    runner = CliRunner()
    good = tmp_path / "answer.txt"
    good.write_text(answer(json.loads(weights_json(reference_weights()))))
    r = runner.invoke(superbeam_app, ["grade", str(good), "--levels", "0..1", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["levels"] == 2
    r = runner.invoke(superbeam_app, ["grade", str(good), "--levels", "2,3"])
    assert r.exit_code == 0 and "won" in r.output
    bad = tmp_path / "bad.txt"
    bad.write_text("no weights here")
    r = runner.invoke(superbeam_app, ["grade", str(bad)])
    assert r.exit_code == 1 and "score 0" in r.output
    gif = tmp_path / "run.gif"
    r = runner.invoke(superbeam_app, ["play", "--level", "classic", "--gif", str(gif), "--no-show"])
    assert r.exit_code == 0 and "won" in r.output and gif.stat().st_size > 1000


@pytest.mark.parametrize("text, message", [
    ('```json\n{"W1": [], "notes": ' + "[" * 50_000 + "]" * 50_000 + "}\n```", "nested too deeply"),
    ('Here: {"W1": [], "notes": ' + "[" * 50_000 + "]" * 50_000 + "} done", "nested too deeply"),
    ("[" * 199_000, "no JSON object"),
    ('```json\n{"W1": ' + "[" * 199_000 + "\n```", "nested too deeply"),
    ('```json\n{"W1": ' + "1" * 5000 + "}\n```", "more than 4,300 digits"),
    ('Here: {"W1": ' + "1" * 5000 + "} done", "more than 4,300 digits"),
    ('```json\n{"W1": 1e' + "9" * 5000 + "}\n```", "lacks b1"),
    ("```json\n" + json.dumps(zeros()).replace("0.0", "1" + "0" * 400, 1) + "\n```", "non-finite"),
    ("```json\n" + json.dumps(zeros()).replace("0.0", "Infinity", 1) + "\n```", "Infinity"),
    ("```json\n" + json.dumps(zeros()).replace("0.0", "-Infinity", 1) + "\n```", "-Infinity"),
    ('```json\n{"W1": 1, "b2": 2, "W1": 3}\n```', 'the key "W1" twice'),
    ('```json\n{"W1": 1, "x": {"a": 1, "a": 2}}\n```', 'the key "a" twice'),
    ("```json\n" + json.dumps({**zeros(), "b1": ["x" * 100_000] + [0] * 15}) + "\n```", "not a number"),
])
def test_hostile_json_gives_a_short_clear_error(text, message):
    with pytest.raises(AnswerError, match=re.escape(message)) as error:
        parse_answer(text)
    assert len(str(error.value)) <= 300
