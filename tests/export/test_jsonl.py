"""`wsp export jsonl`: one parseable row per task, read from the registry: its prompts, its game, its held-out
episodes, and the suite."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.export.jsonl import COLUMNS, OWN_COLUMNS
from wspbench.protocols import OneShot
from wspbench.tasks import get_task, select, suite
from wspbench.tasks.spec import prompt_hash

SELECTOR = "original/breakout,synth/*,superbeam"


def test_rows_parse_and_match_the_tasks(tmp_path):
    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(app, ["export", "jsonl", str(out), "--tasks", SELECTOR, "--episodes", "50"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["name"] for r in rows] == [task.id for task in select(SELECTOR)]
    suite_facts = suite().to_json()
    for row in rows:
        task = get_task(row["name"])
        assert list(row) == [*COLUMNS, *OWN_COLUMNS]
        messages = task.messages(OneShot(episodes=row["episodes"]))  # the prompt states the episodes graded
        assert row["system_prompt"] == messages[0]["content"] and row["prompt"] == messages[1]["content"]
        assert row["prompt_sha256"] == prompt_hash(messages) and row["prompt_version"] == task.prompt_version
        assert row["split"] == "test" and row["task_id"] == "wspbench/" + task.slug
        assert (row["family"], row["game"], row["answer_format"]) == (task.family, task.game.name, task.answer_format)
        assert row["network"] == task.network.describe() and row["score_cap"] == task.game.score_cap
        assert row["episodes"] == len(task.scoring_episodes(50))
        assert json.loads(row["verifier_env"]) == {"WEIGHT_SPACE_EPISODES": str(row["episodes"])}
        assert (row["suite_name"], row["suite_version"], row["suite_digest"]) == (
            suite_facts["name"],
            suite_facts["version"],
            suite_facts["digest"],
        )
    by_name = {row["name"]: row for row in rows}
    assert (by_name["superbeam"]["source"], by_name["superbeam"]["episodes"]) == ("superbeam", 20)
    assert (by_name["original/breakout"]["source"], by_name["original/breakout"]["episodes"]) == ("original", 50)
    assert "The network plays 50 episodes" in by_name["original/breakout"]["prompt"]
    try:
        import pyarrow.parquet as pq
    except ImportError:
        assert not out.with_suffix(".parquet").exists()
        return
    table = pq.read_table(out.with_suffix(".parquet"))
    assert table.column_names == [*COLUMNS, *OWN_COLUMNS] and table.num_rows == len(rows)
