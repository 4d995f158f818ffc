"""Paired comparisons for people: the terminal table and the report.md section.

One row per comparison shows the headline metric (pass rate when the scorer
gives verdicts, else the mean) on both sides, the delta with its CI, the
p-value (Holm-adjusted over everything shown), the test's verdict and,
labelled `pack reading: ...`, the Knowledge Packs size band: its
"significant regression" is a size, not the test's call. Deltas are green
when B is higher and red when lower; bold when the test says the
difference is real.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.analysis.interval import Interval
from assay.analysis.conditions import ComparisonEntry, ConditionComparisons
from assay.analysis.paired import PairedComparison
from assay.knowledge_packs.bands import labelled
from assay.analysis.verdict import format_p

MAX_IDS_TERMINAL = 10
MAX_IDS_MARKDOWN = 200


def headline(c: PairedComparison) -> tuple[str, str, str, str]:
    """(A, B, delta, CI) of the headline metric, as text."""
    if c.kind == "pass_fail" and c.pass_rate_a is not None and c.pass_rate_b is not None:
        assert c.delta_pp is not None and c.ci_pp is not None
        return (f"{c.pass_rate_a:.1%}", f"{c.pass_rate_b:.1%}", f"{c.delta_pp:+.1f}pp",
                f"{c.ci_pp.low:+.1f}..{c.ci_pp.high:+.1f}pp{_method(c.ci_pp)}")
    digits = 2 if abs(c.mean_a) >= 10 or abs(c.mean_b) >= 10 else 3
    return (f"{c.mean_a:.{digits}f}", f"{c.mean_b:.{digits}f}", f"{c.delta_mean:+.{digits}f}",
            f"{c.ci_mean.low:+.{digits}f}..{c.ci_mean.high:+.{digits}f}{_method(c.ci_mean)}")


def _method(interval: Interval) -> str:
    """A computed small-sample interval says so; the bootstrap is the unmarked default."""
    return "" if interval.method == "bootstrap" else f" ({interval.method})"


def headline_delta(c: PairedComparison) -> float:
    return c.delta_pp if c.kind == "pass_fail" and c.delta_pp is not None else c.delta_mean


def p_text(c: PairedComparison) -> str:
    text = format_p(c.p_value)
    return text + (f" (Holm, {c.family_size})" if c.p_adjusted is not None and c.family_size > 1
                   else "")


def evidence(c: PairedComparison) -> str:
    return "significant" if c.significant else "no significant difference"


def coloured_delta(c: PairedComparison, text: str) -> str:
    delta = headline_delta(c)
    colour = "green" if delta > 1e-12 else "red" if delta < -1e-12 else "dim"
    style = f"bold {colour}" if c.significant and colour != "dim" else colour
    return f"[{style}]{text}[/{style}]"


def id_list(ids: Sequence[str], limit: int) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" … and {len(ids) - limit} more" if len(ids) > limit else "")


def outcome_names(c: PairedComparison) -> tuple[str, str]:
    """What wins and losses are called for this comparison's headline metric."""
    return ("passes", "fails") if c.kind == "pass_fail" else ("scores higher", "scores lower")


def comparison_lines(entries: Sequence[ComparisonEntry], label: Any) -> list[str]:
    """One aligned line per comparison (lines, not a table, so CI logs at 80 columns stay legible).

    `label(entry)` names the row; the delta is coloured, the rest is plain.
    """
    names = [label(e) for e in entries]
    width = max((len(n) for n in names), default=0)
    lines = []
    for name, entry in zip(names, entries):
        c = entry.comparison
        a, b, delta, ci = headline(c)
        lines.append(f"  {name:<{width}}  {a} → {b}  {coloured_delta(c, delta)}  95% CI {ci}  "
                     f"{format_p(c.p_value)}  {evidence(c)} · {labelled(c.reading)}  n={c.n}")
    return lines


def print_condition_comparisons(console: Any, comps: ConditionComparisons) -> None:
    """The comparison of each condition with the baseline, printed after the run's table."""
    if not comps.entries and not comps.skipped:
        return
    if comps.entries:
        console.print(f"[bold]conditions vs baseline '{comps.baseline}'[/bold] (paired by case; "
                      f"p Holm-adjusted over {len(comps.entries)})")
        for line in comparison_lines(
                comps.entries, lambda e: f"{e.comparison.scorer} · {e.comparison.label_b}"):
            console.print(line)
    for entry in comps.entries:
        c = entry.comparison
        if c.significant:
            continue  # advice on sample size helps where the difference is not yet clear
        advice = next((a for a in entry.advice if (a.metric == "pass_rate")
                       == (c.kind == "pass_fail")), None)
        if advice is not None:
            console.print(f"  [dim]{c.scorer} · {c.label_b}: {advice.summary()}[/dim]")
    for line in comps.skipped:
        console.print(f"[yellow]not compared:[/yellow] {line}")


def condition_comparisons_markdown(comps: ConditionComparisons) -> str:
    """The report.md section: the table, the verdicts, wins and losses per case, and advice."""
    lines = [f"## Conditions compared with `{comps.baseline}`", "",
             (f"Paired over the cases both conditions answered; p-values Holm-adjusted over "
              f"the {len(comps.entries)} comparisons shown (alpha {comps.alpha:g})."), ""]
    if comps.entries:
        lines += markdown_table(comps.entries, "scorer", "condition",
                                lambda e: (e.comparison.scorer or "", e.comparison.label_b))
    for entry in comps.entries:
        c = entry.comparison
        lines += ["", f"### {c.scorer}: {c.label_b} vs {c.label_a}", "", f"- {c.verdict}"]
        lines += case_lines(c, f"{c.label_b} wins", f"{c.label_b} loses")
        lines += [f"- sample size ({a.metric.replace('_', ' ')}): {a.summary()}"
                  for a in entry.advice]
        lines += excluded_line(c)
    lines += [f"- not compared: {line}" for line in comps.skipped]
    return "\n".join(lines)


def markdown_table(entries: Sequence[ComparisonEntry], first: str, second: str,
                   label: Any) -> list[str]:
    rows = [(f"| {first} | {second} | n | before | after | delta | 95% CI | p | test verdict "
             "| pack reading (size band) |"),
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for entry in entries:
        c = entry.comparison
        a, b, delta, ci = headline(c)
        one, two = label(entry)
        rows.append(f"| {one} | {two} | {c.n} | {a} | {b} | {delta} | {ci} | {p_text(c)} | "
                    f"{evidence(c)} | {c.reading or '-'} |")
    return rows


def case_lines(c: PairedComparison, win_label: str, loss_label: str) -> list[str]:
    lines = []
    for name, ids in ((win_label, c.wins), (loss_label, c.losses)):
        shown = ", ".join(f"`{i}`" for i in ids[:MAX_IDS_MARKDOWN])
        more = f" … and {len(ids) - MAX_IDS_MARKDOWN} more" if len(ids) > MAX_IDS_MARKDOWN else ""
        lines.append(f"- {name} ({len(ids)}): {shown or 'none'}{more}")
    lines.append(f"- ties: {len(c.ties)}")
    return lines


def excluded_line(c: PairedComparison) -> list[str]:
    ex = c.excluded
    if not ex.count:
        return []
    return [(f"- left out: {ex.count} cases ({len(ex.only_in_a)} only in {c.label_a}, "
             f"{len(ex.only_in_b)} only in {c.label_b}, {len(ex.no_value)} without a usable "
             "result)")]
