"""The tables of runs, read from their records: one row per task and reply (`summary.md`, `wsp run`,
`wsp runs show`), a run's scores with their intervals, and the comparison of runs (`wsp runs compare`).

A run with `--samples K` has K independent replies per task. A task's score is then the mean over its
replies that finished, and `best_of_k` the mean over tasks of the best reply's score; both have intervals.

Writing weights and reading them are two skills (`Task.skill`, declared in the registry), so every summary leads
with two headlines, never one mean over both: the writing score and the reading score (`run_scores`), each the
family-weighted mean of its families (each family counting once however many tasks it has), with a bootstrap
interval that draws tasks within their family, and its task count. Under them come the per-family means
(`family_scores`, the one function behind `wsp run`, `runs show`, `runs compare`, `wsp report` and Inspect's
metrics): a family is what a task id names before its "/" (original, synth, gen, superbeam, identify,
identify-choice, repair). Where a family's tasks name a finer part (`Task.breakdown`: repair's damage kind), each
part gets its own mean and interval below its family's. Beside each mean stands the mean of the same replies'
unclipped scores (`Score.unclipped`, raw / cap: `mean_unclipped`), which shows what clipping at the cap hides;
the headlines stay the clipped means, and a reply above its cap is flagged in the rows.

Comparing runs never averages over different task sets: each run's scores are taken over the tasks that
finished ("ok", or "corrupt" as 0) in every compared run (`shared_tasks`), the rows say which tasks were left
out, and each pair of runs gets its paired difference per skill with a 95% interval. Runs that differ in a
setting that changes scores (episodes, protocol, rounds, suite, task set) are compared with one warning per
difference (`comparison_warnings`); runs scored on another number of episodes than the first run are not ranked.
"""

from __future__ import annotations

import functools
import hashlib

from wspbench.harness.record import CORRUPT, TIME_LIMIT, Manifest, TaskRecord
from wspbench.statistics import Sample, aggregate_interval, difference_interval
from wspbench.tasks import all_tasks
from wspbench.tasks.spec import SKILLS, family_of
from wspbench.words import count

COLUMNS = (
    "task",
    "sample",
    "status",
    "test_score",
    "test_unclipped",
    "train_score",
    "best_round",
    "rounds",
    "parse_errors",
    "truncated",
    "prompt_tokens",
    "completion_tokens",
    "model_s",
    "total_s",
    "error",
)
COUNTED = ("ok", TIME_LIMIT, CORRUPT)  # the statuses whose held-out score counts in a mean (TaskRecord.counted)
AGENT_COLUMNS = ("blocks", "passes", "block_s")  # a run of the agent protocol's rows also have these


def summary_rows(records: list[TaskRecord], manifest: Manifest) -> list[dict]:
    """A row per task of the manifest and reply (`sample`, 0 to K - 1), in order; those without a record yet
    are "pending"."""
    by_key = {(r.task, r.sample): r for r in records}
    rows = []
    for task_id in manifest.tasks:
        for sample in range(manifest.config.samples):
            record = by_key.get((task_id, sample))
            if record is None:
                rows.append({**{c: None for c in COLUMNS}, "task": task_id, "sample": sample, "status": "pending"})
                continue
            usage = record.usage or {}
            rows.append(
                {
                    "task": task_id,
                    "sample": sample,
                    "status": record.status,
                    "test_score": record.test_score,
                    "test_unclipped": record.test_unclipped,
                    "train_score": record.train_score,
                    "best_round": record.best_round,
                    "rounds": len(record.rounds),
                    "parse_errors": len(record.parse_errors),
                    "truncated": record.truncated_replies,
                    "prompt_tokens": usage.get("prompt_tokens"),
                    "completion_tokens": usage.get("completion_tokens"),
                    "model_s": record.timings.get("model_s"),
                    "total_s": record.timings.get("total_s"),
                    "error": record.error or (record.test.error if record.test else None),
                    "blocks": sum(b.status != "not run" for b in _blocks(record)),
                    "passes": record.passes,
                    "block_s": round(sum(b.seconds for b in _blocks(record)), 3),
                }
            )
    return rows


