"""The opening prompt's size under one-shot and under the agent protocol (docs/agent.md), per family: a reading
task's one-shot prompt lists all 20,486 weights, its agent prompt names the .npy files that hold them.

    python benchmarks/agent_prompt_size.py [--model gpt-4o]

Tokens are counted as `wsp run --dry-run` counts them (`wspbench/harness/tokens.py`: tiktoken when its encoding
loads, else the stated estimate); characters are exact. The agent prompt is the opening only: each turn then
adds the model's reply and the blocks' results (at most the output limit per block).
"""

from __future__ import annotations

import argparse

from wspbench.harness.tokens import token_counter
from wspbench.protocols import ONE_SHOT, make
from wspbench.tasks import get_task

TASKS = (
    "original/breakout",
    "synth/ferry",
    "superbeam",
    "identify/breakout/4",
    "identify-choice/breakout/1",
    "repair/breakout/swap_actions",
)
AGENT = make("agent")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gpt-4o", help="The model whose tokenizer counts (tiktoken).")
    args = parser.parse_args()
    count, label, note = token_counter(args.model)
    print(f"tokens: {label}" + (f"\n{note}" if note else ""))
    print("| task | one-shot chars | one-shot tokens | agent chars | agent tokens | agent / one-shot |")
    print("|---|---:|---:|---:|---:|---:|")
    for task_id in TASKS:
        task = get_task(task_id)
        one_shot = "\n".join(m["content"] for m in task.messages(ONE_SHOT))
        agent = "\n".join(m["content"] for m in task.messages(AGENT))
        mine, theirs = count(agent), count(one_shot)
        print(f"| {task_id} | {len(one_shot):,} | {theirs:,} | {len(agent):,} | {mine:,} | {mine / theirs:.2f} |")


if __name__ == "__main__":
    main()
