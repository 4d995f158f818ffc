"""`report.html`: the run as one self-contained page that leads with its answer.

A pure renderer like the others: it takes the review and the stored trials
and writes text. The page carries its own CSS and a little JS, loads nothing
from the network and follows the reader's light or dark preference.

The page opens with the run's one-sentence verdict (`headline`), the gates
and the cost; the run's facts sit in a collapsed card below. Then each
section in `SECTIONS` order: gates, scores, judges, conditions compared, the
previous run, cost, breakdowns, and the cases. A section is a function of the
review that returns its template's context (None leaves it out) plus a template
in `templates/sections/`, so adding one is a function, a file and a line here.

Intervals are drawn, not only printed: a bar per mean and pass rate with its
95% CI as a whisker, and a dot with its interval (at the level its verdict
used) on a shared axis around zero per comparison (their positions: `meters`).

Every trial is on the page, as compact JSON (`html_trials`), gzipped in base64
(`packed_text`) so that a big run's page stays a few MB, which the page's
script unpacks and pages through, 50 cases at a time, each case with its conditions side
by side and a drill-down per trial; search reaches every trial by id, text
or tag. Text in the markup goes through jinja2's autoescaping; text in the
JSON is escaped for its script block and drawn by the script as text only.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any

from assay.analysis.run_diff import condition_of
from assay.reports.comparisons import (
    MAX_IDS_MARKDOWN,
    change_names,
    detail_lines,
    exclusions,
    family_note,
    ignored_epochs_text,
    shown_advice,
)
from assay.reports.costs import (
    CACHED_JUDGE_CALLS,
    CACHED_JUDGE_CALLS_NOTE,
    CACHED_TARGET_CALLS,
    SHARED_JUDGE_COST,
    RunCosts,
    judge_calls_cached,
    tokens_text,
)
from assay.reports.formatting import figures, fmt_mean, milliseconds, percent
from assay.reports.headline import review_headline
from assay.reports.html_trials import TextCaps, TrialData
from assay.reports.judges import judge_sections
from assay.reports.meters import Meter, delta_table, mean_meter, rate_meter
from assay.reports.packed_text import GzipBase64Writer
from assay.reports.page_policy import content_security_policy
from assay.reports.unscored import page_warnings

if TYPE_CHECKING:
    from assay.analysis.summary import ConditionStats, RunSummary, ScoreStats
    from assay.records import TrialRecord
    from assay.review.result import GateBars, Review

MAX_GROUPS = 100
"""Tags (or difficulty levels) shown per breakdown; the rest are counted, not drawn."""
READING_TONE = {"strong": "good", "moderate": "good", "neutral": "plain",
                "slight regression": "warn", "significant regression": "bad"}
VERDICT_TONE = {"better": "good", "worse": "bad", "within noise": "plain",
                "no comparison": "plain", "not comparable": "warn"}


@dataclass
class ScoreRow:
    stats: ScoreStats
    colour: int
    mean: str
    pass_rate: str
    mean_meter: Meter | None
    pass_meter: Meter | None


@dataclass(frozen=True)
class Section:
    """One part of the page: its anchor, its name in the top bar, its template, its context."""

    id: str
    title: str | None
    """The link in the top bar (None: no link)."""
    template: str
    context: Callable[[Review, dict[str, int]], dict[str, Any] | None]
    """What the template needs, from the review and the conditions' colours; None: no section."""


def render_html(review: Review, trials: Iterable[TrialRecord] | TrialData, *,
                caps: TextCaps | None = None) -> str:
    """The whole page as text. `trials` are the stored trials, or a `TrialData` already fed
    with them. No previous run reads as "the first completed run of its experiment"."""
    out = io.StringIO()
    write_html(out, review, trials, caps=caps)
    return out.getvalue()


def write_html(handle: IO[str], review: Review, trials: Iterable[TrialRecord] | TrialData, *,
               caps: TextCaps | None = None) -> None:
    """Write the page to `handle`; the trials' JSON is streamed, never held as one string."""
    from markupsafe import Markup

    summary = review.summary
    if isinstance(trials, TrialData):
        data = trials
    else:
        data = trial_data(review, caps=caps)
        for trial in trials:
            data.add(trial)
    colours = {name: i % 6 for i, name in enumerate(summary.condition_names)}
    parts = [(section, section.context(review, colours)) for section in SECTIONS]
    shown = [(section, context) for section, context in parts if context is not None]
    nav = [(s.id, s.title) for s, _ in shown if s.title]
    nav.append(("trials-section", "Cases"))
    env = _environment()
    common = {"run": review.run, "colours": colours}
    script = _script()
    handle.write(env.get_template("page_top.html.j2").render(
        nav=nav, policy=content_security_policy([script]), **common))
    for section, context in shown:
        handle.write(env.get_template(section.template).render(**common, **context))
    handle.write(env.get_template("sections/cases.html.j2").render(
        trials=data, conditions=data.conditions, **common))
    handle.write('<script type="application/gzip" id="trial-data">')
    packed = GzipBase64Writer(handle)
    data.write(packed)
    packed.close()
    handle.write("</script>\n")
    handle.write(env.get_template("page_end.html.j2").render(script=Markup(script), **common))


