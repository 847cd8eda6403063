"""`wsp report`: a static HTML page, a Markdown table and PNG bar charts over one or more run directories.

    OUT/index.html    per-family means, models, task x model scores with 95% intervals, details, replays
    OUT/report.md     the same tables in Markdown
    OUT/models.png    per family, one bar per model with its 95% interval, over the tasks every model finished
    OUT/scores.png    one panel per family: per task, one bar per model, with the 95% interval
    OUT/replays/*.gif the first held-out episode of a few usable answers (`wsp replay`'s rendering): by default
                      one per model and family, each bounded in frames and bytes, within a total time budget

Runs are read through `report/runs.py` (the run record's one reader). Intervals come from each record's
held-out Score (`Score.interval()`, every episode's value is stored): nothing is graded again. Means and
intervals over tasks are per family (`harness/summary.py` `family_scores`, the function `wsp runs show` and
`runs compare` use, so a run shows the same intervals everywhere) and over the tasks every model finished, so
that no model's mean is over other tasks than another's. Writing and reading are never averaged together: each
model has a writing score and a reading score (`harness/summary.py` `headline`: family-weighted, each family
counting once, with its interval and task count). Each run's
suite (name, version, digest) is stated, with a warning when the runs come from different suites, since
their scores are then not comparable.

A reply that held no usable answer scores 0 and is counted as a parse failure, apart from answers that
parsed and scored 0; a task whose endpoint never answered is an error and has no score. Model names and
errors are untrusted text: everything is escaped.
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wspbench.baselines import measured
from wspbench.files import clear_earlier
from wspbench.harness.summary import SKILLS, audit_rows, by_skill, families, headline, replies_of
from wspbench.report import REPLAY_BYTES, REPLAY_SECONDS, REPLAYS_PER_FAMILY
from wspbench.report.runs import Entry, load_run
from wspbench.tasks.spec import family_of
from wspbench.words import count

Progress = Callable[[str, int, int], None]  # (stage, done, total): `wsp report` draws it as a bar on stderr

CHART_WIDTH = 1200  # scores.png: its height grows with the tasks, one row per task, a panel per family
TASK_ROW_PIXELS = 14  # per task and model in scores.png
MODELS_CHART_PIXELS = (1000, 400)
DPI = 100


@dataclass
class ModelRow:
    label: str
    tasks: int
    scored: int
    skills: dict[str, dict]  # per skill with a shared task: its `headline` (family-weighted score, interval, tasks)
    parse_failures: int
    errors: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost: float | None
    families: list[dict] = field(default_factory=list)  # per family over the shared tasks: mean, ci95, tasks, skill
    colour: str = "#000000"  # the model's colour in every chart, legend and table of the report (COLOURS)

    def score(self, skill: str) -> tuple[float | None, tuple[float, float] | None, int]:
        """The skill's family-weighted score, its 95% interval and its task count (None, None, 0 without one)."""
        head = self.skills.get(skill)
        return (None, None, 0) if head is None else (head["mean_test_score"], tuple(head["ci95"]), head["tasks"])


def labels(entries: list[Entry]) -> dict[int, str]:
    """A display label per entry: "model (protocol)", plus the run name when two runs share it."""
    runs_per_label: dict[str, set[str]] = {}
    for e in entries:
        runs_per_label.setdefault(e.label, set()).add(e.run)
    return {id(e): e.label if len(runs_per_label[e.label]) == 1 else f"{e.label} [{e.run}]" for e in entries}


def _total(values):
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def shared_tasks(entries: list[Entry], label_of: dict[int, str]) -> set[str]:
    """The tasks every model (label) has a score for: the only ones its means and charts compare."""
    scored: dict[str, set[str]] = {}
    for e in entries:
        scored.setdefault(label_of[id(e)], set())
        if e.score is not None:
            scored[label_of[id(e)]].add(e.task)
    return set.intersection(*scored.values()) if scored else set()


COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


