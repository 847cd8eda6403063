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
  signs      one prompt: the units whose W1 columns correlate negatively with the others (best single-flip
             signs of the column correlations), negated and scaled to the others' median norm (flip_units)
  aligned    the suite's repair prompts: networks trained from one seed start alike and stay alike, so this
             network's W1 and W2 columns are matched (by |correlation|) with those of the repair prompt whose W2
             columns match best; units whose best match is another unit are moved back, and units that match with
             a negative sign flipped (it undoes flip_units when the two networks share a seed)
  initial    the package: the same with the weights PPO started from, which the public code draws from the public
             set's seed (a private set's seeds come from its key)

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
from wspbench.baselines.ppo import initial
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


def signs_reply(shown: dict[str, np.ndarray]) -> str:
    """Flip back the units whose incoming weights disagree in sign with the rest: the signs s (one per layer-1 unit)
    that maximise sum s_j s_k corr(W1[:, j], W1[:, k]), by single flips from all +1; the smaller side is negated
    and scaled to the other units' median column norm (undoing flip_units if it finds its units)."""
    w1, b1 = np.asarray(shown["W1"], dtype=np.float64), np.asarray(shown["b1"], dtype=np.float64)
    corr = np.nan_to_num(np.corrcoef(w1.T))
    np.fill_diagonal(corr, 0.0)
    signs = np.ones(len(b1))
    changed = True
    while changed:
        changed = False
        for j in range(len(signs)):
            if signs[j] * (corr[j] @ signs) < 0:
                signs[j], changed = -signs[j], True
    minority = np.flatnonzero(signs == (-1 if (signs < 0).sum() <= len(signs) / 2 else 1))
    if not len(minority):
        return "```edits\n```\n"
    norms = np.linalg.norm(w1, axis=0)
    scale = -np.median(np.delete(norms, minority)) / norms[minority]
    target = {name: np.array(shown[name], copy=True) for name in shown}
    target["W1"][:, minority] = w1[:, minority] * scale
    target["b1"][minority] = b1[minority] * scale
    return edits_to(target, shown)


def initial_weights(seed: int) -> dict[str, np.ndarray]:
    """The weights PPO started the network from: public code and the public set's seed (`reading_set.repair_seeds`)."""
    params = initial(MINATAR_NETWORK.sizes, 0.01, np.random.default_rng(seed))
    return dict(zip(MINATAR_NETWORK.shapes, params, strict=True))


def columns_correlation(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a - a.mean(axis=0), b - b.mean(axis=0)
    return (a.T @ b) / np.outer(np.linalg.norm(a, axis=0), np.linalg.norm(b, axis=0)).clip(1e-12)


def aligned_reply(shown: dict[str, np.ndarray], others: list[dict[str, np.ndarray]]) -> str:
    w = {name: np.asarray(shown[name], dtype=np.float64) for name in shown}
    if not others:
        return "```edits\n```\n"

    def match(name: str, other: dict) -> np.ndarray:
        return columns_correlation(w[name], np.asarray(other[name], dtype=np.float64))

    other = max(others, key=lambda o: float(np.abs(np.diag(match("W2", o))).mean()))
    target = {name: np.array(shown[name], copy=True) for name in shown}
    for name, bias in (("W1", "b1"), ("W2", "b2")):
        corr = match(name, other)
        best = np.abs(corr).argmax(axis=1)  # the other network's unit that each shown column matches
        if len(set(best.tolist())) < len(best):
            continue  # not a one-to-one match: no alignment to undo
        for j, i in enumerate(best):
            sign = np.sign(corr[j, i])
            target[name][:, i] = sign * shown[name][:, j]
            target[bias][i] = sign * shown[bias][j]
    return edits_to(target, shown)


def repair_floors(task, siblings: list[dict[str, np.ndarray]], others: list[dict[str, np.ndarray]]) -> dict[str, dict]:
    """`siblings`: the damaged networks of the game's repair prompts; `others`: those of every other repair prompt."""
    shown = shown_weights(task, "THE DAMAGED NETWORK")
    replies = {
        "rule": rule_reply(shown),
        "siblings": sibling_reply(shown, siblings),
        "signs": signs_reply(shown),
        "aligned": aligned_reply(shown, others),
        "initial": aligned_reply(shown, [initial_weights(task.seed)]),
    }
    floors = {}
    for name, reply in replies.items():
        score = task.grade(reply, grading=ONE_WORKER)
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
    shown_damaged, every = defaultdict(list), {}
    for task in select("repair/*"):
        every[task.id] = shown_weights(task, "THE DAMAGED NETWORK")
        shown_damaged[task.binding.game].append(every[task.id])
    for task in track(tasks, description="floors", console=console):
        if task.family == "repair":
            others = [weights for task_id, weights in every.items() if task_id != task.id]
            floors = repair_floors(task, shown_damaged[task.binding.game], others)
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
