"""Fuzz the parsers of untrusted text at scale: edits replies, SUPERBEAM JSON replies, trajectory files, run
records, and identify and repair replies (through the Task API's `read` and `check`).

Draws --count inputs (default 100,000) from the generators in tests/fuzz_inputs.py: grammar-aware mutations
of the shipped programs and of the reference network, programs drawn from the edits grammar, random text
and bytes, trajectories around such replies, structural bombs up to the size limits, run directories whose
manifest or record is damaged (read as `wsp runs show/compare`, `wsp report` and a resumed run read them),
mutated identify replies and mutated repair replies. Small edits replies are also compared with the seed
grader's parser (tests/data/seed_edits.py): same acceptance, same weights; repair replies with the seed's edits
applied to the damaged network; an accepted run record must serve every reader and write back unchanged; a
clean identify reply must vote for the game it names. It prints the inputs tried, crashes (an exception other
than the parser's own error), mismatches (with the seed, or a broken rule above), hangs (over --bound seconds
of CPU time, so that a busy machine does not make one), and the slowest and the largest-memory case. Time is
measured without tracing; memory (tracemalloc peak) on every input over 20,000 characters and on 1 in 500
others. --workers splits the inputs over processes.

    python benchmarks/fuzz.py [--count 100000] [--seed 0] [--bound 1.0] [--workers 1]
    python benchmarks/fuzz.py --bombs     # each edits bomb at the reply limit: CPU time and memory
    python benchmarks/fuzz.py --families "record round trip"   # only these families
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import tempfile
import time
import traceback
import tracemalloc
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import fuzz_inputs as inputs

FAMILIES = {  # name: (weight, make(rng) -> (label, input), check(input, folder) -> Outcome)
    "edits mutation": (30, lambda rng: ("", inputs.mutate_program(rng)), "seed"),
    "edits grammar": (20, lambda rng: ("", inputs.grammar_program(rng)), "seed"),
    "edits random text": (10, lambda rng: ("", inputs.random_text(rng)), "seed"),
    "edits random bytes": (10, lambda rng: ("", inputs.random_bytes(rng)), "seed"),
    "edits bomb": (0.4, inputs.edits_bomb, "edits"),
    "json mutation": (12, lambda rng: ("", inputs.mutate_json(rng)), "json"),
    "json random text": (5, lambda rng: ("", inputs.random_json_text(rng)), "json"),
    "json bomb": (0.2, inputs.json_bomb, "json"),
    "trajectory": (
        11.5,
        lambda rng: (
            "",
            inputs.trajectory_text(
                rng, rng.choice([inputs.mutate_program, inputs.random_text, inputs.mutate_json])(rng)
            ),
        ),
        "trajectory",
    ),
    "run record": (8, lambda rng: ("", inputs.run_files_text(rng)), "record"),
    "run record resumed": (2, lambda rng: ("", inputs.run_files_text(rng)), "record resumed"),
    "record round trip": (6, lambda rng: ("", inputs.record_case(rng)), "round trip"),
    "identify mutation": (
        6,
        lambda rng: ("", (rng.choice(inputs.identify_tasks()), *inputs.identify_reply(rng))),
        "identify",
    ),
    "identify bomb": (
        0.5,
        lambda rng: ("", (rng.choice(inputs.identify_tasks()), "", inputs.identify_bomb(rng)[1])),
        "identify",
    ),
    "repair mutation": (8, lambda rng: ("", inputs.repair_reply(rng)), "repair"),
}


def size(payload) -> int:
    """Characters of an input (a reply, or a run directory's two files)."""
    if isinstance(payload, str):
        return len(payload)
    return sum(len(part) if isinstance(part, str) else len(repr(part)) for part in payload)


def shown(payload) -> str:
    texts = [payload] if isinstance(payload, str) else [p for p in payload if isinstance(p, str)] or [repr(payload)]
    return repr(texts[-1][:120])


def run_one(kind: str, text, folder: Path):
    """Check one input; `text` is a reply, or for the newer families a tuple (see FAMILIES)."""
    if kind == "round trip":  # (a record with hostile texts, a size limit for `fit`)
        return inputs.check_record_round_trip(text, folder)
    if kind.startswith("record"):  # (what was damaged, manifest text, record text)
        return inputs.check_run_files(text[1], text[2], folder, resume=kind == "record resumed")
    if kind == "identify":  # (task, the game a clean reply names or "", reply)
        task, named, reply = text
        return inputs.check_identify(reply, named, task)
    if kind == "repair":  # (task, reply)
        task, reply = text
        return inputs.check_repair(reply, task)
    if kind == "seed":
        return inputs.compare_with_seed(text)
    if kind == "edits":
        return inputs.check_edits(text)
    if kind == "json":
        return inputs.check_json(text)
    return inputs.check_trajectory(text, folder)


def run_shard(job: tuple[int, int, int, float, tuple[str, ...]]) -> dict:
    """Draw and check `count` inputs of `families` from the random stream (seed, shard); what happened, in
    counts."""
    seed, shard, count, bound, families = job
    warnings.simplefilter("ignore")  # numpy warns on complex -> float32 casts, as in the seed grader
    rng = random.Random(f"{seed}/{shard}")
    names = list(families)
    weights = [FAMILIES[name][0] for name in names]
    tried, crashes, mismatches, hangs = Counter(), [], [], []
    slowest = largest = (0.0, "", 0, 0.0)
    inputs.warm_up()
    with tempfile.TemporaryDirectory() as folder:
        for number in range(count):
            if number and number % 10_000 == 0:
                print(
                    f"... shard {shard}: {number:,} inputs, {len(crashes)} crashes, {len(mismatches)} mismatches, "
                    f"{len(hangs)} hangs",
                    flush=True,
                )
            family = rng.choices(names, weights)[0]
            _, make, kind = FAMILIES[family]
            try:
                label, text = make(rng)
            except Exception:  # noqa: BLE001 (a generator's bug is counted, never stops the shard)
                crashes.append(f"{family} generator (shard {shard} #{number}): {traceback.format_exc(limit=3)[-400:]}")
                continue
            what = f"{family}{' ' + label if label else ''} (shard {shard} #{number})"
            tried[family] += 1
            cpu = time.process_time()
            try:
                outcome = run_one(kind, text, Path(folder))
            except AssertionError as error:
                mismatches.append(f"{what}: {str(error)[:200]} (input {shown(text)})")
                continue
            except Exception:  # noqa: BLE001 (counting crashes is the point)
                crashes.append(f"{what}: {traceback.format_exc(limit=3)[-400:]} (input {shown(text)})")
                continue
            cpu = time.process_time() - cpu
            if cpu > bound:
                hangs.append(f"{what}: {cpu:.2f} s CPU, {size(text):,} characters")
            if cpu > slowest[0]:
                slowest = (cpu, what, size(text), outcome.seconds)
            if size(text) > 20_000 or number % 500 == 0:
                tracemalloc.start()
                try:
                    run_one(kind, text, Path(folder))
                except Exception:  # noqa: BLE001, S110 (already counted above)
                    pass
                peak = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
                if peak > largest[0]:
                    largest = (peak, what, size(text), 0.0)
    return {
        "tried": tried,
        "crashes": crashes,
        "mismatches": mismatches,
        "hangs": hangs,
        "slowest": slowest,
        "largest": largest,
    }


def bombs_table() -> None:
    """Every named edits bomb at the reply limit: CPU seconds and tracemalloc peak, one line each."""
    warnings.simplefilter("ignore")
    for name in inputs.EDITS_BOMBS:
        text = inputs.edits_bomb_named(name, inputs.MAX_ANSWER_CHARS - 40)
        cpu = time.process_time()
        outcome = inputs.check_edits(text)
        cpu = time.process_time() - cpu
        tracemalloc.start()
        inputs.check_edits(text)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        print(f"{name:20s} {len(text):>9,} chars {cpu:6.3f} s CPU {peak:6.1f} MB  {outcome.message[:70]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bound", type=float, default=1.0, help="CPU seconds over which an input is a hang")
    parser.add_argument("--workers", type=int, default=1, help="processes, each with its own random stream")
    parser.add_argument("--bombs", action="store_true", help="only time every named edits bomb at the limit")
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated families (default: all)")
    args = parser.parse_args()
    families = tuple(name.strip() for name in args.families.split(","))
    unknown = [name for name in families if name not in FAMILIES]
    if unknown:
        parser.error(f"unknown families {unknown}; choose from {', '.join(FAMILIES)}")
    if args.bombs:
        bombs_table()
        return
    started = time.perf_counter()
    shares = [args.count // args.workers + (shard < args.count % args.workers) for shard in range(args.workers)]
    jobs = [(args.seed, shard, share, args.bound, families) for shard, share in enumerate(shares)]
    if args.workers == 1:
        results = [run_shard(jobs[0])]
    else:
        with multiprocessing.Pool(args.workers) as pool:
            results = pool.map(run_shard, jobs)
    total = time.perf_counter() - started
    tried = sum((result["tried"] for result in results), Counter())
    crashes, mismatches, hangs = (
        [line for result in results for line in result[key]] for key in ("crashes", "mismatches", "hangs")
    )
    slowest = max(result["slowest"] for result in results)
    largest = max(result["largest"] for result in results)
    print(
        f"inputs tried: {sum(tried.values()):,} in {total:.0f} s with {args.workers} process(es) "
        f"({', '.join(f'{name} {count:,}' for name, count in sorted(tried.items()))})"
    )
    print(f"crashes: {len(crashes)}")
    print(f"mismatches (with the seed grader's parser, or a rule of the checks): {len(mismatches)}")
    print(f"hangs (over {args.bound:g} s of CPU): {len(hangs)}")
    print(f"slowest: {slowest[1]} ({slowest[2]:,} characters): {slowest[0]:.3f} s CPU, {slowest[3]:.3f} s wall")
    print(f"largest memory: {largest[1]} ({largest[2]:,} characters): {largest[0]:.1f} MB (tracemalloc peak)")
    for line in (crashes + mismatches + hangs)[:20]:
        print("  " + line)
    sys.exit(1 if crashes or mismatches or hangs else 0)


if __name__ == "__main__":
    main()