def model_rows(entries: list[Entry], label_of: dict[int, str]) -> list[ModelRow]:
    shared = shared_tasks(entries, label_of)
    rows = []
    for index, label in enumerate(dict.fromkeys(label_of[id(e)] for e in entries)):
        mine = [e for e in entries if label_of[id(e)] == label]
        records = [e.record for e in mine if e.record is not None]
        split, unclipped = by_skill(replies_of(records, shared)), by_skill(replies_of(records, shared, unclipped=True))
        heads = {skill: headline(replies, unclipped=unclipped[skill]) for skill, replies in split.items()}
        rows.append(
            ModelRow(
                label,
                len(mine),
                sum(e.score is not None for e in mine),
                heads,
                sum(e.parse_failure for e in mine),
                sum(e.status not in ("ok", "corrupt") for e in mine),
                _total(e.prompt_tokens for e in mine),
                _total(e.completion_tokens for e in mine),
                _total(e.cost for e in mine),
                [
                    {"family": f["family"], "tasks": f["tasks"], "mean": f["mean_test_score"], "ci95": f["ci95"]}
                    | {"mean_unclipped": f["mean_unclipped"], "skill": skill}
                    for skill, head in heads.items()
                    for f in head["families"]
                ],
                COLOURS[index % len(COLOURS)],
            )
        )
    return rows


def above_cap_text(e: Entry) -> str:
    """The flag of a reply above its cap, whose normalised score (1.0) hides by how much; else ""."""
    return f" (above the cap: unclipped {e.unclipped:.4f})" if e.test is not None and e.test.above_cap else ""


def score_text(e: Entry) -> str:
    if e.status == "corrupt":
        return "0 (record cannot be read)"
    if e.status != "ok":
        return "error"
    if e.parse_failure:
        return "0 (parse failure)"
    text = f"{e.score:.4f}"
    return text + (f" [{e.ci[0]:.4f}, {e.ci[1]:.4f}]" if e.ci else "") + above_cap_text(e)


def replies_text(found: list[Entry]) -> str:
    """A task's cell for one model: its reply's score, or with K replies (`wsp run --samples K`) their mean and
    then each reply's score, so that no sample is hidden."""
    if len(found) == 1:
        return score_text(found[0])
    scored = [e.score for e in found if e.score is not None]
    mean = f"{sum(scored) / len(scored):.4f}" if scored else "-"
    each = ", ".join("error" if e.score is None else f"{e.score:.4f}{above_cap_text(e)}" for e in found)
    return f"mean {mean} of {count(len(found), 'reply', 'replies')}: {each}"


BASELINE_COLUMNS = ("trivial", "trained", "reference", "optimal")  # beside the models in each task's row


def baseline_cells(task: str) -> list[str]:
    """The task's best trivial baseline, PPO network and reference program (`wsp baselines`), or '-', and its
    `optimal`: the hindsight bound's mean over the cap (unclipped, `Task.optimal`), or '-'."""
    entry = measured.of_task(task)
    cells = ["-"] * (len(BASELINE_COLUMNS) - 1)
    if entry is not None:
        cells = [
            f"{measured.trivial(entry):.4f}",
            f"{entry['trained']['score']:.4f}" if "trained" in entry else "-",
            f"{entry['reference']['score']:.4f}",
        ]
    return [*cells, optimal_text(task)]


def optimal_text(task: str) -> str:
    """The task's hindsight bound as a share of its cap (above 1 where the cap is below what the game allows)."""
    from wspbench.tasks import UnknownTask, get_task

    try:
        found = get_task(task)
    except UnknownTask:
        return "-"
    optimal = found.optimal()
    return "-" if optimal is None else f"{optimal / found.facts.score_cap:.4f}"


def family_rows(entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow]) -> list[dict]:
    """Per family and model, over the shared tasks: tasks, the mean normalised score and its 95% interval, and
    the mean baseline-relative score over the tasks whose baselines were measured (`wspbench/baselines/measured.py`:
    0 at the better of the zero network and the best constant action, 1 at the reference program)."""
    shared = shared_tasks(entries, label_of)
    found = []
    for name in families(shared):
        for row in rows:
            means = {}  # per task: the mean over its replies (`wsp run --samples K`)
            for e in entries:
                if label_of[id(e)] == row.label and e.task in shared and family_of(e.task) == name:
                    means.setdefault(e.task, []).append(e.score)
            relative = [
                measured.relative(sum(s) / len(s), measured.of_task(task))
                for task, s in means.items()
                if measured.of_task(task) is not None
            ]
            relative = [r for r in relative if r is not None]
            scores = next(f for f in row.families if f["family"] == name)
            found.append(
                {
                    "model": row.label,
                    "family": name,
                    "tasks": scores["tasks"],
                    "mean": scores["mean"],
                    "ci95": scores["ci95"],
                    "mean_unclipped": scores["mean_unclipped"],
                    "relative": sum(relative) / len(relative) if relative else None,
                    "with_baselines": len(relative),
                }
            )
    return found