def columns(manifest: Manifest) -> tuple[str, ...]:
    """The row columns a run's tables show: the agent protocol's add its blocks, passes and their seconds."""
    return COLUMNS + AGENT_COLUMNS if manifest.config.protocol.kernel else COLUMNS


def audit_rows(records: list[TaskRecord]) -> list[dict]:
    """Every block of an agent run, in order: task, turn, kind, status, seconds, passes, training score and the
    first line of its output (the record keeps the code and the whole output)."""
    rows = []
    for record in records:
        for entry in record.rounds:
            for block in entry.blocks:
                first = block.output.strip().splitlines()[0] if block.output.strip() else ""
                rows.append(
                    {
                        "task": record.task + (f" @{record.sample}" if record.sample else ""),
                        "turn": entry.number,
                        "kind": block.kind,
                        "status": block.status,
                        "seconds": block.seconds,
                        "passes": block.passes,
                        "train_score": None if block.train is None else block.train.normalized,
                        "output": first[:80],
                    }
                )
    return rows


def _blocks(record: TaskRecord) -> list:
    return [block for entry in record.rounds for block in entry.blocks]


def _task_scores(rows: list[dict], tasks: set[str] | None = None) -> dict[str, list[float]]:
    """The held-out scores of each task's finished replies (a reply that failed to parse counts as 0)."""
    scores: dict[str, list[float]] = {}
    for r in rows:
        if r["status"] in COUNTED and (tasks is None or r["task"] in tasks):
            scores.setdefault(r["task"], []).append(r["test_score"])
    return scores


Replies = dict[str, list[tuple[float, Sample]]]  # per task id: each finished reply's (score, held-out episodes)


def replies_of(records: list[TaskRecord], tasks: set[str] | None = None, unclipped: bool = False) -> Replies:
    """Each task's finished replies ("ok") and unreadable ones ("corrupt", 0), or those of `tasks`: the recorded
    held-out score (a reply that failed to parse: 0, no episodes), or with `unclipped` its unclipped score, and
    its episodes for the intervals."""
    found: Replies = {}
    for r in records:
        if r.counted and (tasks is None or r.task in tasks):
            sample = r.test.sample() if r.test is not None else Sample((), 1.0)
            found.setdefault(r.task, []).append(((r.test_unclipped if unclipped else r.test_score) or 0.0, sample))
    return found


def _mean(found: list[tuple[float, Sample]]) -> float:
    """A task's score: the mean over its replies."""
    return sum(value for value, _ in found) / len(found)


@functools.lru_cache(maxsize=1)
def _breakdowns() -> dict[str, str]:
    return {task.id: task.breakdown for task in all_tasks() if task.breakdown}


def part_scores(replies: Replies, unclipped: Replies) -> list[dict]:
    """The mean and 95% interval of each part of a family (`Task.breakdown`), in family order, then by name, and
    the mean of the same replies' `unclipped` scores."""
    parts: dict[tuple[str, str], list[str]] = {}
    for task in sorted(replies):
        if task in _breakdowns():
            parts.setdefault((family_of(task), _breakdowns()[task]), []).append(task)
    ranks = _family_rank()
    rows = []
    for (family, part), mine in sorted(parts.items(), key=lambda item: (ranks.get(item[0][0], len(ranks)), item[0])):
        samples = [[sample for _, sample in replies[t]] for t in mine]
        rows.append(
            {
                "family": family,
                "part": part,
                "tasks": len(mine),
                "mean_test_score": sum(_mean(replies[t]) for t in mine) / len(mine),
                "ci95": list(aggregate_interval(samples)),
                "mean_unclipped": sum(_mean(unclipped[t]) for t in mine) / len(mine),
            }
        )
    return rows


@functools.lru_cache(maxsize=1)
def _family_rank() -> dict[str, int]:
    ranks: dict[str, int] = {}
    for task in all_tasks():
        ranks.setdefault(family_of(task.id), len(ranks))
    return ranks


def families(task_ids) -> list[str]:
    """The families of these task ids, in suite order (the registry's), unknown ones after, by name."""
    ranks = _family_rank()
    return sorted({family_of(t) for t in task_ids}, key=lambda f: (ranks.get(f, len(ranks)), f))