@lru_cache(maxsize=1)
def _script() -> str:
    """The page's script, exactly as written into its `<script>` tag: the policy names it
    by its hash."""
    return "\n" + str(_environment().get_template("report.js").render()) + "\n"


def trial_data(review: Review, *, caps: TextCaps | None = None) -> TrialData:
    """An empty `TrialData` for the review's run, its text caps set by the run's size."""
    summary = review.summary
    count = sum(c.trials for c in summary.conditions)
    return TrialData(summary.scorer_names, summary.condition_names, epochs=review.run.epochs,
                     caps=caps or TextCaps.for_trials(count))


@lru_cache(maxsize=1)
def _environment() -> Any:
    """The templates (jinja2 is imported here, so only a render pays for it)."""
    from assay.reports.pages import page_environment
    from assay.reports.template_cache import TemplateCache

    env = page_environment("assay.reports", bytecode_cache=TemplateCache())
    env.filters["pct"] = lambda x: f"{100 * x:.1f}%"
    env.globals.update(max_ids=MAX_IDS_MARKDOWN, reading_tone=READING_TONE,
                       outcomes=change_names, family_note=family_note, detail_lines=detail_lines,
                       exclusions=exclusions,
                       ignored_epochs_text=ignored_epochs_text, shown_advice=shown_advice)
    return env


# -- the sections, in page order ------------------------------------------------------------


def _overview(review: Review, colours: dict[str, int]) -> dict[str, Any]:
    run, summary, gates = review.run, review.summary, review.gates
    verdict = review_headline(review)
    return {"description": run.description, "verdict": verdict,
            "verdict_tone": VERDICT_TONE[verdict.outcome],
            "trial_count": sum(c.trials for c in summary.conditions),
            "duration": _duration(run.started_at, run.finished_at),
            "gates": gates, "gates_passed": sum(g.passed for g in gates),
            "total_cost": review.costs.total(),
            "warnings": page_warnings(review)}


def _gates(review: Review, colours: dict[str, int]) -> dict[str, Any] | None:
    return {"gates": review.gates} if review.gates else None


def _scores(review: Review, colours: dict[str, int]) -> dict[str, Any]:
    return {"scores": _score_rows(review.summary, review.bars, colours)}


def _judges(review: Review, colours: dict[str, int]) -> dict[str, Any] | None:
    tables = judge_sections(review.judges)
    return {"judge_tables": tables} if tables else None


def _conditions(review: Review, colours: dict[str, int]) -> dict[str, Any] | None:
    comparisons = review.comparisons
    if not comparisons.entries and not comparisons.skipped:
        return None
    table = delta_table(comparisons.entries, lambda e: e.comparison.label_b,
                         _scales(review.summary))
    return {"comparisons": comparisons, "comparison_table": table}


def _previous(review: Review, colours: dict[str, int]) -> dict[str, Any]:
    previous = review.previous
    table = (delta_table(previous.entries, condition_of, _scales(review.summary))
             if previous else None)
    return {"previous": previous, "previous_table": table}


def _cost(review: Review, colours: dict[str, int]) -> dict[str, Any]:
    conditions = review.summary.conditions
    costs = review.costs
    return {"costs": _cost_rows(conditions, costs), "cost_columns": _cost_columns(conditions),
            "target_cost": costs.target, "judge_cost": costs.judge,
            "judge_shared_cost": costs.shared, "tokens_text": tokens_text,
            "cached_target_calls": CACHED_TARGET_CALLS,
            "cached_judge_calls": CACHED_JUDGE_CALLS,
            "cached_judge_calls_note": CACHED_JUDGE_CALLS_NOTE,
            "shared_judge_cost": SHARED_JUDGE_COST,
            "cost_labels": [("tokens", "tokens"), ("cost", "cost"), ("judge", "judge usage"),
                            ("cache", CACHED_TARGET_CALLS), ("tools", "tool calls")]}


def _breakdowns(review: Review, colours: dict[str, int]) -> dict[str, Any] | None:
    summary = review.summary
    found = [(title, *_breakdown(rows, summary, colours)) for title, rows in
             (("By difficulty", summary.by_difficulty), ("By tag", summary.by_tag)) if rows]
    return {"breakdowns": found} if found else None


