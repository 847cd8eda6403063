"""`wsp report`: a static HTML page, a Markdown table and PNG bar charts over one or more run directories.

    OUT/index.html    leaderboard, task x model scores with 95% intervals, details, links to replays
    OUT/report.md     the same tables in Markdown
    OUT/scores.png    per task, one bar per model, with the 95% interval
    OUT/models.png    mean normalised score per model
    OUT/replays/*.gif the first held-out episode of each usable answer (`wsp replay`'s rendering)

Runs are read through `report/runs.py` (the run record's one reader). Intervals come from each record's
held-out Score (`Score.interval()`, every episode's value is stored): nothing is graded again. Each run's
suite (name, version, digest) is stated, with a warning when the runs come from different suites, since
their scores are then not comparable.

A reply that held no usable answer scores 0 and is counted as a parse failure, apart from answers that
parsed and scored 0; a task whose endpoint never answered is an error and has no score. Model names and
errors are untrusted text: everything is escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wspbench.report.runs import Entry, load_run
from wspbench.statistics import Sample, aggregate_interval
from wspbench.tasks import baselines
from wspbench.tasks.spec import group_of

Progress = Callable[[str, int, int], None]  # (stage, done, total): `wsp report` draws it as a bar on stderr

CHART_PIXELS = (1200, 520)
MODELS_CHART_PIXELS = (1000, 400)
DPI = 100


@dataclass
class ModelRow:
    label: str
    tasks: int
    scored: int
    mean: float | None
    interval: tuple[float, float] | None  # 95%, over the scored tasks and their episodes
    parse_failures: int
    errors: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost: float | None


def labels(entries: list[Entry]) -> dict[int, str]:
    """A display label per entry: "model (protocol)", plus the run name when two runs share it."""
    runs_per_label: dict[str, set[str]] = {}
    for e in entries:
        runs_per_label.setdefault(e.label, set()).add(e.run)
    return {id(e): e.label if len(runs_per_label[e.label]) == 1 else f"{e.label} [{e.run}]" for e in entries}


def _total(values):
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def model_rows(entries: list[Entry], label_of: dict[int, str]) -> list[ModelRow]:
    rows = []
    for label in dict.fromkeys(label_of[id(e)] for e in entries):
        mine = [e for e in entries if label_of[id(e)] == label]
        scored = [e for e in mine if e.score is not None]
        scores = [e.score for e in scored]
        replies: dict[str, list[Sample]] = {}  # per task: one Sample per reply (`wsp run --samples K`)
        for e in scored:
            replies.setdefault(e.task, []).append(e.test.sample() if e.test is not None else Sample((), 1.0))
        samples = list(replies.values())
        rows.append(
            ModelRow(
                label,
                len(mine),
                len(scores),
                sum(scores) / len(scores) if scores else None,
                aggregate_interval(samples) if samples else None,
                sum(e.parse_failure for e in mine),
                sum(e.status != "ok" for e in mine),
                _total(e.prompt_tokens for e in mine),
                _total(e.completion_tokens for e in mine),
                _total(e.cost for e in mine),
            )
        )
    return rows


def score_text(e: Entry) -> str:
    if e.status != "ok":
        return "error"
    if e.parse_failure:
        return "0 (parse failure)"
    text = f"{e.score:.4f}"
    return text + (f" [{e.ci[0]:.4f}, {e.ci[1]:.4f}]" if e.ci else "")


def replies_text(found: list[Entry]) -> str:
    """A task's cell for one model: its reply's score, or with K replies (`wsp run --samples K`) their mean and
    then each reply's score, so that no sample is hidden."""
    if len(found) == 1:
        return score_text(found[0])
    scored = [e.score for e in found if e.score is not None]
    mean = f"{sum(scored) / len(scored):.4f}" if scored else "-"
    each = ", ".join("error" if e.score is None else f"{e.score:.4f}" for e in found)
    return f"mean {mean} of {len(found)} replies: {each}"


BASELINE_COLUMNS = ("trivial", "trained", "reference")  # beside the models in each task's row


