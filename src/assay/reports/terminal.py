"""The run on the terminal at the end of `assay run`: warnings, summary, comparisons, diff."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.reports.formatting import fmt_cost, fmt_mean, fmt_pass_rate

if TYPE_CHECKING:
    from assay.analysis.summary import ConditionStats, RunSummary
    from assay.records import RunRecord
    from assay.review.result import GateResult, Review


def print_review(out: Any, review: Review) -> None:
    """Everything `assay run` prints about one finished run, in reading order."""
    from assay.reports.comparisons import print_condition_comparisons
    from assay.reports.run_diff import print_run_diff

    for warning in review.warnings:
        out.print(f"[yellow]warning:[/yellow] {warning}")
    print_summary(out, review.run, review.summary, review.gates, review.usage)
    print_condition_comparisons(out, review.comparisons)
    previous = review.previous
    if previous is None or previous.run_a is None:
        out.print("[dim]first completed run of this experiment: nothing to compare with yet[/dim]")
    else:
        print_run_diff(out, previous, title=f"vs previous run {previous.run_a.id}")
    if review.files is not None:
        files = review.files
        out.print(f"results: {files.results}\nreport:  {files.markdown}\nhtml:    {files.html}")
        if files.junit is not None:
            out.print(f"junit:   {files.junit}")


def print_summary(console: Any, run: RunRecord, summary: RunSummary,
                  gates: Sequence[GateResult], usage: dict[str, Any] | None = None) -> None:
    from rich import box
    from rich.table import Table

    # A light box and unwrapped numbers: the table must read in an 80-column CI log.
    table = Table(title=f"{run.experiment} · run {run.id}", title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for column, justify in (("scorer", "left"), ("condition", "left"), ("n", "right"),
                            ("mean [95% CI]", "right"), ("pass rate [95% CI]", "right"),
                            ("errors", "right")):
        table.add_column(column, justify=justify,  # type: ignore[arg-type]
                         no_wrap=column not in ("scorer", "condition"))
    previous = None
    for stats in summary.scores:
        table.add_row(stats.scorer if stats.scorer != previous else "", stats.condition,
                      str(stats.n), fmt_mean(stats), fmt_pass_rate(stats),
                      f"[red]{stats.errors}[/red]" if stats.errors else "0")
        previous = stats.scorer
    console.print(table)
    failed = sum(c.errors for c in summary.conditions)
    if failed:
        total = sum(c.trials for c in summary.conditions)
        example = next((e for c in summary.conditions for e in c.error_examples), "")
        console.print(f"[yellow]warning:[/yellow] {failed} of {total} trials ended in an error "
                      f"and were not scored (first: {example}); see Errors in report.md")
    costs = [c for c in summary.conditions if _spent_or_cached(c)]
    if costs:
        cost_table = Table(title="cost and behaviour per condition", title_justify="left")
        for column in ("condition", "tokens in/out", "cost", "judge cost", "cache hits",
                       "tool calls",
                       "tool errors"):
            cost_table.add_column(column, justify="left" if column == "condition" else "right")
        for c in costs:
            cost_table.add_row(c.condition, f"{c.input_tokens:,}/{c.output_tokens:,}",
                               fmt_cost(c.cost_usd), fmt_cost(c.judge_cost_usd),
                               str(c.cache_hits), str(c.tool_calls),
                               str(c.tool_errors))
        console.print(cost_table)
    if usage:
        parts = [f"{k.replace('_', ' ')}: {v}" for k, v in usage.items()
                 if v not in (None, 0) and not isinstance(v, dict)]
        if parts:
            console.print("calls: " + ", ".join(parts))
    for gate in gates:
        mark = "[green]PASS[/green]" if gate.passed else "[red]FAIL[/red]"
        console.print(f"{mark} gate {gate.gate}: {gate.detail}")


def _spent_or_cached(c: ConditionStats) -> bool:
    """Worth a row: calls were made or paid for, or answered from the cache (a cost of $0
    from the cache is news: it shows the cache worked)."""
    return (bool(c.input_tokens or c.judge_input_tokens or c.tool_calls or c.cache_hits)
            or c.cost_usd is not None or c.judge_cost_usd is not None)
