"""The Performance rows of an `assay traces` analysis, from the metrics stored with its run.

`eval-report.md` and `assay view` both show them, so both read them from here and
print the same figures ("tool error rate 5%", "cost $30.3302").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.shown_numbers import bound_percent, count, dollars, percent_beside
from assay.wording import plural


def _pct(value: float | None, target: float | None = None) -> str:
    """A whole percentage that is 0% or 100% only when exactly so (one tool error in 1,000
    calls is `0.1%`), with the digits that show which side of `target` it is on."""
    return "n/a" if value is None else percent_beside(value, target, 0)


def _num(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def performance(metrics: Mapping[str, Any], hit_rate_target: float | None
                ) -> list[tuple[str, str]]:
    """The Performance table's rows, from the metrics as stored with the run
    (`TraceMetrics.to_dict`), so the report and `assay view` read the same; the wiki hit
    rate only with a target (sessions answered from a knowledge base)."""
    def counted(name: str) -> str:
        value = metrics.get(name)
        return "n/a" if value is None else count(value)

    rows = []
    if hit_rate_target is not None:
        rows.append(("wiki hit rate (answered without reading source files)",
                     (f"{_pct(metrics.get('wiki_hit_rate'), hit_rate_target)} "
                     f"(target {bound_percent(hit_rate_target)})")))
    return rows + [
        ("source-file reads (a file counted once per question)", counted("source_reads")),
        ("wasted reads (read, never cited in the answer)",
         wasted_reads(metrics.get("wasted_reads"), metrics.get("answered_source_reads"))),
        ("tool calls", counted("tool_calls")),
        ("tool error rate", _pct(metrics.get("tool_error_rate"))),
        ("turns per question", _num(metrics.get("turns_per_exchange"))),
        ("tokens per question", _tokens(metrics)),
        ("cost", _cost(metrics.get("cost_usd"), metrics.get("unpriced_turns") or 0)),
    ]


def _tokens(metrics: Mapping[str, Any]) -> str:
    """The tokens per question; unknown, not 0, when no model response logged its usage
    (beside a cost that is unknown for the same reason)."""
    per_question = metrics.get("tokens_per_exchange")
    if per_question is None and metrics.get("exchanges"):
        return "unknown (no model response logged its token usage)"
    return _num(per_question, 0)


def wasted_reads(wasted: int | None, out_of: int | None) -> str:
    """`12 of 33 source-file reads in answered questions`: what the count is out of, the same
    words on the terminal, in eval-report.md, guidelines.md and `assay view`. A run stored
    before the reads of answered questions were counted shows the count alone."""
    if wasted is None:
        return "n/a"
    if out_of is None:
        return count(wasted)
    return f"{count(wasted)} of {plural(out_of, 'source-file read')} in answered questions"


def _cost(cost_usd: float | None, unpriced_turns: int) -> str:
    """The logged cost, and the model responses it leaves out because they logged none."""
    if cost_usd is None:
        return "unknown (no model response logged a cost)" if unpriced_turns else "unknown"
    if not unpriced_turns:
        return dollars(cost_usd)
    return (f"{dollars(cost_usd)}, not counting "
            f"{plural(unpriced_turns, 'model response')} that logged no cost")
