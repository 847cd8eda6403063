"""The reading tasks' floors: what scores without reading what a network does. Each solver sees only what the
prompts show (the weights as listed, rounded as listed) and the public code, except the library floor, which
also uses every network shipped with the package. The results go into the "reading" section of
`src/wspbench/baselines/baselines.json`, which `wsp baselines` shows beside the writing tasks' baselines.

identify and identify-choice (score 1 for the right game):
  chance     the zero model's answer (the first candidate): 1 / 25 on identify-choice
  occupancy  W1's row norms, correlated with each game's map of the inputs that are ever on under random play
             (OCCUPANCY_EPISODES training episodes of uniformly random actions); the best-correlated game
  reversed   the same, the worst-correlated game (refilled rows that stood out by being larger would show so)
  nearest    the library floor: the game of the nearest other shipped network (Euclidean distance between the
             row-norm vectors of W1; a network equal to the prompt's is skipped)
  prompts    the same from the suite's own prompts: the game of the nearest repair prompt's damaged network (a
             repair prompt names its game)
repair (the task's own score):
  rule       one prompt: an output bias more than RULE_GAP above the median of the others is lowered by
             RULE_SHIFT (it undid suite 4's bias_shift damage); otherwise the empty edit
  siblings   every repair prompt of the same game: each weight set to the value most prompts show, where this
             prompt shows another (the prompts of one game show one network under different damages)

    python benchmarks/reading_floors.py [--tasks 'identify*,repair/*'] [--workers N]
    WSP_PRIVATE_SETS=DIR python benchmarks/reading_floors.py --tasks 'private.*'   # a private set: printed only
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import track

from baselines import DATA, DOC, document  # benchmarks/baselines.py, beside this script
from wspbench.answers.edits import parse_edits
from wspbench.baselines.measured import reading_floors
from wspbench.evaluation import ONE_WORKER
from wspbench.games.minatar import all_games
from wspbench.networks import MINATAR_NETWORK
from wspbench.tasks import get_task, select
from wspbench.tasks.minatar import MinAtarTask

SRC = Path(__file__).parents[1] / "src" / "wspbench"
FORMAT = "wspbench.reading-floors/1"
OCCUPANCY_EPISODES, OCCUPANCY_STEPS, OCCUPANCY_SEED = 20, 1000, 0
RULE_GAP, RULE_SHIFT = 5.0, 10.0  # suite 4's bias_shift damage raised one output bias by 10


def shown_weights(task, heading: str) -> dict[str, np.ndarray]:
    """The network a prompt lists under `heading`, as listed (rounded), read by the edits parser."""
    user = task.messages()[1]["content"]
    listing = user.split(heading, 1)[1].split("```\n", 1)[1].split("\n```", 1)[0]
    weights, _ = parse_edits(f"```edits\n{listing}\n```\n")
    return weights


def row_norms(weights: dict[str, np.ndarray]) -> np.ndarray:
    return np.linalg.norm(np.asarray(weights["W1"], dtype=np.float64), axis=1)


# --- identify -------------------------------------------------------------------------------------------


@cache
def occupancy() -> dict[str, np.ndarray]:
    """Per game: which of the 600 inputs were ever on in OCCUPANCY_EPISODES episodes of random play."""
    found = {}
    for binding in all_games():
        task = MinAtarTask(binding)
        generator = np.random.default_rng(OCCUPANCY_SEED)
        seen = np.zeros(600, dtype=bool)
        for episode in task.training_episodes(OCCUPANCY_EPISODES):
            environment = task.environment(episode)
            for _ in range(OCCUPANCY_STEPS):
                seen |= environment.observe().ravel() != 0
                _, done = environment.act(int(generator.integers(6)))
                if done:
                    break
        found[binding.game] = seen.astype(np.float64)
    return found


def occupancy_guess(norms: np.ndarray, sign: float = 1.0) -> str:
    """The game whose occupancy map correlates best with the row norms (sign -1: worst)."""
    scores = {game: sign * np.corrcoef(norms, seen)[0, 1] for game, seen in occupancy().items() if seen.std()}
    return max(scores, key=lambda game: (scores[game], game))


@cache
def library() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Every shipped MinAtar network: its game, its W1 row norms and its W1 rounded as prompts list it."""
    found = []
    for path in sorted([*SRC.glob("baselines/trained/*.npz"), *SRC.glob("tasks/reading/*.npz")]):
        game = path.name.split(".")[0]
        with np.load(path) as arrays:
            if arrays["W1"].shape != MINATAR_NETWORK.shapes["W1"]:
                continue  # SUPERBEAM's network
            w1 = arrays["W1"].astype(np.float64)
        found.append((game, np.linalg.norm(w1, axis=1), np.round(w1, 3)))
    return found


def nearest_guess(weights: dict[str, np.ndarray]) -> str:
    norms, shown = row_norms(weights), np.round(np.asarray(weights["W1"], dtype=np.float64), 3)
    others = [(np.linalg.norm(norms - n), game) for game, n, w1 in library() if not np.allclose(w1, shown)]
    return min(others)[1]


