"""Start-up time of the `wsp` command: `wsp --help`, `wsp games`, `wsp games --json`, `wsp suite` (which renders
every prompt of the suite for its digest), a warm 10-episode `wsp grade` of an original and of a synthetic game
(the README's one-line answer, and the game's reference program) and the same through `wsp verify`, each run as a
new process (as a user runs it), best of N runs, beside `python -c "import numpy"` in the same run; also the
modules that a command imports longest.

    python benchmarks/startup.py [--runs 7] [--imports]

The goal is under 0.5 s for each but `wsp suite`, and under 1 s for it (src/wspbench/cli/app.py: commands import
what they need when they run; `evaluation/engine.py`: a few episodes play in Python before numba would load).
Timings depend on the machine and its load: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_ANSWER = "Paddle follows nothing; I just go right.\n```edits\nb3[3] = 9\n```\n"  # the README's example
COMMANDS = (["--help"], ["games"], ["games", "--json"], ["suite"])
BASELINES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
}


def graded_commands(folder: Path) -> dict[str, tuple[list[str], dict]]:
    """`wsp grade` and `wsp verify` of 10 episodes: an original and a synthetic game, each with the README's
    one-line answer and with the game's reference program (labels -> command, environment)."""
    answers = {"readme": README_ANSWER}
    for game in ("breakout", "ferry"):
        path = (
            ROOT / ("src/wspbench/references" if game == "breakout" else "src/minatar_synth/references") / f"{game}.txt"
        )
        answers[game] = path.read_text()
    found = {}
    for task, game in (("original/breakout", "breakout"), ("synth/ferry", "ferry")):
        for label in ("readme", game):
            answer = folder / f"{game}-{label}.txt"
            answer.write_text(answers[label])
            trajectory = folder / f"{game}-{label}.json"
            trajectory.write_text(
                json.dumps({"steps": [{"messages": [{"role": "assistant", "content": answers[label]}]}]})
            )
            name = "reference" if label == game else "README answer"
            found[f"grade {task} ({name})"] = (["grade", task, str(answer), "--episodes", "10"], {})
            verify = ["verify", "--trajectory", str(trajectory), "--reward", str(folder / "reward.json")]
            found[f"verify {game} ({name})"] = (verify, {"WEIGHT_SPACE_GAME": game, "WEIGHT_SPACE_EPISODES": "10"})
    return found


def best_of(command: list[str], runs: int, extra: dict | None = None) -> float:
    """The shortest wall time of `runs` runs of `command` (the least disturbed by other work)."""
    env = {**os.environ, "COLUMNS": "120", **(extra or {})}
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - started)
    return min(times)


def slowest_imports(args: list[str], count: int = 12) -> list[tuple[int, str]]:
    """The modules with the largest cumulative import time (python -X importtime) for `wsp ARGS`."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wspbench.cli", *args], capture_output=True, text=True, check=True
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command; the best one counts")
    parser.add_argument("--imports", action="store_true", help="also list the slowest imports of `wsp games`")
    options = parser.parse_args()
    wsp = [sys.executable, "-m", "wspbench.cli"]
    print(f"best of {options.runs} runs, seconds of wall time")
    for label, command in BASELINES.items():
        print(f"  {label:<44} {best_of(command, options.runs):6.3f}")
    for args in COMMANDS:
        print(f"  {'wsp ' + ' '.join(args):<44} {best_of(wsp + args, options.runs):6.3f}")
    with tempfile.TemporaryDirectory() as folder:
        commands = graded_commands(Path(folder))
        for label, (args, env) in commands.items():
            best_of(wsp + args, 1, env)  # warm: numba's cache, the digest cache
            print(f"  {'wsp ' + label:<44} {best_of(wsp + args, options.runs, env):6.3f}")
    if options.imports:
        print("slowest imports of `wsp games` (cumulative microseconds):")
        for microseconds, module in slowest_imports(["games"]):
            print(f"  {microseconds:>9,} {module}")


if __name__ == "__main__":
    main()
