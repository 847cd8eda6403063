"""Text without slips: every prompt a task shows and every shipped game module use the right article ("an
arrow", never "a arrow"), and every message that counts things says so through `wspbench.words.count` ("1 task",
"2 tasks"), never "{n} tasks" after a number that can be 1."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from wspbench.protocols import make
from wspbench.tasks import all_tasks
from wspbench.words import a, count

PACKAGE = Path(__file__).parents[1] / "src" / "wspbench"
WRONG_ARTICLE = re.compile(r"\b[Aa] (?!u|one\b|once\b)[aeiouAEIOU]\w*|\b[Aa]n [b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]\w*")
NOUNS = "tasks|games|replies|episodes|levels|seeds|files|blocks|networks|rounds|turns|records|families"
# "{n} tasks" in an f-string says "1 tasks" when n is 1 (not after a constant, which is never 1)
COUNTED = re.compile(r"\{(?![\w.]*[A-Z_]{3,}[}:])(?:[^{}]|\{[^{}]*\})+\} (" + NOUNS + r")\b")  # nested braces too
MESSAGES = ("cli", "harness", "report", "export", "evaluation", "baselines")  # what commands print


def test_the_helpers():
    assert [count(1, "task"), count(2, "task"), count(0, "game"), count(3, "family", "families")] == [
        "1 task",
        "2 tasks",
        "0 games",
        "3 families",
    ]
    assert [a("arrow"), a("edits answer"), a("int"), a("game"), a("unit")] == [
        "an arrow",
        "an edits answer",
        "an int",
        "a game",
        "a unit",
    ]


@pytest.mark.parametrize("protocol", ["one-shot", "agent"])
def test_every_prompt_has_the_right_articles(protocol):
    found = set()
    for task in all_tasks():
        if protocol in task.protocols:
            for message in task.messages(make(protocol)):
                found |= {f"{task.id}: {hit}" for hit in WRONG_ARTICLE.findall(message["content"])}
    assert not found


def test_every_shipped_game_text_has_the_right_articles():
    games = resources.files("minatar_synth") / "games"
    found = [
        f"{f.name}: {hit}"
        for f in games.iterdir()
        if f.name.endswith(".py")
        for hit in WRONG_ARTICLE.findall(f.read_text())
    ]
    assert not found


def test_every_message_that_counts_uses_the_plural_helper():
    found = []
    for path in sorted(p for folder in MESSAGES for p in (PACKAGE / folder).rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if COUNTED.search(line) and "more than one" not in line:
                found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