@cache
def repair_prompts() -> list[tuple[str, np.ndarray]]:
    """Each repair prompt's game and the W1 row norms of the damaged network it lists."""
    return [(task.binding.game, row_norms(shown_weights(task, "THE DAMAGED NETWORK"))) for task in select("repair/*")]


def identify_floors(task) -> dict[str, dict]:
    weights = shown_weights(task, "THE WEIGHTS")
    norms = row_norms(weights)
    guesses = {
        "chance": None,
        "occupancy": occupancy_guess(norms),
        "reversed": occupancy_guess(norms, -1.0),
        "nearest": nearest_guess(weights),
        "prompts": min((np.linalg.norm(norms - other), game) for game, other in repair_prompts())[1],
    }
    floors = {}
    for name, guess in guesses.items():
        answer = task.offline_answer("zero") if guess is None else f"```game\n{guess}\n```\n"
        floors[name] = {"score": task.grade(answer).normalized, "guess": guess}
    return floors


# --- repair ---------------------------------------------------------------------------------------------


def edits_to(target: dict[str, np.ndarray], shown: dict[str, np.ndarray]) -> str:
    """One `T[i, j] = v` statement per weight where `target` differs from what the prompt shows."""
    lines = []
    for name in MINATAR_NETWORK.shapes:
        for index in zip(*np.nonzero(target[name] != shown[name]), strict=True):
            where = ", ".join(str(int(i)) for i in index)
            lines.append(f"{name}[{where}] = {float(target[name][index]):.3f}")
    return "```edits\n" + "\n".join(lines) + "\n```\n"


def rule_reply(shown: dict[str, np.ndarray]) -> str:
    b3 = shown["b3"]
    action = int(np.argmax(b3))
    if b3[action] - np.median(np.delete(b3, action)) <= RULE_GAP:
        return "```edits\n```\n"
    return f"```edits\nb3[{action}] -= {RULE_SHIFT:g}\n```\n"


def sibling_reply(shown: dict[str, np.ndarray], siblings: list[dict[str, np.ndarray]]) -> str:
    """Each weight set to the value shown by most of the game's repair prompts (this one included)."""
    target = {}
    for name in MINATAR_NETWORK.shapes:
        stack = np.stack([sibling[name] for sibling in siblings])
        values = stack.reshape(len(siblings), -1)
        chosen = np.array(
            [Counter(column.tolist()).most_common(1)[0][0] for column in values.T], dtype=np.float32
        ).reshape(stack.shape[1:])
        target[name] = chosen
    return edits_to(target, shown)


def repair_floors(task, siblings: list[dict[str, np.ndarray]]) -> dict[str, dict]:
    shown = shown_weights(task, "THE DAMAGED NETWORK")
    replies = {"rule": rule_reply(shown), "siblings": sibling_reply(shown, siblings)}
    floors = {}
    for name, reply in replies.items():
        score = task.grade(reply, ONE_WORKER)
        floors[name] = {"score": score.normalized, "interval": list(score.interval()), "error": score.error}
    return floors


# --- the run --------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="identify*,repair/*")
    options = parser.parse_args()
    console = Console()
    tasks = select(options.tasks)
    found, started = {}, time.perf_counter()
    shown_damaged = defaultdict(list)
    for task in tasks:
        if task.family == "repair":
            shown_damaged[task.binding.game].append(shown_weights(task, "THE DAMAGED NETWORK"))
    for task in track(tasks, description="floors", console=console):
        if task.family == "repair":
            floors = repair_floors(task, shown_damaged[task.binding.game])
        else:
            floors = identify_floors(task)
        found[task.id] = {"digest": get_task(task.id).digest(), "floors": floors}
    data = json.loads(DATA.read_text())
    section = data.get("reading", {}) if data.get("reading", {}).get("format") == FORMAT else {}
    reading = {task.id for task in select("identify*,repair/*")}  # tasks that are gone are dropped
    tasks_found = {task_id: e for task_id, e in {**section.get("tasks", {}), **found}.items() if task_id in reading}
    data["reading"] = {
        "format": FORMAT,
        "settings": {"occupancy": [OCCUPANCY_EPISODES, OCCUPANCY_STEPS, OCCUPANCY_SEED], "rule_gap": RULE_GAP},
        "tasks": tasks_found,
    }
    DATA.write_text(json.dumps(data, indent=1) + "\n")
    DOC.write_text(document(data))
    console.print(f"{len(found)} tasks in {time.perf_counter() - started:.0f} s", markup=False)
    for family, (count, means) in reading_floors(found, current_only=False).items():  # the tasks measured now
        text = ", ".join(f"{name} {mean:.3f}" for name, mean in means.items())
        console.print(f"{family} ({count} tasks): {text}", markup=False)


if __name__ == "__main__":
    main()
