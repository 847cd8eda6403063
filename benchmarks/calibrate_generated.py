"""Calibrate generated games (a prototype of issue 28, item 2; not wired into the registry): for each seed, write
the game (`minatar_synth.generator`), measure its trivial baselines, train PPO on it with a reduced budget and
keep it only if the trained network clearly beats every trivial player.

    python benchmarks/calibrate_generated.py [--seeds 0-7] [--steps 1000000] [--episodes 200]
                                             [--out /tmp/wspbench-generated] [--results FILE]

Per seed, on one core:
  1. `gen_<seed>.py` is written into `--out`, and `--out` is appended to the package path of
     `minatar_synth.games` in this process only (as tests/games/test_synth.py's fixture does), so the game loads
     as `minatar_synth.games.gen_<seed>` through the normal synthetic-game code (`MinAtarGame(name, "synth")`)
     without touching the shipped package or the registry.
  2. Baselines on the calibration episodes (`MinAtarTask.calibration_episodes`: seeds disjoint from the scoring
     and the training episodes): zero (the all-zero network: uniformly random actions), each constant action
     (`measured.constant_weights`) and RANDOM random networks (`measured.random_weights`), mean returns.
  3. PPO (`wspbench.baselines.ppo.train`) with `--steps` steps on training episodes (its checkpoints are scored
     on the first training episodes, as the task scores them).
  4. The trained network's mean return and its standard error on the same calibration episodes.
Keep rule: kept only if trained >= 2 x best trivial (the best of zero and the constant actions) and
trained - best trivial >= 10 standard errors (of the difference of the two means).
Cap rule (proposed): `synth.cap_rule(--cap-factor x trained mean)`, default factor 4 at a reduced budget of 1M
steps. A score is min(raw, cap) / cap, so a cap at the 1M network's mean would give a 1.0 that stronger networks
cannot pass. On the hand-written synthetic games (docs/training.md) a 10M-step network reached a median 2.3x
(quartiles 1.45x and 7.6x) of the 1M-step one, and a median 0.60 of the cap their scripted player sets; 4 ~ 2.3 /
0.60 puts a generated game's 10M network near that 0.6 and its 1M network near 0.25. At full budget the same aim
gives a factor of about 1.67 (1 / 0.60) on a 10M network's mean, the better rule once calibration can afford it.
Each seed's result is one JSON line appended to `--results` (default `<out>/results.jsonl`); a seed already
there with the same settings is skipped, so an interrupted run resumes. A table is printed at the end.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core: threads would only fight
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402 - after the thread settings, which must come before numpy
import hashlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import minatar_synth.games  # noqa: E402
from minatar_synth import generator  # noqa: E402
from wspbench.baselines.measured import constant_weights, random_weights  # noqa: E402
from wspbench.baselines.ppo import Budget, train  # noqa: E402
from wspbench.games import synth  # noqa: E402
from wspbench.games.minatar import MinAtarGame  # noqa: E402
from wspbench.tasks.minatar import MinAtarTask  # noqa: E402

RANDOM = 5  # random networks per game (measured.RANDOM_NETWORKS is 20: this is a cheaper prototype)
TIMES = 2.0  # kept only if trained >= TIMES x best trivial ...
STANDARD_ERRORS = 10.0  # ... and trained - best trivial >= STANDARD_ERRORS standard errors
CAP_FACTOR = 4.0  # cap = synth.cap_rule(CAP_FACTOR x trained mean) at 1M steps (see above)


def cap_of(trained: float, factor: float) -> float | None:
    return synth.cap_rule(factor * trained) if trained > 0 else None


def seeds_of(text: str) -> list[int]:
    """'0-7' or '0,3,5' or '2'."""
    seeds = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        seeds += range(int(first), int(last or first) + 1)
    return seeds


def importable(folder: Path) -> None:
    """Let modules in `folder` import as `minatar_synth.games.<name>` in this process (nothing is written to the
    package or the registry)."""
    if str(folder) not in minatar_synth.games.__path__:
        minatar_synth.games.__path__.append(str(folder))
    importlib.invalidate_caches()


def mean_and_error(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def calibrate(seed: int, options) -> dict:
    started = time.perf_counter()
    generator.write(seed, options.out)
    importable(options.out)
    name = generator.module_name(seed)
    task = MinAtarTask(MinAtarGame(name, "synth"))
    design = generator.design(seed)
    row = {"seed": seed, "game": name, "settings": settings(options), "description": synth.description(name)}
    row["source_sha256"] = source_digest(seed)
    row["mechanics"] = {
        "layout": design.layout,
        "fire": design.fire,
        "scoring": design.scoring,
        "ending": design.ending,
        "reward_motion": design.reward.motion if design.reward else None,
        "danger_motion": design.danger.motion,
        "max_steps": design.max_steps,
    }
    row["lines"] = len(generator.generate(seed).splitlines())
    seconds = {"generation": round(time.perf_counter() - started, 2)}

    started = time.perf_counter()
    episodes = task.calibration_episodes(options.episodes)
    network = task.network

    def returns(weights):
        return task.score(weights, episodes, workers=1).values

    zero = mean_and_error(returns(network.zeros()))
    constants = [mean_and_error(returns(constant_weights(network, action)))[0] for action in range(6)]
    randoms = [mean_and_error(returns(random_weights(network, k)))[0] for k in range(RANDOM)]
    trivial = max(zero[0], *constants)
    row["baselines"] = {
        "zero": round(zero[0], 3),
        "constant": [round(c, 3) for c in constants],
        "best_constant": int(np.argmax(constants)),
        "random_mean": round(float(np.mean(randoms)), 3),
        "random_best": round(max(randoms), 3),
        "best_trivial": round(trivial, 3),
    }
    seconds["baselines"] = round(time.perf_counter() - started, 1)

    budget = Budget(steps=options.steps, checkpoints=5, checkpoint_episodes=50)
    weights, about = train(task, budget)
    seconds["training"] = about["seconds"]
    row["steps"] = about["steps"]
    row["steps_per_second"] = round(about["steps"] / about["seconds"])

    started = time.perf_counter()
    values = returns(weights)
    trained, error = mean_and_error(values)
    seconds["calibration"] = round(time.perf_counter() - started, 1)
    # The standard error of (trained - best trivial): the trivial player's own spread is counted too.
    trivial_values = returns(
        network.zeros() if trivial == zero[0] else constant_weights(network, int(np.argmax(constants)))
    )
    gap_error = float(np.sqrt(error**2 + mean_and_error(trivial_values)[1] ** 2))
    row["trained"] = {"mean": round(trained, 3), "stderr": round(error, 3), "gap_stderr": round(gap_error, 3)}
    reasons = []
    if not trained >= TIMES * trivial:
        reasons.append(f"trained {trained:.2f} < {TIMES:g} x best trivial {trivial:.2f}")
    if not trained - trivial >= STANDARD_ERRORS * gap_error:
        reasons.append(f"gap {trained - trivial:.2f} < {STANDARD_ERRORS:g} standard errors ({gap_error:.2f} each)")
    if trained <= 0:
        reasons.append("trained mean not positive: no cap")
    row["kept"] = not reasons
    row["rejected_because"] = reasons
    row["cap_factor"] = options.cap_factor
    row["cap"] = cap_of(trained, options.cap_factor)
    row["seconds"] = seconds
    return row


def source_digest(seed: int) -> str:
    """A result is reused only for the same settings and the same game text (the generator may have changed)."""
    return hashlib.sha256(generator.generate(seed).encode()).hexdigest()


def settings(options) -> dict:
    return {"steps": options.steps, "episodes": options.episodes, "random_networks": RANDOM}


def show(rows: list[dict]) -> str:
    columns = ["seed", "layout", "fire", "scoring", "ending", "zero", "best const", "random", "trained (se)", "cap",
               "kept", "s gen/base/train/cal", "steps/s"]  # fmt: skip
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for row in rows:
        m, b, t, s = row["mechanics"], row["baselines"], row["trained"], row["seconds"]
        best = max(b["constant"])
        lines.append(
            f"| {row['seed']} | {m['layout']} | {'yes' if m['fire'] else 'no'} | {m['scoring']} | {m['ending']} | "
            f"{b['zero']:.2f} | {best:.2f} ({b['best_constant']}) | {b['random_mean']:.2f} | "
            f"{t['mean']:.2f} ({t['stderr']:.2f}) | {row['cap']} | {'yes' if row['kept'] else 'no'} | "
            f"{s['generation']:.1f}/{s['baselines']:.0f}/{s['training']:.0f}/{s['calibration']:.0f} | "
            f"{row['steps_per_second']:,} |"
        )
    kept = sum(row["kept"] for row in rows)
    lines.append(f"\nkept {kept} of {len(rows)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-7")
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--episodes", type=int, default=200, help="calibration episodes per player")
    parser.add_argument("--out", type=Path, default=Path("/tmp/wspbench-generated"))
    parser.add_argument("--results", type=Path, help="default: <out>/results.jsonl")
    parser.add_argument("--cap-factor", type=float, default=CAP_FACTOR, help="cap = cap_rule(factor x trained)")
    options = parser.parse_args()
    options.out = options.out.resolve()
    options.out.mkdir(parents=True, exist_ok=True)
    results = options.results or options.out / "results.jsonl"
    done = {}
    if results.is_file():
        for line in results.read_text().splitlines():
            row = json.loads(line)
            if row["settings"] == settings(options) and row.get("source_sha256") == source_digest(row["seed"]):
                # The cap follows from the trained mean: a result kept from a run with another factor is re-capped.
                row["cap_factor"], row["cap"] = options.cap_factor, cap_of(row["trained"]["mean"], options.cap_factor)
                done[row["seed"]] = row
    for seed in seeds_of(options.seeds):
        if seed in done:
            continue
        row = calibrate(seed, options)
        with results.open("a") as file:
            file.write(json.dumps(row) + "\n")
        done[seed] = row
        print(f"seed {seed}: {'kept' if row['kept'] else 'rejected'} {row['trained']} {row['seconds']}", flush=True)
    print(show([done[seed] for seed in seeds_of(options.seeds) if seed in done]))


if __name__ == "__main__":
    main()