def baseline_cells(task: str) -> list[str]:
    """The task's best trivial baseline, PPO network and reference program (`wsp baselines`), or '-'."""
    entry = baselines.of_task(task)
    if entry is None:
        return ["-"] * len(BASELINE_COLUMNS)
    return [
        f"{baselines.trivial(entry):.4f}",
        f"{entry['trained']['score']:.4f}" if "trained" in entry else "-",
        f"{entry['reference']['score']:.4f}",
    ]


def group_rows(entries: list[Entry], label_of: dict[int, str]) -> list[dict]:
    """Per model and task group (original, synth, superbeam): scored tasks, the mean normalised score, and the
    mean baseline-relative score over the tasks whose baselines were measured (`wspbench/tasks/baselines.py`:
    0 at the better of the zero network and the best constant action, 1 at the reference program)."""
    rows = []
    for label in dict.fromkeys(label_of[id(e)] for e in entries):
        mine = [e for e in entries if label_of[id(e)] == label and e.score is not None]
        for group in dict.fromkeys(group_of(e.task) for e in mine):
            scores: dict[str, list[float]] = {}  # per task: one score per reply (`wsp run --samples K`)
            for e in mine:
                if group_of(e.task) == group:
                    scores.setdefault(e.task, []).append(e.score)
            means = {task: sum(s) / len(s) for task, s in scores.items()}
            relative = [
                baselines.relative(score, baselines.of_task(task))
                for task, score in means.items()
                if baselines.of_task(task) is not None
            ]
            relative = [r for r in relative if r is not None]
            rows.append(
                {
                    "model": label,
                    "group": group,
                    "tasks": len(means),
                    "mean": sum(means.values()) / len(means),
                    "relative": sum(relative) / len(relative) if relative else None,
                    "with_baselines": len(relative),
                }
            )
    return rows


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
    entries: list[Entry], label_of: dict[int, str], out: Path, frames: int, progress: Progress | None = None
) -> None:
    """One GIF per usable answer: its task's first held-out episode, played by the task (`replay.py`)."""
    from wspbench.report.replay import replay
    from wspbench.tasks import get_task

    usable = [e for e in entries if e.answer is not None and e.status == "ok"]
    if progress:
        progress("writing replays", 0, len(usable))
    for done, e in enumerate(usable, start=1):
        try:  # a task this wspbench lacks, an answer it cannot read, a task that cannot be watched: a note
            name = f"replays/{safe_name(label_of[id(e)])}__{get_task(e.task).slug}.gif"
            replay(e.task, e.answer, out / name, episodes=1, max_frames=frames)
        except (ValueError, NotImplementedError) as error:
            e.notes.append(f"no replay: {str(error)[:300]}")
        else:
            e.replay = name
        if progress:
            progress("writing replays", done, len(usable))