SECTIONS: list[Section] = [
    Section("overview", None, "sections/overview.html.j2", _overview),
    Section("gates", "Gates", "sections/gates.html.j2", _gates),
    Section("scores", "Scores", "sections/scores.html.j2", _scores),
    Section("judges", "Judges", "sections/judges.html.j2", _judges),
    Section("conditions", "Conditions", "sections/conditions.html.j2", _conditions),
    Section("previous", "Previous run", "sections/previous.html.j2", _previous),
    Section("cost", "Cost", "sections/cost.html.j2", _cost),
    Section("breakdowns", "Breakdowns", "sections/breakdowns.html.j2", _breakdowns),
]
"""The page's sections before the cases, in order."""


def _scales(summary: RunSummary) -> dict[str, tuple[float, float]]:
    return {s.scorer: s.scale for s in summary.scores if s.n}


# -- scores --------------------------------------------------------------------------------


def _score_rows(summary: RunSummary, bars: GateBars, colours: dict[str, int]
                ) -> list[tuple[str, list[ScoreRow]]]:
    """Per scorer, one row per condition, beside the minimums the run's gates hold it to."""
    out: list[tuple[str, list[ScoreRow]]] = []
    for scorer in summary.scorer_names:
        rows = [ScoreRow(s, colours.get(s.condition, 0), *figures(s, bars),
                         mean_meter(s), rate_meter(s.pass_rate, s.pass_rate_ci))
                for s in summary.scores if s.scorer == scorer]
        out.append((scorer, rows))
    return out


# -- cost and breakdowns -------------------------------------------------------------------


def _cost_columns(conditions: list[ConditionStats]) -> dict[str, bool]:
    """Which groups of columns have anything to say (a run without LLM calls has no tokens)."""
    return {
        "tokens": any(c.input_tokens or c.output_tokens for c in conditions),
        "cost": any(c.cost_usd is not None or c.judge_cost_usd is not None or c.input_tokens
                    or c.judge_input_tokens for c in conditions),
        "judge": any(c.judge_input_tokens or c.judge_cost_usd is not None for c in conditions),
        "cache": any(c.cache_hits for c in conditions),
        "judge_cache": judge_calls_cached(conditions),
        "tools": any(c.tool_calls or c.tool_errors or c.turns for c in conditions),
    }


def _cost_rows(conditions: list[ConditionStats], costs: RunCosts) -> list[dict[str, Any]]:
    """Each condition's figures and its share of the largest cost and latency (for the bars);
    a condition whose cost is unknown has no cost bar."""
    spent = [costs.spent(c) for c in conditions]
    top_cost = max((v for v in spent if v is not None), default=0.0)
    top_latency = max((c.latency_ms_mean or 0.0) for c in conditions) if conditions else 0.0
    rows = []
    for c, total in zip(conditions, spent):
        rows.append({
            "stats": c,
            "latency": milliseconds(c.latency_ms_mean),
            "p95": milliseconds(c.latency_ms_p95),
            "cost_share": None if total is None else total / top_cost if top_cost else 0.0,
            "latency_share": (c.latency_ms_mean or 0.0) / top_latency if top_latency else 0.0,
        })
    return rows


def _breakdown(rows: list[tuple[str, ScoreStats]], summary: RunSummary, colours: dict[str, int]
               ) -> tuple[list[str], list[dict[str, Any]], int]:
    """(conditions, per group a row per scorer with a cell per condition, groups left out)."""
    cells: dict[tuple[str, str], dict[str, Any]] = {}
    groups: dict[str, int] = {}
    for group, stats in rows:
        if groups.setdefault(group, len(groups)) >= MAX_GROUPS:
            continue
        verdicts = stats.pass_rate is not None
        cells.setdefault((group, stats.scorer), {})[stats.condition] = {
            "text": (percent(stats.pass_rate, 0) if stats.pass_rate is not None
                     else fmt_mean(stats).split(" ")[0]),
            "meter": rate_meter(stats.pass_rate, stats.pass_rate_ci) if verdicts
            else mean_meter(stats),
            "n": stats.n, "errors": stats.errors, "colour": colours.get(stats.condition, 0),
            "metric": "pass rate" if verdicts else "mean",
        }
    shown = list(groups)[:MAX_GROUPS]
    table = [{"group": g, "rows": [{"scorer": s, "cells": cells[(g, s)]}
                                   for s in summary.scorer_names if (g, s) in cells]}
             for g in shown]
    return summary.condition_names, table, len(groups) - len(shown)


# -- small things --------------------------------------------------------------------------


def _duration(started: str | None, finished: str | None) -> str | None:
    from datetime import datetime

    if not started or not finished:
        return None
    try:
        seconds = (datetime.fromisoformat(finished) - datetime.fromisoformat(started))
    except ValueError:
        return None
    total = seconds.total_seconds()
    if total < 1:
        return f"{total * 1000:.0f} ms"
    if total < 60:
        return f"{total:.1f} s"
    minutes, secs = divmod(int(total), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min {secs} s"
