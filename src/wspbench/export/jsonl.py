"""Dataset rows: one JSON object per task, in the column layout public weight-programming datasets use
(`name, split, game, source, family, prompt, system_prompt, episodes, task_id`), plus our own columns.
A Parquet copy is written next to the JSONL file when `pyarrow` is installed.

Column meanings: `name` the task's public id (`original/breakout`; an opaque `identify-choice/<hex>` for a reading
task, whose id would name the answer: `Task.public`), `game` its public game ("" where the game is the answer),
`task_id` the Harbor task name (`wspbench/original-breakout`, the same as `wsp export harbor`), `family` the
task's family (`Task.family`: `original`, `synth`, `identify-choice`, as `wsp games` and summaries name it) and
`source` the public id's first part, the same value (the layout has both columns), `split` "test" (every row is
scored on held-out episodes), `episodes` the number of held-out episodes a grade plays. Ours: `network`,
`answer_format` (the answer block: edits, json), `score_cap`, `prompt_version`, `prompt_sha256`, `protocol`,
`verifier_env`, and the suite (`suite_name`, `suite_version`, `suite_digest`), so that rows from different suites
are told apart.
"""

from __future__ import annotations

import json
from pathlib import Path

from wspbench.export.harbor import Exported
from wspbench.protocols import OneShot
from wspbench.tasks import suite

COLUMNS = ("name", "split", "game", "source", "family", "prompt", "system_prompt", "episodes", "task_id")
OWN_COLUMNS = (
    "network",
    "answer_format",
    "score_cap",
    "prompt_version",
    "prompt_sha256",
    "protocol",
    "verifier_env",
    "suite_name",
    "suite_version",
    "suite_digest",
)


def row(item: Exported, suite_facts: dict) -> dict:
    """The dataset row of one task."""
    task, shown = item.task, item.public
    system, user = (message["content"] for message in item.messages)
    return {
        "name": shown.id,
        "split": "test",
        "game": shown.game,
        "source": shown.id.split("/")[0],
        "family": task.family,
        "prompt": user,
        "system_prompt": system,
        "episodes": len(item.episodes),
        "task_id": item.harbor_name,
        "network": task.network.describe(),
        "answer_format": task.answer_format,
        "score_cap": float(task.facts.score_cap),
        "prompt_version": task.prompt_version,
        "prompt_sha256": item.prompt_sha256,
        "protocol": OneShot.name,
        "verifier_env": json.dumps(item.verifier_env(), sort_keys=True),
        "suite_name": suite_facts["name"],
        "suite_version": suite_facts["version"],
        "suite_digest": suite_facts["digest"],
    }


def export_jsonl(out: Path, items: list[Exported]) -> list[Path]:
    """Write OUT (JSON Lines) and, with pyarrow, OUT with the suffix .parquet; returns the files written."""
    suite_facts = suite().to_json()
    rows = [row(item, suite_facts) for item in items]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    written = [out]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return written
    parquet = out.with_suffix(".parquet")
    pq.write_table(pa.Table.from_pylist(rows), parquet)
    return written + [parquet]
