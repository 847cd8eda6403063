"""`wsp export jsonl`: one parseable row per task whose prompts are the harness's prompts."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wspbench.cli import app
from wspbench.export.jsonl import COLUMNS, OWN_COLUMNS
from wspbench.harness.families import make_task, select_task_ids

SELECTOR = "original/breakout,synth/*,superbeam"


def test_rows_parse_and_match_the_prompts(tmp_path):
    out = tmp_path / "tasks.jsonl"
    result = CliRunner().invoke(app, ["export", "jsonl", str(out), "--tasks", SELECTOR, "--episodes", "50"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    ids = select_task_ids(SELECTOR)
    assert [r["name"] for r in rows] == ids
    for row in rows:
        assert list(row) == [*COLUMNS, *OWN_COLUMNS]
        system, user = make_task(row["name"], 50, 1, workers=1).messages("one-shot", 1)
        assert row["system_prompt"] == system["content"] and row["prompt"] == user["content"]
        assert row["split"] == "test" and row["task_id"] == "wspbench/" + row["name"].replace("/", "-")
        if row["name"] == "superbeam":
            assert (row["family"], row["source"], row["episodes"]) == ("superbeam", "superbeam", 20)
            assert row["answer_format"] == "json"
            assert row["network"].startswith("8 -> 16 -> 6 relu")
        else:
            source, game = row["name"].split("/")
            assert (row["family"], row["source"], row["game"], row["episodes"]) == ("minatar", source, game, 50)
            assert row["answer_format"] == "edits" and row["network"].startswith("600 -> 32 -> 32 -> 6 tanh")
            assert "The network plays 50 episodes" in row["prompt"]
            assert json.loads(row["verifier_env"]) == {"WEIGHT_SPACE_EPISODES": "50", "WEIGHT_SPACE_GAME": game,
                                                       "WEIGHT_SPACE_SOURCE": source}
        assert row["prompt_version"] in ("minatar-v1", "superbeam-v1") and len(row["prompt_sha256"]) == 64
    try:
        import pyarrow.parquet as pq
    except ImportError:
        assert not out.with_suffix(".parquet").exists()
        return
    table = pq.read_table(out.with_suffix(".parquet"))
    assert table.column_names == [*COLUMNS, *OWN_COLUMNS] and table.num_rows == len(rows)