def shared_text(entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow]) -> str:
    """What the means are over: the shared tasks, and how many were left out because some model lacks them."""
    shared = shared_tasks(entries, label_of)
    every = {e.task for e in entries}
    text = f"over the {count(len(shared), 'task')} {'every model' if len(rows) > 1 else 'the model'} finished"
    if len(every) > len(shared):
        why = "not finished by every model" if len(rows) > 1 else "not finished"
        text += f" ({len(every) - len(shared)} other tasks left out: {why})"
    return text


def interval_text(interval: tuple[float, float] | None) -> str:
    return "-" if interval is None else f"{interval[0]:.4f} to {interval[1]:.4f}"


def _num(value, digits: int | None = None) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if digits is not None else f"{value:,}"


def run_suites(entries: list[Entry]) -> dict[str, dict]:
    """Each run's suite (name, version, digest) as its records state it; {} when a record states none."""
    found: dict[str, dict] = {}
    for e in entries:
        if not found.get(e.run):
            found[e.run] = e.suite if isinstance(e.suite, dict) else {}
    return found


def suite_text(suite: dict) -> str:
    if not suite:
        return "unknown"
    return f"{suite.get('name', '?')} {suite.get('version', '?')}, digest {str(suite.get('digest', '?'))[:12]}"


def suite_warning(suites: dict[str, dict]) -> str | None:
    """A warning when the runs do not all come from one known suite: their scores are then not comparable."""
    kinds = {(s.get("name"), s.get("version"), s.get("digest")) if s else None for s in suites.values()}
    if len(kinds) > 1:
        return (
            f"the runs come from {len(kinds)} different suites (or state none): a task's prompt, game or "
            "episodes may differ between them, so their scores are not comparable"
        )
    if None in kinds:
        return "the runs do not state their suite: their scores may not be comparable"
    return None


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80] or "model"


# --- files ------------------------------------------------------------------------------------------


def write_replays(
    entries: list[Entry],
    label_of: dict[int, str],
    out: Path,
    frames: int,
    progress: Progress | None = None,
    per_family: int | None = REPLAYS_PER_FAMILY,
    seconds: float = REPLAY_SECONDS,
    max_bytes: int = REPLAY_BYTES,
) -> str:
    """GIFs of a few usable answers: their task's first held-out episode, played by the task (`replay.py`).
    `per_family` answers per model and family (None: every one), each at most `frames` frames (and a closing
    one) and about `max_bytes`; none is started after `seconds`. Returns the sentence that says so."""
    from wspbench.report.replay import replay
    from wspbench.tasks import get_task

    usable = [e for e in entries if e.answer is not None and e.status == "ok"]
    chosen, taken = [], {}
    for e in usable:
        key = (label_of[id(e)], family_of(e.task))
        if per_family is None or taken.get(key, 0) < per_family:
            chosen.append(e)
            taken[key] = taken.get(key, 0) + 1
    started, written, late = time.monotonic(), 0, 0
    if progress:
        progress("writing replays", 0, len(chosen))
    for done, e in enumerate(chosen, start=1):
        if time.monotonic() - started > seconds:
            late += 1
            e.notes.append(f"no replay: the report's {seconds:g} s for replays had run out (--replay-seconds)")
        else:
            try:  # a task this wspbench lacks, an answer it cannot read, a task that cannot be watched: a note
                name = f"replays/{safe_name(label_of[id(e)])}__{get_task(e.task).slug}.gif"
                replay(e.task, e.answer, out / name, episodes=1, max_frames=frames, max_bytes=max_bytes)
            except (ValueError, NotImplementedError) as error:
                e.notes.append(f"no replay: {str(error)[:300]}")
            else:
                e.replay = name
                written += 1
        if progress:
            progress("writing replays", done, len(chosen))
    which = "every usable answer" if per_family is None else f"at most {per_family} per model and family"
    text = (
        f"{written} replays of {len(usable)} usable answers ({which}: --replays-per-family, 0 for every one), "
        f"each its task's first held-out episode in at most {frames} frames (--replay-frames) and "
        f"{max_bytes / 1e6:g} MB, within {seconds:g} s (--replay-seconds)"
    )
    return text + (f"; {late} skipped when that time ran out" if late else "")