def family_means(replies: Replies, best: bool = False) -> tuple[dict[str, float], float | None]:
    """Per family (suite order) the mean of its tasks' scores (a task's: the mean over its replies, or with
    `best` the best reply's), and the family-weighted mean of them (each family counts once; None for none)."""
    tasks = sorted(replies)

    def score(task: str) -> float:
        return max(value for value, _ in replies[task]) if best else _mean(replies[task])

    means = {}
    for name in families(tasks):
        mine = [t for t in tasks if family_of(t) == name]
        means[name] = sum(map(score, mine)) / len(mine)
    return means, sum(means.values()) / len(means) if means else None


def family_scores(replies: Replies, best: bool = False) -> dict:
    """Per family (suite order): its tasks, the mean of their scores (`family_means`) and the 95% interval;
    then `mean` and `ci95`, the family-weighted mean (each family counts once) and its interval. Tasks are taken
    in sorted order, so every caller gets the same bootstrap draws, and so the same interval, for the same run."""
    tasks = sorted(replies)
    means, mean = family_means(replies, best)
    rows, ordered, groups = [], [], []
    for name in means:
        mine = [t for t in tasks if family_of(t) == name]
        samples = [[sample for _, sample in replies[t]] for t in mine]
        rows.append(
            {
                "family": name,
                "tasks": len(mine),
                "mean": means[name],
                "ci95": list(aggregate_interval(samples, best)),
            }
        )
        ordered += samples
        groups += [name] * len(mine)
    return {
        "families": rows,
        "tasks": len(tasks),
        "mean": mean,
        "ci95": list(aggregate_interval(ordered, best, groups)) if rows else None,
    }


@functools.lru_cache(maxsize=1)
def _skills() -> dict[str, str]:
    """Each registered task id's skill (`Task.skill`), and each family's (for ids this wspbench lacks)."""
    found: dict[str, str] = {}
    for task in all_tasks():
        found[task.id] = task.skill
        found.setdefault(family_of(task.id), task.skill)
    return found


def skill_of(task_id: str) -> str:
    """ "writing" or "reading", as the registry declares it (`Task.skill`); a task it lacks takes its family's,
    else writing."""
    return _skills().get(task_id) or _skills().get(family_of(task_id), "writing")


def by_skill(replies: Replies) -> dict[str, Replies]:
    """The replies of each skill that has any, in SKILLS order."""
    split: dict[str, Replies] = {}
    for skill in SKILLS:
        mine = {task: found for task, found in replies.items() if skill_of(task) == skill}
        if mine:
            split[skill] = mine
    return split


def headline(replies: Replies, samples: int = 1, unclipped: Replies | None = None) -> dict:
    """One skill's score: its family-weighted mean with its 95% interval, its task count and its families (each
    with its mean and interval); with several replies per task the best-of-K figures too; with `unclipped` (the
    same replies' unclipped scores: `replies_of`) `mean_unclipped` beside each mean, weighted alike."""
    means = family_scores(replies)
    found = {
        "mean_test_score": means["mean"],
        "ci95": means["ci95"],
        "tasks": means["tasks"],
        "families": [
            {"family": row["family"], "tasks": row["tasks"], "mean_test_score": row["mean"], "ci95": row["ci95"]}
            for row in means["families"]
        ],
    }
    if unclipped is not None:
        by_family, found["mean_unclipped"] = family_means(unclipped)
        for row in found["families"]:
            row["mean_unclipped"] = by_family[row["family"]]
    if samples > 1:
        best = family_scores(replies, best=True)
        for row, best_row in zip(found["families"], best["families"], strict=True):
            row.update(best_of_k=best_row["mean"], best_of_k_ci95=best_row["ci95"])
        found["best_of_k"], found["best_of_k_ci95"] = best["mean"], best["ci95"]
    return found


