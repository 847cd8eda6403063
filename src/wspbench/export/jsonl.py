"""Dataset rows: one JSON object per task, in the column layout public weight-programming datasets use
(`name, split, game, source, family, prompt, system_prompt, episodes, task_id`), plus our own columns.
A Parquet copy is written next to the JSONL file when `pyarrow` is installed.

Column meanings: `name` the wspbench task id (`original/breakout`), `task_id` the Harbor task name
(`wspbench/original-breakout`, the same as `wsp export harbor`), `split` "test" (every row is scored on
the held-out episodes), `episodes` the scoring episodes (SUPERBEAM: held-out levels). Ours: `network`,
`answer_format` (edits | json), `score_cap`, `prompt_version`, `prompt_sha256`, `protocol`, `verifier_env`.
"""

from __future__ import annotations

import json
from pathlib import Path

from wspbench.export.catalog import PROTOCOL, TaskInfo

COLUMNS = ("name", "split", "game", "source", "family", "prompt", "system_prompt", "episodes", "task_id")
OWN_COLUMNS = ("network", "answer_format", "score_cap", "prompt_version", "prompt_sha256", "protocol",
               "verifier_env")


def row(info: TaskInfo) -> dict:
    """The dataset row of one task."""
    return {
        "name": info.task_id, "split": "test", "game": info.game, "source": info.source, "family": info.family,
        "prompt": info.prompt, "system_prompt": info.system_prompt, "episodes": info.scoring_episodes,
        "task_id": info.harbor_name,
        "network": info.network.describe(), "answer_format": info.answer_format, "score_cap": info.score_cap,
        "prompt_version": info.prompt_version, "prompt_sha256": info.prompt_sha256, "protocol": PROTOCOL,
        "verifier_env": json.dumps(info.verifier_env(), sort_keys=True),
    }


def export_jsonl(out: Path, infos: list[TaskInfo]) -> list[Path]:
    """Write OUT (JSON Lines) and, with pyarrow, OUT with the suffix .parquet; returns the files written."""
    rows = [row(info) for info in infos]
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