def _short(task: str) -> str:
    """A task id without its family, for a chart's label inside the family's panel."""
    return task.split("/", 1)[1] if "/" in task else task


def write_charts(entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    write_models_chart(plt, entries, label_of, rows, out / "models.png")
    write_scores_chart(plt, entries, label_of, rows, out / "scores.png")
    return ["models.png", "scores.png"]


def write_models_chart(plt, entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow], path: Path) -> None:
    """Per family, one bar per model with its 95% interval, over the tasks every model finished."""
    import numpy as np

    names = list(dict.fromkeys(f["family"] for r in rows for f in r.families))
    counts = {f["family"]: f["tasks"] for r in rows for f in r.families}
    fig, ax = plt.subplots(figsize=(MODELS_CHART_PIXELS[0] / DPI, MODELS_CHART_PIXELS[1] / DPI), dpi=DPI)
    width = 0.8 / max(1, len(rows))
    for k, row in enumerate(rows):
        by_family = {f["family"]: f for f in row.families}
        xs = [i - 0.4 + width * (k + 0.5) for i in range(len(names))]
        means = [by_family[name]["mean"] for name in names]
        low = [max(0.0, m - by_family[name]["ci95"][0]) for m, name in zip(means, names, strict=True)]
        high = [max(0.0, by_family[name]["ci95"][1] - m) for m, name in zip(means, names, strict=True)]
        yerr = np.array([low, high]) if xs else None
        ax.bar(xs, means, width, yerr=yerr, capsize=3, label=row.label, color=row.colour)
    ax.set_xticks(
        range(len(names)),
        [f"{name}\n({count(counts[name], 'task')})" for name in names],
        fontsize=9,
    )
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean normalised score (95% interval)")
    ax.set_title(f"Per family, {shared_text(entries, label_of, rows)}", fontsize=10)
    if rows:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.subplots_adjust(left=0.08, right=0.78, bottom=0.17)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def write_scores_chart(plt, entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow], path: Path) -> None:
    """One panel per family, one row per task (its id without the family), one bar per model with its 95%
    interval: the picture grows with the tasks, TASK_ROW_PIXELS per task and model, so every label stays
    readable at any task count."""
    tasks = list(dict.fromkeys(e.task for e in entries if e.score is not None))
    groups = [(name, [t for t in tasks if family_of(t) == name]) for name in families(tasks)]
    row_height = TASK_ROW_PIXELS * max(1, len(rows))
    top, title, ticks, gap, bottom = 40, 24, 22, 16, 30  # pixels around each panel's bars
    bodies = [max(2, len(found)) * row_height for _, found in groups]
    height = top + sum(title + body + ticks + gap for body in bodies) + bottom
    fig = plt.figure(figsize=(CHART_WIDTH / DPI, height / DPI), dpi=DPI)
    fig.suptitle("Held-out score per task, by family", fontsize=11, y=1 - 12 / height, va="top")
    left, width = 0.17, 0.80
    bar = 0.8 / max(1, len(rows))
    y = top
    for (family, found), body in zip(groups, bodies, strict=True):
        y += title
        ax = fig.add_axes((left, 1 - (y + body) / height, width, body / height))
        for k, row in enumerate(rows):
            by_task = {e.task: e for e in entries if label_of[id(e)] == row.label and e.score is not None}
            ys, lengths, errors = [], [], [[], []]
            for t, task in enumerate(found):
                e = by_task.get(task)
                if e is None:
                    continue
                ys.append(t - 0.4 + bar * (k + 0.5))
                lengths.append(e.score)
                low, high = e.ci or (e.score, e.score)
                errors[0].append(max(0.0, e.score - low))
                errors[1].append(max(0.0, high - e.score))
            ax.barh(ys, lengths, bar, xerr=errors if ys else None, capsize=2, label=row.label, color=row.colour)
        ax.set_yticks(range(len(found)), [_short(t) for t in found], fontsize=8)
        ax.set_ylim(max(2, len(found)) - 0.5, -0.5)
        ax.set_xlim(0, 1.05)
        ax.set_title(f"{family} ({count(len(found), 'task')})", fontsize=10, loc="left")
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(axis="x", alpha=0.3)
        if len(rows) > 1 and y == top + title:
            ax.legend(fontsize=8, loc="lower right")
        y += body + ticks + gap
    fig.text(0.5, 8 / height, "normalised held-out score (95% interval over episodes)", ha="center", fontsize=9)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