def run_scores(manifest: Manifest, records: list[TaskRecord], tasks: set[str] | None = None) -> dict:
    """A run's two headlines, `writing` and `reading` (`headline`: each family-weighted over its own families,
    with its interval, task count and per-family rows; None for a skill the run has no finished task of), never
    one mean over both skills; the parts of families that have them (`part_scores`). Each mean has the mean of
    the unclipped scores beside it (`mean_unclipped`)."""
    replies, unclipped = replies_of(records, tasks), replies_of(records, tasks, unclipped=True)
    split, split_unclipped = by_skill(replies), by_skill(unclipped)
    scores = {"tasks": len(replies), "samples": manifest.config.samples, "weighting": "family"}
    for skill in SKILLS:
        scores[skill] = (
            headline(split[skill], manifest.config.samples, split_unclipped[skill]) if skill in split else None
        )
    parts = part_scores(replies, unclipped)
    if parts:
        scores["parts"] = parts
    return scores


def headlines(scores: dict) -> list[tuple[str, dict]]:
    """The skills a run's scores have, with their headline, in SKILLS order."""
    return [(skill, scores[skill]) for skill in SKILLS if scores.get(skill)]


def interval_text(interval) -> str:
    return "-" if interval is None else f"{interval[0]:.4f} to {interval[1]:.4f}"


def family_lines(scores: dict) -> list[str]:
    """`run_scores` as text: the writing and the reading score (each family-weighted, with its 95% interval, task
    count and unclipped mean), then per family one line (mean, interval, tasks, unclipped mean) and the parts of a
    family below it."""
    k = scores["samples"]
    lines, rows = [], []
    for skill, head in headlines(scores):
        families = len(head["families"])
        line = f"{skill} score {head['mean_test_score']:.4f} ({interval_text(head['ci95'])}), "
        line += count(head["tasks"], "task")
        line += (
            f", family-weighted over {count(families, 'family', 'families')} (each counts once)" if families > 1 else ""
        )
        line += f"; unclipped {head['mean_unclipped']:.4f}"
        if k > 1:
            line += f"; best of {k} {head['best_of_k']:.4f} ({interval_text(head['best_of_k_ci95'])})"
        lines.append(line)
        rows += head["families"]
    if rows:
        lines.append("per family:")
    for row in rows:
        line = f"  {row['family']:<16} {row['mean_test_score']:.4f} ({interval_text(row['ci95'])}), "
        line += count(row["tasks"], "task") + f"; unclipped {row['mean_unclipped']:.4f}"
        if k > 1:
            line += f"; best of {k} {row['best_of_k']:.4f} ({interval_text(row['best_of_k_ci95'])})"
        lines.append(line)
        for part in (part for part in scores.get("parts", []) if part["family"] == row["family"]):
            name = f"    {part['part']}"
            lines.append(f"{name:<18} {part['mean_test_score']:.4f} ({interval_text(part['ci95'])}), ")
            lines[-1] += count(part["tasks"], "task") + f"; unclipped {part['mean_unclipped']:.4f}"
    return lines or ["no finished task"]


def scores_text(scores: dict) -> str:
    """`run_scores` in a few lines: the writing and the reading score, then the held-out score per family."""
    replies = f", {count(scores['samples'], 'reply', 'replies')} per task" if scores["samples"] > 1 else ""
    return "mean held-out scores (95% interval)" + replies + ":\n" + "\n".join(family_lines(scores))


def cell(column: str, value) -> str:
    if value is None:
        return "-"
    if column in ("test_score", "train_score"):
        return f"{value:.4f}"
    if column == "test_unclipped":  # above 1: the normalised score, 1.0, hides by how much
        return f"{value:.4f}" + (" (above the cap)" if value > 1.0 else "")
    if column in ("model_s", "total_s", "block_s"):
        return f"{value:.1f}"
    if column == "error":
        text = str(value).replace("|", "/").replace("\n", " ")
        return text if len(text) <= 80 else text[:77] + "..."
    return str(value)


def suite_label(suite: dict) -> str:
    return f"{suite.get('name')} {suite.get('version')} {str(suite.get('digest'))[:12]}"


