"""Start-up time of the `wsp` command: `wsp --help`, `wsp games`, `wsp games --json` and `wsp suite` (which
renders every prompt of the suite for its digest), each run as a new process (as a user runs it), best of N runs;
also the modules that the slowest one imports longest.

    python benchmarks/startup.py [--runs 7] [--imports]

The goal is under 0.5 s for each but `wsp suite`, and under 1 s for it (src/wspbench/cli/app.py: commands import
what they need when they run).
Timings depend on the machine and its load: run it on a quiet machine, and compare with a baseline such as
`python -c "import numpy"` printed beside them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

COMMANDS = (["--help"], ["games"], ["games", "--json"], ["suite"])
BASELINES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "python -c 'import numpy'": [sys.executable, "-c", "import numpy"],
}


def best_of(command: list[str], runs: int) -> float:
    """The shortest wall time of `runs` runs of `command` (the least disturbed by other work)."""
    env = {**os.environ, "COLUMNS": "120"}
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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
        print(f"  {label:<28} {best_of(command, options.runs):6.3f}")
    for args in COMMANDS:
        print(f"  {'wsp ' + ' '.join(args):<28} {best_of(wsp + args, options.runs):6.3f}")
    if options.imports:
        print("slowest imports of `wsp games` (cumulative microseconds):")
        for microseconds, module in slowest_imports(["games"]):
            print(f"  {microseconds:>9,} {module}")


if __name__ == "__main__":
    main()