# --- Markdown and HTML ------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, and no raw HTML (renderers would pass it through)."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("\n", " ")


FAMILIES_TEXT = (
    "Mean normalised held-out score per family with its 95% interval over tasks and episodes (a bootstrap, "
    "src/wspbench/statistics.py; the intervals `wsp runs show` and `wsp runs compare` print), beside the mean "
    "baseline-relative score: (score - trivial) / (reference - trivial), trivial being the better of the zero "
    "network and the best constant action (`wsp baselines`), over the tasks whose baselines were measured. "
    "Writing and reading are two skills, so no mean mixes them: the writing score and the reading score are each "
    "family-weighted over their own families (each family counts once). The unclipped mean is the same mean of "
    "raw / cap, not clipped to [0, 1]: above the mean score where a reply scored above its cap."
)


@dataclass
class Cell:
    """One cell of a report table: its text and how the page shows it (right-aligned, a failure, an error, a link
    to a replay, the colour of the model it names)."""

    text: str
    style: str = ""  # num, fail or err: the page's classes
    link: str | None = None
    colour: str | None = None


@dataclass
class TableModel:
    """A table of the report, computed once (`tables`) and rendered as Markdown (`markdown`) and HTML (`page`)."""

    heading: str
    headers: list[str]
    rows: list[list[Cell]]
    text: str = ""  # what the table shows, above it


def _n(value, digits: int | None = None) -> Cell:
    return Cell(_num(value, digits), "num")


def tables(entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow]) -> list[TableModel]:
    """Every table of the report, in order: the models' writing and reading scores, per family, the suites, the
    models, the scores per task, the details and the agent blocks (when there are any)."""
    colour = {r.label: r.colour for r in rows}

    def model(label: str) -> Cell:
        return Cell(label, colour=colour.get(label))

    shared = shared_text(entries, label_of, rows)
    found = [
        TableModel(
            f"Per family, {shared}",
            ["score", "tasks", "model", "mean score", "95% interval", "unclipped mean"],
            [
                [Cell(f"{skill} score (family-weighted)"), _n(r.score(skill)[2]), model(r.label)]
                + [_n(r.score(skill)[0], 4), Cell(interval_text(r.score(skill)[1]), "num")]
                + [_n(r.skills[skill]["mean_unclipped"], 4)]
                for skill in SKILLS
                for r in rows
                if skill in r.skills
            ],
            FAMILIES_TEXT,
        ),
        TableModel(
            "",
            ["family", "tasks", "model", "mean score", "95% interval", "unclipped mean"]
            + ["mean baseline-relative score (tasks)"],
            [
                [Cell(g["family"]), _n(g["tasks"]), model(g["model"]), _n(g["mean"], 4)]
                + [
                    Cell(interval_text(g["ci95"]), "num"),
                    _n(g["mean_unclipped"], 4),
                    Cell(f"{_num(g['relative'], 4)} ({g['with_baselines']})", "num"),
                ]
                for g in family_rows(entries, label_of, rows)
            ],
        ),
        TableModel(
            "Suites", ["run", "suite"], [[Cell(run), Cell(suite_text(one))] for run, one in run_suites(entries).items()]
        ),
        TableModel(
            "Models",
            ["model", "tasks", "scored", "writing score (shared tasks)", "95% interval", "reading score (shared tasks)"]
            + ["95% interval", "parse failures", "errors", "prompt tokens", "completion tokens", "cost"],
            [
                [model(r.label), _n(r.tasks), _n(r.scored), _n(r.score("writing")[0], 4)]
                + [Cell(interval_text(r.score("writing")[1]), "num"), _n(r.score("reading")[0], 4)]
                + [Cell(interval_text(r.score("reading")[1]), "num"), _n(r.parse_failures), _n(r.errors)]
                + [_n(r.prompt_tokens), _n(r.completion_tokens), _n(r.cost, 4)]
                for r in rows
            ],
        ),
        TableModel(
            "Scores (normalised, 95% interval over episodes)",
            ["task", *(r.label for r in rows), *BASELINE_COLUMNS],
            [
                [Cell(task), *(score_cell(entries, label_of, task, r.label) for r in rows)]
                + [Cell(c, "num") for c in baseline_cells(task)]
                for task in dict.fromkeys(e.task for e in entries)
            ],  # fmt: skip
            "Each task's baselines follow the models (`wsp baselines`): the better of the zero network and the best "
            "constant action, a network of the task's shape trained by PPO, and the reference program; then optimal, "
            "the hindsight bound's mean raw return over the cap, not clipped (what the best play of each calibration "
            "episode, knowing its random draws, scores; docs/validity.md), where it was measured.",
        ),
        TableModel(
            "Details",
            ["run", "model", "task", "status", "score", "episodes", "tokens in/out", "cost", "notes"],
            [
                [Cell(e.run), model(label_of[id(e)]), Cell(e.task), Cell(e.status), Cell(score_text(e))]
                + [_n(e.episodes), Cell(f"{_num(e.prompt_tokens)}/{_num(e.completion_tokens)}", "num")]
                + [_n(e.cost, 4), Cell("; ".join(([e.error] if e.error else []) + e.notes)[:200])]
                for e in entries
            ],
        ),
    ]
    blocks = agent_blocks(entries)
    if blocks:
        found.append(TableModel("Agent blocks", list(BLOCK_COLUMNS), [[Cell(str(c)) for c in row] for row in blocks]))
    return found


