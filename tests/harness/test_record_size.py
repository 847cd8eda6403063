"""A record's size is bounded where it is written: replies stored as UTF-8, a task's reply text within
MAX_TASK_TEXT_BYTES, a record within MAX_WRITE_BYTES (`record.fit`); a record that exists but cannot be read is
counted as "corrupt" (0) (tests/harness/test_rundir.py); six rounds of non-ASCII replies from a real server are
counted and never asked again (tests/harness/test_http.py)."""

from __future__ import annotations

import json

from wspbench.harness.record import Reply, Round, TaskRecord, TextBudget, encode, fit
from wspbench.protocols.conversation import Block


def test_a_task_stores_at_most_its_text_budget_and_grades_what_it_stored():
    budget = TextBudget([], limit=10)
    whole, cut = budget.take(Reply("abc"))
    assert (whole.content, cut) == ("abc", None)
    part, cut = budget.take(Reply("ééééé", reasoning="xyz"))  # 7 bytes left: three "é" (6 bytes), then "x"
    assert (part.content, part.reasoning) == ("ééé", "x") and "cut to the 7" in cut
    assert budget.take(Reply("more"))[0].content == ""


def test_fit_drops_block_text_then_ungraded_rounds_with_reasons():
    blocks = [Block("python", "x" * 5000, "ok", "y" * 5000), Block("submit", "z", "submitted", candidate="c" * 5000)]
    rounds = [Round(n, Reply(str(n) * 20_000), blocks=list(blocks)) for n in (1, 2, 3)]
    record = TaskRecord("t/a", "m", "agent", rounds=rounds, status="error", best_round=2)
    assert len(fit(record, limit=10**6)) < 10**6 and record.dropped == []
    data = fit(record, limit=50_000)
    assert len(data) <= 50_000 and len(record.dropped) == 3
    assert record.rounds[1].reply.content == "2" * 20_000 and record.rounds[1].answer == "c" * 5000
    assert record.rounds[0].reply.content == "" and "not graded" in record.rounds[0].cut
    assert TaskRecord.from_json(json.loads(data)).dropped == record.dropped


def test_a_running_record_keeps_every_reply_for_resume():
    rounds = [Round(n, Reply("r" * 20_000)) for n in (1, 2)]
    record = TaskRecord("t/a", "m", "feedback", rounds=rounds)
    try:
        fit(record, limit=30_000)
    except ValueError as error:
        assert "even without" in str(error)
    else:
        raise AssertionError("a running record was cut")
    assert all(r.reply.content == "r" * 20_000 for r in record.rounds)


def test_text_is_stored_as_utf8_and_lone_surrogates_survive():
    text = 'é\u2028\ud800x\\\udfff"\x00'
    data = encode({"text": text})
    assert "é".encode() in data and json.loads(data)["text"] == text
