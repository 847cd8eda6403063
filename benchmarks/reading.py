"""The reading (identify) and repair families in numbers, and the two prompts docs/reading.md shows in full.

    python benchmarks/reading.py               # tasks per family, chance levels, prompt tokens, the damages
    python benchmarks/reading.py --write-doc   # rewrite the full prompts at the end of docs/reading.md

Token counts come from `wspbench/harness/tokens.py`: tiktoken's o200k_base when its encoding can be loaded,
else the stated estimate (pre-tokenizer pieces). tests/tasks/test_reading.py checks that the doc's prompts are the
ones the registry renders now.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np

from wspbench.baselines.reading_build import no_repair_because
from wspbench.harness.tokens import token_counter
from wspbench.tasks import get_task, select
from wspbench.tasks.identify import candidates
from wspbench.tasks.repair import DAMAGES, load_damages

DOC = Path(__file__).resolve().parents[1] / "docs" / "reading.md"
MARKER = "<!-- The prompts below are written by benchmarks/reading.py --write-doc; do not edit them by hand. -->"
SHOWN = ("identify/breakout/4", "repair/breakout/swap_actions")
FENCE = "`````"  # longer than the ``` fences inside the prompts


def prompt_section(task_id: str) -> str:
    system, user = (message["content"] for message in get_task(task_id).messages())
    return (
        f"### `{task_id}`\n\nSystem message:\n\n{FENCE}text\n{system}\n{FENCE}\n\n"
        f"User message:\n\n{FENCE}text\n{user}{FENCE}\n"
    )


def write_doc() -> None:
    text = DOC.read_text()
    head = text.split(MARKER, 1)[0]
    DOC.write_text(head + MARKER + "\n\n" + "\n".join(prompt_section(task_id) for task_id in SHOWN))
    print(f"wrote the prompts of {', '.join(SHOWN)} into {DOC}")


def numbers() -> None:
    count, how, _ = token_counter("gpt-4o")
    print(f"prompt tokens: {how}\n")
    print("| tasks | count | chance | prompt tokens (min / mean / max) | prompt characters (max) |")
    print("|---|---:|---:|---|---:|")
    for selector, chance in (
        ("identify/*", "1/5 naming one of MinAtar's 5 games; 0 otherwise"),
        ("identify-choice/*", f"1/{len(candidates())} = {1 / len(candidates()):.3f}"),
        ("repair/*", "-"),
    ):
        prompts = ["\n".join(m["content"] for m in task.messages()) for task in select(selector)]
        tokens = [count(text) for text in prompts]
        print(
            f"| `{selector}` | {len(prompts)} | {chance} | {min(tokens):,} / {statistics.mean(tokens):,.0f} / "
            f"{max(tokens):,} | {max(map(len, prompts)):,} |"
        )
    data = load_damages()
    print("\n| task | network (game.seed) | parameter | damaged network's mean return, of the trained one's |")
    print("|---|---|---|---|")
    for task in select("repair/*"):
        entry = data["networks"][f"{task.binding.game}.{task.seed}"]
        damaged = float(np.mean(entry["damages"][task.kind]["damaged"]))
        trained = float(np.mean(entry["trained"]))
        print(f"| `{task.id}` | {task.binding.game}.{task.seed} | {task.parameter} | {damaged:.3g} of {trained:.3g} |")
    print()
    tasked = {f"{task.binding.game}.{task.seed}" for task in select("repair/*")}
    for network, entry in data["networks"].items():
        if network not in tasked:
            print(f"- no repair task for {network}: {no_repair_because(entry)}")
    for network, why in data["skipped_networks"].items():
        print(f"- no repair task for {network}: {why}")
    kinds = {task.kind for task in select("repair/*")}
    for kind in DAMAGES:
        if kind not in kinds:
            print(f"- no task has {kind}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-doc", action="store_true", help="rewrite the prompts in docs/reading.md")
    if parser.parse_args().write_doc:
        write_doc()
    else:
        numbers()


if __name__ == "__main__":
    main()