def score_cell(entries: list[Entry], label_of: dict[int, str], task: str, label: str) -> Cell:
    """A task's cell for one model: its replies' scores (`replies_text`), styled by how they went, with a replay."""
    found = [e for e in entries if e.task == task and label_of[id(e)] == label]
    if not found:
        return Cell("-")
    style = (
        "err" if all(e.status not in ("ok", "corrupt") for e in found) else "fail" if found[0].parse_failure else "num"
    )
    return Cell(replies_text(found), style, next((e.replay for e in found if e.replay), None))


def markdown_table(table: TableModel) -> list[str]:
    def cell(c: Cell) -> str:
        return _md(c.text) + (f" ([replay]({c.link}))" if c.link else "")

    lines = [f"## {_md(table.heading)}", ""] if table.heading else []
    lines += [table.text, ""] if table.text else []
    lines += ["| " + " | ".join(_md(h) for h in table.headers) + " |", "|" + "---|" * len(table.headers)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    return [*lines, ""]


def html_table(table: TableModel) -> str:
    esc = html.escape

    def cell(c: Cell) -> str:
        swatch = f'<span class=swatch style="background:{c.colour}"></span>' if c.colour else ""
        link = f' <a href="{esc(c.link)}">replay</a>' if c.link else ""
        style = f" class={c.style}" if c.style else ""
        return f"<td{style}>{swatch}{esc(c.text)}{link}</td>"

    head = f"<h2>{esc(table.heading)}</h2>" if table.heading else ""
    text = f"<p>{esc(table.text)}</p>" if table.text else ""
    header = "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in table.headers) + "</tr>"
    return (
        head
        + text
        + "<table>"
        + header
        + "".join("<tr>" + "".join(map(cell, r)) + "</tr>" for r in table.rows)
        + "</table>"
    )


def markdown(
    entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow], runs: list[str], replays: str = ""
) -> str:
    warning = suite_warning(run_suites(entries))
    lines = ["# wspbench report", "", f"Runs: {', '.join(_md(r) for r in runs)}", ""]
    lines += [f"**Warning: {_md(warning)}.**", ""] if warning else []
    for number, table in enumerate(tables(entries, label_of, rows)):
        lines += markdown_table(table)
        if number == 1:  # the charts, after the tables they draw
            lines += ["![models](models.png)", "", "![scores](scores.png)", ""]
        if table.heading.startswith("Scores"):
            lines += ["## Replays", "", _md(replays or "no replays (--no-replays)"), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


BLOCK_COLUMNS = ("run", "task", "turn", "block", "status", "seconds", "passes", "training score", "output")


def agent_blocks(entries: list[Entry]) -> list[tuple]:
    """Every block the agent-protocol entries ran (`harness/summary.py` `audit_rows`), one row each: the audit."""
    rows = []
    for e in entries:
        for row in audit_rows([e.record] if e.record is not None else []):
            score = "-" if row["train_score"] is None else f"{row['train_score']:.4f}"
            rows.append((e.run, row["task"], row["turn"], row["kind"], row["status"], f"{row['seconds']:.2f}"))
            rows[-1] += (row["passes"], score, row["output"])
    return rows


STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1300px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f2f2f2}td.num{text-align:right}.fail{color:#b35c00}.err{color:#c00}img{max-width:100%}
.broken{color:#c00;font-weight:bold}.warn{color:#b35c00;font-weight:bold}
.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle}"""
CHECK_IMAGES = """window.addEventListener("load", function () {
  var broken = Array.prototype.filter.call(document.images,
    function (i) { return !(i.complete && i.naturalWidth > 0); });
  broken.forEach(function (i) { var p = document.createElement("p"); p.className = "broken";
    p.textContent = "image missing: " + i.getAttribute("src"); i.after(p); });
  document.body.setAttribute("data-broken-images", String(broken.length));
});"""


def page(
    entries: list[Entry],
    label_of: dict[int, str],
    rows: list[ModelRow],
    runs: list[str],
    charts: list[str],
    replays: str = "",
) -> str:
    esc = html.escape
    warning = suite_warning(run_suites(entries))
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8"><title>wspbench report</title>',
        f"<style>{STYLE}</style><script>{CHECK_IMAGES}</script></head><body>",
        "<h1>wspbench report</h1>",
        f"<p>Runs: {esc(', '.join(runs))}. Scores are normalised held-out scores with a 95% interval over "
        "episodes (normal approximation on the mean episode value; Wilson's interval when every episode is "
        "won or lost). A reply without a usable answer scores 0 and is counted as a parse failure.</p>",
        *([f'<p class="warn">Warning: {esc(warning)}.</p>'] if warning else []),
        '<p class="legend">'
        + " ".join(f'<span class=swatch style="background:{r.colour}"></span>{esc(r.label)}' for r in rows)
        + "</p>",
    ]
    for number, table in enumerate(tables(entries, label_of, rows)):
        out.append(html_table(table))
        if number == 1:  # the charts, after the tables they draw
            out += [f'<p><img src="{esc(c)}" alt="{esc(c)}"></p>' for c in charts]
        if table.heading.startswith("Scores"):
            out.append(f"<h2>Replays</h2><p>{esc(replays or 'no replays (--no-replays)')}.</p>")
    shown = [e for e in entries if e.replay]
    if shown:
        out += [
            f'<figure><img src="{esc(e.replay)}" alt="replay"><figcaption>{esc(label_of[id(e)])} · '
            f"{esc(e.task)}</figcaption></figure>"
            for e in shown
        ]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


REPORT_FILES = ("index.html", "report.md", "models.png", "scores.png")  # and the folder replays/


def earlier_report(entry: Path) -> bool:
    """An entry of an earlier report: one of its files, or its replays folder."""
    return (entry.is_file() and entry.name in REPORT_FILES) or (entry.is_dir() and entry.name == "replays")


def build_report(
    run_dirs: list[Path],
    out: Path,
    replays: bool = True,
    replay_frames: int = 200,
    progress: Progress | None = None,
    replays_per_family: int | None = REPLAYS_PER_FAMILY,
    replay_seconds: float = REPLAY_SECONDS,
    replay_bytes: int = REPLAY_BYTES,
    notice: Callable[[str], None] | None = None,
    force: bool = False,
) -> list[Path]:
    """Write the report files; returns them (HTML first). Nothing is graded: intervals are the records'.
    `progress` is told each stage's advance: loading runs, writing replays, writing charts; `notice`, each
    record left out because it cannot be used. `out` must be empty or absent; with `force`, an earlier report
    there is replaced whole (no replay of it is left), and anything else in it is refused (NotEmpty)."""
    entries: list[Entry] = []
    for done, path in enumerate(run_dirs):
        if progress:
            progress("loading runs", done, len(run_dirs))
        entries += load_run(Path(path), notice)
    if progress:
        progress("loading runs", len(run_dirs), len(run_dirs))
    clear_earlier(out, force, earlier_report, "report")
    out.mkdir(parents=True, exist_ok=True)
    label_of = labels(entries)
    rows = model_rows(entries, label_of)
    said = ""
    if replays:
        said = write_replays(
            entries, label_of, out, replay_frames, progress, replays_per_family, replay_seconds, replay_bytes
        )
    if progress:
        progress("writing charts and pages", 0, 1)
    charts = write_charts(entries, label_of, rows, out)
    runs = [str(p) for p in run_dirs]
    (out / "index.html").write_text(page(entries, label_of, rows, runs, charts, said))
    (out / "report.md").write_text(markdown(entries, label_of, rows, runs, said))
    if progress:
        progress("writing charts and pages", 1, 1)
    return [
        out / "index.html",
        out / "report.md",
        *(out / c for c in charts),
        *(out / e.replay for e in entries if e.replay),
    ]
