"""The README's and docs' excerpts of what commands print, run now: every `$ wsp ...` console excerpt and every
JSON excerpt is compared with what the command prints today (seconds aside), so that they cannot go stale.

docs/inspect.md and docs/exports.md show no `$ wsp` excerpt; the eval log sample in docs/inspect.md is checked for its
suite, prompt version and score (its long lists are cut with "..."), the rest by tests/integrations/test_inspect.py.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from wspbench.cli import app

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = [README, *(p for p in sorted((ROOT / "docs").glob("*.md")) if p.name not in ("inspect.md", "exports.md"))]
FENCE = re.compile(r"^(`{3,})(\w*)\n(.*?)^\1$", re.MULTILINE | re.DOTALL)
RUNNER = CliRunner()
TIMINGS = {"seconds"}  # the only values that differ between two runs of a command


def blocks(path: Path, kind: str) -> list[str]:
    """The bodies of the fenced blocks of this kind (```console, ```json, ````text...) in a Markdown file."""
    return [body for _, found, body in FENCE.findall(path.read_text()) if found == kind]


def excerpts() -> list:
    """Every `$ wsp ...` console excerpt: (file, command, the lines shown after it), as test parameters."""
    found = []
    for path in DOCS:
        for body in blocks(path, "console"):
            command, *shown = body.rstrip("\n").splitlines()
            assert command.startswith("$ wsp "), f"{path.name}: a console excerpt that is not a wsp command"
            found.append(pytest.param(path.name, command[2:], shown, id=f"{path.name}: {command[2:]}"))
    return found


def table(lines: list[str]) -> tuple[str, dict[str, str]]:
    """A two-column rich table as printed: its title and its rows as {first cell: second cell}."""
    rows = [[cell.strip() for cell in line.strip().strip("│").split("│")] for line in lines if line.startswith("│")]
    return lines[0].strip(), {row[0]: row[1] for row in rows}


def same(shown, actual) -> bool:
    """Equal, a number being equal at the precision shown (a doc may print 0.1294 for 0.12940000000000002)."""
    if isinstance(shown, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        decimals = len(repr(shown).partition(".")[2])
        return abs(shown - actual) <= 0.5 * 10**-decimals
    if isinstance(shown, dict) and isinstance(actual, dict):
        return shown.keys() == actual.keys() and all(same(shown[key], actual[key]) for key in shown)
    if isinstance(shown, list) and isinstance(actual, list):
        return len(shown) == len(actual) and all(same(a, b) for a, b in zip(shown, actual, strict=True))
    return shown == actual


@pytest.fixture
def in_readme_folder(tmp_path, monkeypatch):
    """A folder holding the files the README's commands name: answer.txt is the reply the README shows."""
    (answer,) = blocks(README, "text")
    (tmp_path / "answer.txt").write_text(answer)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_docs_have_excerpts_to_check():
    commands = [param.values[1] for param in excerpts()]
    assert any(c.startswith("wsp grade") and "--json" in c for c in commands)
    assert any(c.startswith("wsp grade") and "--json" not in c for c in commands)


@pytest.mark.parametrize(("doc", "command", "shown"), excerpts())
def test_a_console_excerpt_is_what_the_command_prints(doc, command, shown, in_readme_folder):
    result = RUNNER.invoke(app, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    printed = result.stdout.rstrip("\n").splitlines()
    if shown[0].startswith("{"):  # --json: every field, as printed now (seconds aside)
        excerpt, actual = json.loads("\n".join(shown)), json.loads(printed[-1])
        assert excerpt.keys() == actual.keys(), f"{doc}: {command}: the fields differ"
        for key in excerpt.keys() - TIMINGS:
            assert same(excerpt[key], actual[key]), f"{doc}: {command}: {key} is {actual[key]!r}, not {excerpt[key]!r}"
        return
    (title, rows), (now_title, now_rows) = table(shown), table(printed)
    assert title == now_title
    assert rows.keys() == now_rows.keys(), f"{doc}: {command}: the rows differ"
    for key in rows.keys() - TIMINGS:
        assert rows[key] == now_rows[key], f"{doc}: {command}: {key} is {now_rows[key]!r}, not {rows[key]!r}"


def test_every_json_excerpt_parses():
    for path in DOCS:
        for body in blocks(path, "json"):
            json.loads(body)


def test_the_readme_reward_file_is_what_wsp_verify_writes(tmp_path, monkeypatch):
    """The reward.json the README shows, from `wsp verify` with its settings (the fields it names, as shown)."""
    (shown,) = (json.loads(body) for body in blocks(README, "json") if "normalized_score" in body)
    answer = (ROOT / "src" / "wspbench" / "references" / f"{shown['game']}.txt").read_text()
    trajectory, reward = tmp_path / "trajectory.json", tmp_path / "reward.json"
    trajectory.write_text(json.dumps({"steps": [{"messages": [{"role": "assistant", "content": answer}]}]}))
    monkeypatch.setenv("WEIGHT_SPACE_GAME", shown["game"])
    monkeypatch.setenv("WEIGHT_SPACE_SOURCE", shown["source"])
    monkeypatch.setenv("WEIGHT_SPACE_EPISODES", str(shown["episodes"]))
    result = RUNNER.invoke(app, ["verify", "--trajectory", str(trajectory), "--reward", str(reward)])
    assert result.exit_code == 0, result.output
    written = json.loads(reward.read_text())
    for key, value in shown.items():
        assert same(value, written.get(key)), f"README: reward {key} is {written.get(key)!r}, not {value!r}"


def test_the_inspect_log_excerpt_names_the_suite_and_score_of_today():
    """docs/inspect.md shows an eval log's sample (with "..." for long lists): its suite, prompt version and
    score are the registry's now."""
    from wspbench.tasks import get_task, suite

    text = (ROOT / "docs" / "inspect.md").read_text()
    now = suite()
    assert f'"version": "{now.version}"' in text and f'"digest": "{now.digest}", "tasks": {now.tasks}' in text
    task = get_task("synth/ferry")
    assert f'"prompt_version": "{task.prompt_version}"' in text
    score = task.grade(task.offline_answer("reference"), task.scoring_episodes(100))
    assert f'"normalized": {score.normalized}' in text and f'"score_cap": {score.score_cap}' in text
