"""The run on the terminal at the end of `assay run`: the verdict first, then the evidence.

`print_review` prints, in reading order: the one-sentence verdict, the
warnings, the scores, the cost, the gates, the judges, the conditions
compared and the previous-run diff, then where the files are. `--quiet`
keeps the verdict, the warnings, the gates, the errors and the files (a warning
qualifies the verdict, as a gate `--condition` left unchecked does); `--verbose` adds
each comparison's method lines and the calls per model. Each part is a function of the
review, listed in `SECTIONS`, so a new part is a function and a line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from assay.reports.console import print_table, print_warning
from assay.reports.costs import (
    CACHED_JUDGE_CALLS,
    CACHED_JUDGE_CALLS_NOTE,
    CACHED_TARGET_CALLS,
    SHARED_JUDGE_COST,
    judge_calls_cached,
    tokens_text,
)
from assay.reports.formatting import figures
from assay.reports.text import markup_free as escape
from assay.shown_numbers import count
from assay.wording import path_text, plural

if TYPE_CHECKING:
    from assay.analysis.summary import ConditionStats, RunSummary
    from assay.records import RunRecord
    from assay.reports.costs import RunCosts
    from assay.review.result import GateBars, Review

Detail: TypeAlias = Literal["quiet", "normal", "verbose"]
VERDICT_STYLE = {"better": "bold green", "worse": "bold red", "within noise": "bold",
                 "no comparison": "bold", "not comparable": "bold yellow"}


def print_review(out: Any, review: Review, *, detail: Detail = "normal") -> None:
    """Everything `assay run` prints about one finished run, in reading order."""
    for level, part in SECTIONS:
        if _shown(level, detail):
            part(out, review, detail)


def print_verdict(out: Any, review: Review, detail: Detail = "normal") -> None:

    from assay.reports.headline import review_headline

    found = review_headline(review)
    style = VERDICT_STYLE[found.outcome]
    out.print(f"[{style}]{escape(found.text)}[/{style}]")


def print_warnings(out: Any, review: Review, detail: Detail = "normal") -> None:
    for warning in review.warnings:
        print_warning(out, warning)


def print_scores(out: Any, review: Review, detail: Detail = "normal") -> None:
    print_summary(out, review.run, review.summary, review.usage, review.costs, review.bars)


def print_errors(out: Any, review: Review, detail: Detail = "normal") -> None:
    from assay.reports.unscored import unscored_warnings

    see = "; see Errors in report.md" if review.files is not None else ""
    for warning in unscored_warnings(review.summary, see):
        print_warning(out, warning)


def print_gates(out: Any, review: Review, detail: Detail = "normal") -> None:
    for gate in review.gates:
        mark = "[green]PASS[/green]" if gate.passed else "[red]FAIL[/red]"
        out.print(f"{mark} gate {escape(gate.gate)}: {escape(gate.detail)}")


def print_judge_findings(out: Any, review: Review, detail: Detail = "normal") -> None:
    from assay.reports.judges import print_judges

    print_judges(out, review.judges)


def print_comparisons(out: Any, review: Review, detail: Detail = "normal") -> None:
    from assay.reports.comparisons import print_condition_comparisons

    print_condition_comparisons(out, review.comparisons, methods=detail == "verbose")


def print_previous(out: Any, review: Review, detail: Detail = "normal") -> None:
    from assay.reports.run_diff import print_run_diff

    previous = review.previous
    if previous is None or previous.run_a is None:
        out.print("[dim]first completed run of this experiment: nothing to compare with yet[/dim]")
    else:
        print_run_diff(out, previous, title=f"vs previous run {previous.run_a.id}")


def print_calls_by_model(out: Any, review: Review, detail: Detail = "normal") -> None:
    """The call ledger per model: calls, cache hits, tokens, cost, retries, failures."""
    models = review.usage.get("by_model") or {}
    if not models:
        return
    costs = review.costs
    rows = [(escape(name), count(m['calls']), count(m['cache_hits']),
             f"{count(m['input_tokens'])}/{count(m['output_tokens'])}", costs.model(m),
             count(m['retries']), count(m['failures'])) for name, m in models.items()]
    title = "calls per model" + (" (this resume)" if review.usage.get("resumed") else "")
    print_table(out, title, [("model", "left"), ("calls", "right"), ("cache hits", "right"),
                             ("tokens in/out", "right"), ("cost", "right"),
                             ("retries", "right"), ("failures", "right")], rows)


def print_files(out: Any, review: Review, detail: Detail = "normal") -> None:
    if review.files is None:
        return
    files = review.files
    out.print(escape(f"results: {path_text(files.results)}\n"
                     f"report:  {path_text(files.markdown)}\nhtml:    {path_text(files.html)}"))
    if files.junit is not None:
        out.print(escape(f"junit:   {path_text(files.junit)}"))



Part: TypeAlias = Callable[[Any, "Review", Detail], None]

SECTIONS: list[tuple[Detail, Part]] = [
    ("quiet", print_verdict), ("quiet", print_warnings), ("normal", print_scores),
    ("quiet", print_errors), ("quiet", print_gates), ("normal", print_judge_findings),
    ("normal", print_comparisons),
    ("normal", print_previous), ("verbose", print_calls_by_model), ("quiet", print_files)]
"""(the least detail that shows it, the part), in the order they print."""


def _shown(level: Detail, detail: Detail) -> bool:
    order = ("quiet", "normal", "verbose")
    return order.index(level) <= order.index(detail)


def print_summary(console: Any, run: RunRecord, summary: RunSummary,
                  usage: dict[str, Any] | None, costs: RunCosts, bars: GateBars) -> None:
    """The scores per scorer and condition, beside the minimums the run's gates hold them
    to (`bars`), the cost per condition (`costs`, the run's), the run's calls."""
    rows = [(escape(s.scorer), escape(s.condition), count(s.n), *figures(s, bars),
             f"[red]{count(s.errors)}[/red]" if s.errors else "0") for s in summary.scores]
    print_table(console, f"{escape(run.experiment)} · run {run.id}",
                [("scorer", "left"), ("condition", "left"), ("n", "right"),
                 ("mean [95% CI]", "right"), ("pass rate [95% CI]", "right"),
                 ("errored trials", "right")], rows, keys=2, group_first=True)
    if any(_spent_or_cached(c) for c in summary.conditions):  # then every condition, as
        # report.md lists them: a row left out would read as a condition that was not run
        shared = judge_calls_cached(summary.conditions)
        print_table(console, "cost and behaviour per condition",
                    [("condition", "left"), ("tokens in/out", "right"), ("cost", "right"),
                     ("judge cost", "right"),
                     *([(CACHED_JUDGE_CALLS, "right"), (SHARED_JUDGE_COST, "right")]
                       if shared else []),
                     (CACHED_TARGET_CALLS, "right"),
                     ("tool calls", "right"), ("tool errors", "right"), ("turns", "right")],
                    [(escape(c.condition), tokens_text(c.input_tokens, c.output_tokens),
                      costs.target(c), costs.judge(c),
                      *([count(c.judge_cache_hits), costs.shared(c)] if shared else []),
                      count(c.cache_hits),
                      count(c.tool_calls), count(c.tool_errors), count(c.turns))
                     for c in summary.conditions])
        if shared:
            console.print(escape(CACHED_JUDGE_CALLS_NOTE))
    total = costs.total()
    calls = usage_text(usage or {}, targets=sum(c.cache_hits for c in summary.conditions))
    if total or calls:
        console.print("; ".join(part for part in (total, calls) if part))


def usage_text(usage: dict[str, Any], *, targets: int | None = None) -> str:
    """`120 LLM calls answered (30 more from the cache, 4 of them for the targets' answers),
    14 retries, 1 call failed`, from the run's ledger, whose calls are the ones a provider
    answered: the cache's answers and the failed calls are counted apart, not among them.

    The ledger's cache hits are the targets' and the judges' calls alike, while the
    per-condition column counts the targets' (`targets`, its sum): the share is said, so
    the column and the total can be checked against each other. A resume's ledger counts
    only its own calls, beside the cost of the whole run, and says so (and no share: the
    column covers the whole run)."""
    calls = int(usage.get("calls") or 0)
    hits = int(usage.get("cache_hits") or 0)
    paid_before = int(usage.get("paid_before") or 0)
    if not calls and not hits and not paid_before:
        return ""
    text = f"{plural(calls, 'LLM call')} answered"
    if usage.get("resumed"):
        text += " by this resume"
    if hits:
        text += f" ({count(hits)} more from the cache{_targets_share(hits, targets, usage)})"
    if paid_before:
        text += (f" ({count(paid_before)} more paid for before the run was stopped, answered from "
                 "the cache and counted at their cost)")
    retries, failures = int(usage.get("retries") or 0), int(usage.get("failures") or 0)
    if retries:
        text += f", {plural(retries, 'retry', 'retries')}"
    if failures:
        text += f", {plural(failures, 'call')} failed"
    return text


def _targets_share(hits: int, targets: int | None, usage: dict[str, Any]) -> str:
    """`, 4 of them for the targets' answers`; "" when the ledger and the stored trials do
    not cover the same calls (a resume, or a count the ledger cannot hold)."""
    if targets is None or usage.get("resumed") or targets > hits:
        return ""
    if targets == hits:
        return ", all for the targets' answers"
    if targets == 0:
        return ", none for the targets' answers"
    return f", {count(targets)} of them for the targets' answers"


def _spent_or_cached(c: ConditionStats) -> bool:
    """Worth the table: calls were made or paid for, or answered from the cache (a cost of $0
    from the cache is news: it shows the cache worked)."""
    return (bool(c.input_tokens or c.judge_input_tokens or c.tool_calls or c.cache_hits)
            or c.cost_usd is not None or c.judge_cost_usd is not None)