def summary_markdown(manifest: Manifest, rows: list[dict], scores: dict) -> str:
    config = manifest.config
    k = scores["samples"]
    per_task = f", {count(k, 'reply', 'replies')} per task" if k > 1 else ""
    best_head = f" best of {k} | 95% interval |" if k > 1 else ""
    lines = [
        f"# {config.model} · {config.protocol.name}",
        "",
        f"Held-out scores over {scores['tasks']} of {count(len(manifest.tasks), 'task')} "
        f"(suite {suite_label(manifest.suite)}){per_task}. Writing and reading "
        "are two skills: each has its own score, family-weighted over its families (each family counts once). "
        "Unclipped: raw / cap, which a reply above its cap takes past 1 (its score stays 1).",
        "",
        "| score | tasks | families | mean | 95% interval | unclipped mean |" + best_head,
        "|---|---|---|---|---|---|" + ("---|---|" if k > 1 else ""),
    ]
    for skill, head in headlines(scores):
        best = f" {head['best_of_k']:.4f} | {interval_text(head['best_of_k_ci95'])} |" if k > 1 else ""
        lines.append(
            f"| {skill} | {head['tasks']} | {len(head['families'])} | {head['mean_test_score']:.4f} | "
            f"{interval_text(head['ci95'])} | {head['mean_unclipped']:.4f} |{best}"
        )
    lines += ["", "| family | skill | tasks | mean | 95% interval | unclipped mean |" + best_head]
    lines.append("|---|---|---|---|---|---|" + ("---|---|" if k > 1 else ""))
    for skill, head in headlines(scores):
        for row in head["families"]:
            best = f" {row['best_of_k']:.4f} | {interval_text(row['best_of_k_ci95'])} |" if k > 1 else ""
            lines.append(
                f"| {row['family']} | {skill} | {row['tasks']} | {row['mean_test_score']:.4f} | "
                f"{interval_text(row['ci95'])} | {row['mean_unclipped']:.4f} |{best}"
            )
            for part in (part for part in scores.get("parts", []) if part["family"] == row["family"]):
                lines.append(
                    f"| {row['family']}: {part['part']} | {skill} | {part['tasks']} | {part['mean_test_score']:.4f} | "
                    f"{interval_text(part['ci95'])} | {part['mean_unclipped']:.4f} |" + (" | |" if k > 1 else "")
                )
    shown = columns(manifest)
    lines += ["", "| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    lines += ["| " + " | ".join(cell(c, r[c]) for c in shown) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def audit_markdown(records: list[TaskRecord]) -> str:
    """The agent run's blocks (`audit_rows`) as a Markdown table; "" for a run without blocks."""
    rows = audit_rows(records)
    if not rows:
        return ""
    names = ("task", "turn", "kind", "status", "seconds", "passes", "train_score", "output")
    lines = ["## Blocks", "", "| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    for row in rows:
        values = [row["task"], row["turn"], row["kind"], row["status"], f"{row['seconds']:.2f}", row["passes"]]
        values += [cell("train_score", row["train_score"]), cell("error", row["output"])]
        lines.append("| " + " | ".join(str(v) for v in values) + " |")
    return "\n".join(lines) + "\n"


COMPARED_SETTINGS = ("protocol", "rounds", "episodes", "train_episodes", "passes", "handoff", "samples", "held_out")
WHY = {  # what a difference means, said with its warning
    "episodes": "intervals over unlike episode counts are not ranked together",
    "held_out": "fixed episodes or ones drawn by a secret: comparable in distribution, not episode by episode",
    "suite": "different suites: a prompt, game or episode set differs, so scores may not be comparable",
    "tasks": "scores are taken over the tasks finished in every run",
}


def comparison_warnings(runs: list[tuple[str, Manifest, list[TaskRecord]]]) -> list[str]:
    """One line per setting in which the runs differ (which runs, which values): the settings that change what a
    score measures, the suite (its digest) and the task set."""
    if len(runs) < 2:
        return []
    found = []
    values = {
        **{name: [m.config.to_json()[name] for _, m, _ in runs] for name in COMPARED_SETTINGS},
        "suite": [str(m.suite.get("digest"))[:12] for _, m, _ in runs],
        "tasks": [_task_set(m.tasks) for _, m, _ in runs],
    }
    for setting, seen in values.items():
        if len(set(seen)) > 1:
            shown = ", ".join(f"{name} {value}" for (name, _, _), value in zip(runs, seen, strict=True))
            found.append(
                f"warning: the runs differ in {setting} ({shown})" + (f": {WHY[setting]}" if setting in WHY else "")
            )
    return found


def _task_set(tasks: list[str]) -> str:
    return f"{count(len(tasks), 'task')} ({hashlib.sha256(' '.join(sorted(tasks)).encode()).hexdigest()[:8]})"


def comparison(runs: list[tuple[str, Manifest, list[TaskRecord]]], by: str = "writing") -> dict:
    """The comparison of runs (each: a name, its manifest and its records), ranked by their `by` score ("writing"
    or "reading"). Everything is over `shared_tasks`, the tasks finished in every run: each run's writing and
    reading scores and per-family means (`run_scores`), and for each pair of runs the paired difference of each
    skill's score with its interval (`wspbench/statistics.py`, tasks drawn within their family). A run scored on
    another number of episodes than the first is listed with `rank` None (intervals of unlike episode counts are
    not ranked as if equal); `warnings` names every setting the runs differ in. `same_suite` is False for a run
    whose suite differs from the first's."""
    if by not in SKILLS:
        raise ValueError(f"rank by one of {', '.join(SKILLS)}, not {by!r}")
    rows_of = {name: summary_rows(records, manifest) for name, manifest, records in runs}
    records_of = {name: records for name, _, records in runs}
    common: set[str] | None = None
    for rows in rows_of.values():
        done = {r["task"] for r in rows if r["status"] in COUNTED}
        common = done if common is None else common & done
    shared = sorted(common or set())
    samples = {name: _samples(records, shared) for name, _, records in runs}
    listed = sorted({r["task"] for rows in rows_of.values() for r in rows})
    first_suite = runs[0][1].suite if runs else {}
    first_episodes = runs[0][1].config.protocol.episodes if runs else None
    table = []
    for name, manifest, _ in runs:
        config, rows = manifest.config, rows_of[name]
        row = {
            "run": name,
            "model": config.model,
            "protocol": config.protocol.name,
            "rounds": config.protocol.rounds,
            "episodes": config.protocol.episodes,
            "samples": config.samples,
            "suite": manifest.suite,
            "same_suite": manifest.suite == first_suite,
            "tasks_ok": len(_task_scores(rows)),
            "tasks": len(manifest.tasks),
            "left_out": sorted({r["task"] for r in rows} - set(shared)),
        }
        scores = run_scores(manifest, records_of[name], set(shared))
        row.update({key: value for key, value in scores.items() if key not in ("tasks", "samples")})
        table.append(row)

    def score(row: dict) -> float:
        return row[by]["mean_test_score"] if row.get(by) else -1.0

    table.sort(key=lambda r: (r["episodes"] == first_episodes, score(r)), reverse=True)
    rank = 0
    for row in table:
        rank += row["episodes"] == first_episodes
        row["rank"] = rank if row["episodes"] == first_episodes else None
    pairs = []
    for i, first in enumerate(table):
        for second in table[i + 1 :]:
            for skill in SKILLS:
                mine = [k for k, t in enumerate(shared) if skill_of(t) == skill]
                if not mine or not first.get(skill) or not second.get(skill):
                    continue
                a = [samples[first["run"]][k] for k in mine]
                b = [samples[second["run"]][k] for k in mine]
                pairs.append(
                    {
                        "a": first["run"],
                        "b": second["run"],
                        "skill": skill,
                        "mean_difference": first[skill]["mean_test_score"] - second[skill]["mean_test_score"],
                        "ci95": list(
                            difference_interval(
                                list(zip(a, b, strict=True)), groups=[family_of(shared[k]) for k in mine]
                            )
                        ),
                    }
                )
    return {
        "by": by,
        "shared_tasks": shared,
        "tasks_left_out": [t for t in listed if t not in common],
        "same_suite": all(r["same_suite"] for r in table),
        "warnings": comparison_warnings(runs),
        "runs": table,
        "pairs": pairs,
    }


def _samples(records: list[TaskRecord], tasks: list[str]) -> list[list[Sample]]:
    """The held-out episodes of each finished reply of `tasks`, in that order (a reply that failed to parse:
    none, scored 0)."""
    replies: dict[str, list[Sample]] = {t: [] for t in tasks}
    for r in records:
        if r.task in replies and r.counted:
            replies[r.task].append(r.test.sample() if r.test is not None else Sample((), 1.0))
    return [replies[t] for t in tasks]