def write_charts(entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    tasks = list(dict.fromkeys(e.task for e in entries))
    models = [r.label for r in rows]
    fig, ax = plt.subplots(figsize=(CHART_PIXELS[0] / DPI, CHART_PIXELS[1] / DPI), dpi=DPI)
    width = 0.8 / max(1, len(models))
    for k, model in enumerate(models):
        by_task = {e.task: e for e in entries if label_of[id(e)] == model}
        xs, heights, errors = [], [], [[], []]
        for t, task in enumerate(tasks):
            e = by_task.get(task)
            if e is None or e.score is None:
                continue
            xs.append(t - 0.4 + width * (k + 0.5))
            heights.append(e.score)
            low, high = e.ci or (e.score, e.score)
            errors[0].append(max(0.0, e.score - low))
            errors[1].append(max(0.0, high - e.score))
        ax.bar(xs, heights, width, yerr=np.array(errors) if xs else None, capsize=3, label=model)
    ax.set_xticks(range(len(tasks)), tasks, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("normalised score (95% interval)")
    ax.set_title("Held-out score per task")
    if models:
        ax.legend(fontsize=8)
    fig.subplots_adjust(bottom=0.3, left=0.07, right=0.98)
    fig.savefig(out / "scores.png", dpi=DPI)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(MODELS_CHART_PIXELS[0] / DPI, MODELS_CHART_PIXELS[1] / DPI), dpi=DPI)
    ax.barh(range(len(rows)), [r.mean or 0.0 for r in rows], color="#4a90d9")
    ax.set_yticks(range(len(rows)), [r.label for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("mean normalised score over scored tasks (parse failures count 0)")
    ax.set_title("Models")
    fig.subplots_adjust(left=0.3, right=0.97, bottom=0.15)
    fig.savefig(out / "models.png", dpi=DPI)
    plt.close(fig)
    return ["scores.png", "models.png"]


# --- Markdown and HTML ------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, and no raw HTML (renderers would pass it through)."""
    return html.escape(str(text), quote=False).replace("|", "\\|").replace("\n", " ")


def markdown(entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow], runs: list[str]) -> str:
    tasks = list(dict.fromkeys(e.task for e in entries))
    suites = run_suites(entries)
    warning = suite_warning(suites)
    lines = [
        "# wspbench report",
        "",
        f"Runs: {', '.join(_md(r) for r in runs)}",
        "",
        *([f"**Warning: {_md(warning)}.**", ""] if warning else []),
        "![scores](scores.png)",
        "",
        "## Suites",
        "",
        "| run | suite |",
        "|---|---|",
        *(f"| {_md(run)} | {_md(suite_text(suite))} |" for run, suite in suites.items()),
        "",
        "## Models",
        "",
        "| model | tasks | scored | mean score | 95% interval | parse failures | errors | prompt tokens | "
        "completion tokens | cost |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {_md(r.label)} | {r.tasks} | {r.scored} | {_num(r.mean, 4)} | {interval_text(r.interval)} | "
        f"{r.parse_failures} | {r.errors} | "
        f"{_num(r.prompt_tokens)} | {_num(r.completion_tokens)} | {_num(r.cost, 4)} |"
        for r in rows
    ]
    lines += [
        "",
        "## By task group",
        "",
        "The normalised score beside the baseline-relative score: (score - trivial) / (reference - trivial), "
        "trivial being the better of the zero network and the best constant action (`wsp baselines`), over "
        "the tasks whose baselines were measured.",
        "",
        "| model | group | tasks | mean score | mean baseline-relative score (tasks) |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {_md(g['model'])} | {_md(g['group'])} | {g['tasks']} | {g['mean']:.4f} | "
        f"{_num(g['relative'], 4)} ({g['with_baselines']}) |"
        for g in group_rows(entries, label_of)
    ]
    lines += [
        "",
        "## Scores (normalised, 95% interval over episodes)",
        "",
        "Each task's baselines follow the models (`wsp baselines`): the better of the zero network and the best "
        "constant action, a network of the task's shape trained by PPO, and the reference program.",
        "",
        "| task | " + " | ".join(_md(r.label) for r in rows) + " | " + " | ".join(BASELINE_COLUMNS) + " |",
        "|---|" + "---|" * (len(rows) + len(BASELINE_COLUMNS)),
    ]
    for task in tasks:
        cells = []
        for r in rows:
            found = [e for e in entries if e.task == task and label_of[id(e)] == r.label]
            replay = next((e.replay for e in found if e.replay), None)
            cells.append("-" if not found else replies_text(found) + (f" ([replay]({replay}))" if replay else ""))
        cells += baseline_cells(task)
        lines.append(f"| {_md(task)} | " + " | ".join(_md(c) if "](" not in c else c for c in cells) + " |")
    lines += [
        "",
        "## Details",
        "",
        "| run | model | task | status | score | episodes | tokens in/out | cost | notes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        notes = "; ".join(([e.error] if e.error else []) + e.notes)
        lines.append(
            f"| {_md(e.run)} | {_md(label_of[id(e)])} | {_md(e.task)} | {_md(e.status)} | "
            f"{_md(score_text(e))} | "
            f"{_num(e.episodes)} | {_num(e.prompt_tokens)}/{_num(e.completion_tokens)} | {_num(e.cost, 4)} | "
            f"{_md(notes[:200])} |"
        )
    return "\n".join(lines) + "\n"


STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1300px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f2f2f2}td.num{text-align:right}.fail{color:#b35c00}.err{color:#c00}img{max-width:100%}
.broken{color:#c00;font-weight:bold}.warn{color:#b35c00;font-weight:bold}"""
CHECK_IMAGES = """window.addEventListener("load", function () {
  var broken = Array.prototype.filter.call(document.images,
    function (i) { return !(i.complete && i.naturalWidth > 0); });
  broken.forEach(function (i) { var p = document.createElement("p"); p.className = "broken";
    p.textContent = "image missing: " + i.getAttribute("src"); i.after(p); });
  document.body.setAttribute("data-broken-images", String(broken.length));
});"""


def page(
    entries: list[Entry], label_of: dict[int, str], rows: list[ModelRow], runs: list[str], charts: list[str]
) -> str:
    esc = html.escape
    tasks = list(dict.fromkeys(e.task for e in entries))
    suites = run_suites(entries)
    warning = suite_warning(suites)
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8"><title>wspbench report</title>',
        f"<style>{STYLE}</style><script>{CHECK_IMAGES}</script></head><body>",
        "<h1>wspbench report</h1>",
        f"<p>Runs: {esc(', '.join(runs))}. Scores are normalised held-out scores with a 95% interval over "
        "episodes (normal approximation on the mean episode value; Wilson's interval when every episode is "
        "won or lost). A model's mean comes with a 95% interval over its scored tasks and their episodes "
        "(a two-level bootstrap, src/wspbench/statistics.py). A reply without a usable answer scores 0 and is "
        "counted as a parse failure.</p>",
        *([f'<p class="warn">Warning: {esc(warning)}.</p>'] if warning else []),
        "<h2>Suites</h2><table><tr><th>run</th><th>suite</th></tr>",
        *(f"<tr><td>{esc(run)}</td><td>{esc(suite_text(suite))}</td></tr>" for run, suite in suites.items()),
        "</table>",
        "<h2>Models</h2><table><tr><th>model</th><th>tasks</th><th>scored</th><th>mean score</th>"
        "<th>95% interval</th><th>parse failures</th><th>errors</th><th>prompt tokens</th>"
        "<th>completion tokens</th><th>cost</th></tr>",
    ]
    for r in rows:
        out.append(
            f"<tr><td>{esc(r.label)}</td><td class=num>{r.tasks}</td><td class=num>{r.scored}</td>"
            f"<td class=num>{_num(r.mean, 4)}</td><td class=num>{interval_text(r.interval)}</td>"
            f"<td class=num>{r.parse_failures}</td>"
            f"<td class=num>{r.errors}</td>"
            f"<td class=num>{_num(r.prompt_tokens)}</td><td class=num>{_num(r.completion_tokens)}</td>"
            f"<td class=num>{_num(r.cost, 4)}</td></tr>"
        )
    out.append("</table>")
    out += [f'<p><img src="{esc(c)}" alt="{esc(c)}"></p>' for c in charts]
    out.append(
        "<h2>By task group</h2><p>The normalised score beside the baseline-relative score: (score - trivial) / "
        "(reference - trivial), trivial being the better of the zero network and the best constant action "
        "(<code>wsp baselines</code>), over the tasks whose baselines were measured.</p><table><tr><th>model</th>"
        "<th>group</th><th>tasks</th><th>mean score</th><th>mean baseline-relative score</th>"
        "<th>tasks with baselines</th></tr>"
    )
    for g in group_rows(entries, label_of):
        out.append(
            f"<tr><td>{esc(g['model'])}</td><td>{esc(g['group'])}</td><td class=num>{g['tasks']}</td>"
            f"<td class=num>{g['mean']:.4f}</td><td class=num>{_num(g['relative'], 4)}</td>"
            f"<td class=num>{g['with_baselines']}</td></tr>"
        )
    out.append("</table>")
    out.append(
        "<h2>Scores</h2><p>Each task's baselines follow the models (<code>wsp baselines</code>): the better of the "
        "zero network and the best constant action, a network of the task's shape trained by PPO, and the "
        "reference program.</p><table><tr><th>task</th>"
        + "".join(f"<th>{esc(r.label)}</th>" for r in rows)
        + "".join(f"<th>{esc(c)}</th>" for c in BASELINE_COLUMNS)
        + "</tr>"
    )
    for task in tasks:
        cells = []
        for r in rows:
            found = [e for e in entries if e.task == task and label_of[id(e)] == r.label]
            if not found:
                cells.append("<td>-</td>")
                continue
            css = "err" if all(e.status != "ok" for e in found) else "fail" if found[0].parse_failure else "num"
            replay = next((e.replay for e in found if e.replay), None)
            link = f' <a href="{esc(replay)}">replay</a>' if replay else ""
            cells.append(f"<td class={css}>{esc(replies_text(found))}{link}</td>")
        cells += [f"<td class=num>{esc(c)}</td>" for c in baseline_cells(task)]
        out.append(f"<tr><td>{esc(task)}</td>{''.join(cells)}</tr>")
    out.append(
        "</table><h2>Details</h2><table><tr><th>run</th><th>model</th><th>task</th><th>status</th><th>score</th>"
        "<th>episodes</th><th>tokens in/out</th><th>cost</th><th>notes</th></tr>"
    )
    for e in entries:
        notes = "; ".join(([e.error] if e.error else []) + e.notes)
        out.append(
            f"<tr><td>{esc(e.run)}</td><td>{esc(label_of[id(e)])}</td><td>{esc(e.task)}</td><td>{esc(e.status)}</td>"
            f"<td>{esc(score_text(e))}</td><td class=num>{_num(e.episodes)}</td>"
            f"<td class=num>{_num(e.prompt_tokens)}/{_num(e.completion_tokens)}</td>"
            f"<td class=num>{_num(e.cost, 4)}</td>"
            f"<td>{esc(notes[:300])}</td></tr>"
        )
    out.append("</table>")
    replays = [e for e in entries if e.replay]
    if replays:
        out.append("<h2>Replays</h2>")
        out += [
            f'<figure><img src="{esc(e.replay)}" alt="replay"><figcaption>{esc(label_of[id(e)])} · '
            f"{esc(e.task)}</figcaption></figure>"
            for e in replays
        ]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def build_report(
    run_dirs: list[Path],
    out: Path,
    replays: bool = True,
    replay_frames: int = 200,
    progress: Progress | None = None,
    notice: Callable[[str], None] | None = None,
) -> list[Path]:
    """Write the report files; returns them (HTML first). Nothing is graded: intervals are the records'.
    `progress` is told each stage's advance: loading runs, writing replays, writing charts; `notice`, each
    record left out because it cannot be used."""
    entries: list[Entry] = []
    for done, path in enumerate(run_dirs):
        if progress:
            progress("loading runs", done, len(run_dirs))
        entries += load_run(Path(path), notice)
    if progress:
        progress("loading runs", len(run_dirs), len(run_dirs))
    out.mkdir(parents=True, exist_ok=True)
    label_of = labels(entries)
    rows = model_rows(entries, label_of)
    if replays:
        write_replays(entries, label_of, out, replay_frames, progress)
    if progress:
        progress("writing charts and pages", 0, 1)
    charts = write_charts(entries, label_of, rows, out)
    runs = [str(p) for p in run_dirs]
    (out / "index.html").write_text(page(entries, label_of, rows, runs, charts))
    (out / "report.md").write_text(markdown(entries, label_of, rows, runs))
    if progress:
        progress("writing charts and pages", 1, 1)
    return [
        out / "index.html",
        out / "report.md",
        *(out / c for c in charts),
        *(out / e.replay for e in entries if e.replay),
    ]
