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


def test_the_readme_says_to_activate_the_venv_before_its_first_bare_command():
    """issue 52: after set-up the README switched to bare `python` and `wsp`, and its API one-liner failed with
    ModuleNotFoundError for a newcomer who had not activated the venv."""
    text = README.read_text()
    note = text.index("activate it first (`. .venv/bin/activate`)")
    bare = [m.start() for m in re.finditer(r"^(\$ )?(wsp|python) ", text, re.MULTILINE)]
    assert bare and note < min(bare) and text.index("python3.11 -m venv .venv") < note


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


# --- every `wsp ...` command the docs show parses against the real command line ----------------------------------

INLINE = re.compile(r"`((?:[A-Z_]+=\S+ )*wsp [^`]+)`")
ALTERNATIVES = re.compile(r"^(-[\w-]+ )?([\w./*-]+)(\|[\w./*-]+)+$")


def documented_commands() -> list:
    """Every `wsp ...` command in README.md and docs/*.md (inline code and shell blocks), as test parameters:
    placeholders stay (TASK, DIR), `[...]` optional parts are kept without their brackets, `a|b` takes `a`."""
    found = {}
    for path in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text()
        lines = INLINE.findall(text)
        for kind in ("bash", "console", "sh", "shell"):
            for body in blocks(path, kind):
                joined = body.replace("\\\n", " ")
                lines += [line.removeprefix("$ ").strip() for line in joined.splitlines()]
        for line in lines:
            for part in re.split(r"&&|\|\||;|\|(?=\s)", line):
                words = part.strip().split()
                while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
                    words = words[1:]
                if words[:1] == [".venv/bin/wsp"]:
                    words[0] = "wsp"
                if len(words) > 1 and words[0] == "wsp" and not words[1].startswith("..."):
                    command = " ".join(words)
                    found.setdefault(command, pytest.param(command, id=f"{path.name}: {command}"[:150]))
    return list(found.values())


NUMBERS = {"N", "K", "S", "T", "M", "R", "SECONDS"}  # placeholders of counts, seeds and temperatures: one such value
TASKS = {"TASK", "ID"}  # placeholders of a task id: one such id


def cleaned(command: str) -> list[str]:
    """The command's arguments as a user would type one instance of it: a comment cut, `[...]` kept without its
    brackets, `a|b|c` as `a`, a numeric placeholder (N, K...) as 1, `...` dropped."""
    text = command.split(" # ")[0].replace("[", " ").replace("]", " ").replace("...", " ")
    args = []
    for word in shlex.split(text)[1:]:
        if "|" in word:
            word = word.split("|")[0]
        args.append("1" if word in NUMBERS else "original/breakout" if word in TASKS else word)
    return [word for word in args if word]


def alternatives(command: str) -> list[str]:
    """`wsp runs show/compare` names two commands: each one's command line."""
    words = command.split()
    for i, word in enumerate(words[1:3], start=1):
        if re.fullmatch(r"[a-z0-9]+(/[a-z0-9]+)+", word) and not word.startswith(("original", "synth", "gen")):
            return [" ".join([*words[:i], one, *words[i + 1 :]]) for one in word.split("/")]
    return [command]


@pytest.mark.parametrize("command", documented_commands())
def test_a_documented_command_parses_against_the_cli(command):
    """Options exist and their values are valid: the command line is parsed by the real click command (each
    group's, then its subcommand's), without running it."""
    for one in alternatives(command):
        parse(one)


def parse(command: str) -> None:
    import typer

    def left(context) -> list[str]:  # what a group leaves for its subcommand (click keeps it apart)
        return [*getattr(context, "_protected_args", []), *context.args]

    def group(command) -> bool:  # typer's own click groups are not click.Group instances
        return hasattr(command, "resolve_command")

    current = typer.main.get_command(app)
    try:
        context = current.make_context("wsp", cleaned(command))
        rest = left(context)
        while group(current) and rest:
            name, sub, rest = current.resolve_command(context, rest)
            assert sub is not None, f"no command {name!r}"
            context = sub.make_context(name, list(rest), parent=context)
            current, rest = sub, left(context) if group(sub) else []
    except Exception as error:
        kind, message = type(error).__name__, str(error)
        if kind == "Exit" and getattr(error, "exit_code", 1) == 0:  # --help and --version end parsing so
            return
        if kind in ("MissingParameter", "NoArgsIsHelpError") or "requires an argument" in message:
            return  # a fragment that names an option or a command in prose, not a whole command line
        if "No such command 'COMMAND'" in message:
            return
        raise


def test_numbers_the_docs_quote_are_the_codes():
    """The suite version and task counts, and the record schema version, as the docs state them now."""
    from wspbench.harness.record import SCHEMA_VERSION
    from wspbench.harness.summary import skill_of
    from wspbench.tasks import all_tasks, suite
    from wspbench.tasks.registry import SUITE_VERSION

    now, tasks = suite(), all_tasks()
    writing = sum(skill_of(t.id) == "writing" for t in tasks)
    assert re.search(r"^## Suite (\w+)", (ROOT / "CHANGELOG.md").read_text(), re.M).group(1) == SUITE_VERSION
    stated = f"Suite {SUITE_VERSION} has {now.tasks} tasks: {writing} writing and {now.tasks - writing} reading"
    assert stated in " ".join(README.read_text().split())
    harness = " ".join((ROOT / "docs" / "harness.md").read_text().split())
    assert f"record.py`, schema {SCHEMA_VERSION}," in harness
