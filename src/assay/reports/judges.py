"""The judges' section of a run's reports: calibrated or not, metrics, claims, instability, pairs.

One set of rows (`judge_sections`) rendered three ways: the console at the
end of `assay run`, `report.md`, and `report.html` (through the
`sections/judges.html.j2` section). A pure renderer of `review.judges`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.analysis.verdict import format_p, level_text
from assay.reports.formatting import percent
from assay.reports.text import inline
from assay.shown_numbers import count, fixed, significant
from assay.wording import plural

if TYPE_CHECKING:
    from assay.analysis.interval import Interval
    from assay.analysis.pairwise_verdicts import PairwiseResult
    from assay.review.judges import JudgeReview

MAX_CASES = 50
"""Unstable cases listed per scorer and condition in the text reports."""


@dataclass
class Table:
    """A titled table of text cells, with lines to say after it."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    right: int = 1
    """Columns from this index on are numbers (right-aligned)."""
    label: int = 2
    """The first columns name the row (the console writes them as its label)."""


def judge_sections(judges: JudgeReview) -> list[Table]:
    """Every table the judges give, in reading order (empty when the run had no judge)."""
    sections = [_calibration(judges)] if judges.statuses else []
    findings = judges.findings
    if findings.pairwise:
        sections.append(_pairwise(findings.pairwise))
    if findings.metrics:
        sections.append(_metrics(judges))
    if findings.unstable:
        sections.append(_unstable(judges))
    if findings.consistency:
        sections.append(_consistency(judges))
    if findings.variance:
        sections.append(_variance(judges))
    return [section for section in sections if section.rows or section.notes]


def uncalibrated_line(judges: JudgeReview) -> str | None:
    """`uncalibrated judge: ...` when any judge of the run has no passing calibration."""
    missing = judges.uncalibrated
    if not missing:
        return None
    names = ", ".join(f"{s.scorer} ({s.model})" for s in missing)
    verb = "have" if len(missing) > 1 else "has"
    return (f"uncalibrated judge: {names} {verb} no passing calibration against people's "
            "labels, so the verdicts are unchecked (see `assay calibrate`)")


def _calibration(judges: JudgeReview) -> Table:
    table = Table("Judges", ["scorer", "judge model", "prompt", "calibration"], right=99)
    for status in judges.statuses:
        c = status.calibration
        if c is None:
            text = "uncalibrated judge"
        else:
            kappa = "" if c.kappa is None else f", kappa {fixed(c.kappa, 2)}"
            text = (f"agreement {percent(c.agreement or 0)}{kappa}, n={count(c.n)} ({c.id}, "
                    f"{c.created_at[:10]})")
        table.rows.append([status.scorer, status.model or "-", status.prompt_hash or "-", text])
    line = uncalibrated_line(judges)
    if line:
        table.notes.append(line)
    if judges.rejudge_of:
        table.notes.append(f"these verdicts judge again the stored outputs of run "
                           f"{judges.rejudge_of} (no target was called)")
    return table


def _pairwise(results: list[PairwiseResult]) -> Table:
    table = Table("Pairwise verdicts (both orders asked)",
                  ["scorer", "B vs A", "n", "wins/ties/losses", "win rate [CI]", "sign test",
                   "verdict", "consistent", "first-position rate", "tie verdicts"], right=2)
    for r in results:
        p = format_p(r.p_adjusted if r.p_adjusted is not None else r.test.p_value)
        verdict = (f"{r.preferred} preferred" if r.preferred else "within noise")
        if r.n == 0:  # no pair has a verdict: nothing was tested, so nothing is "noise"
            p, verdict = "-", "no verdict: no pair was judged"
        ci = _ci(r.interval, shares=True)
        rate = "-" if r.win_rate is None else percent(r.win_rate)
        level = "" if r.interval is None else f" ({level_text(r.interval.confidence)})"
        positions = r.positions
        first = "-" if positions.first_position_rate is None else \
            _beside(percent(positions.first_position_rate),
                    _ci(positions.first_position_ci, True))
        table.rows.append([
            r.scorer or "pairwise", f"{r.label_b} vs {r.label_a}", str(r.n),
            f"{count(r.wins)}/{count(r.ties)}/{count(r.losses)}", _beside(rate, ci + level), p, verdict,
            "-" if positions.consistency is None else percent(positions.consistency),
            first, "-" if positions.tie_rate is None else percent(positions.tie_rate)])
        if r.inconsistent:
            table.notes.append(f"{r.scorer} {r.label_b} vs {r.label_a}: {r.inconsistent} of "
                               f"{plural(r.n, 'pair')} changed winner with the order, each "
                               "counted as a tie")
        if positions.first_position_test is not None:
            table.notes.append(f"{r.scorer} {r.label_b} vs {r.label_a}: first-position rate: "
                               f"{positions.lean_note()}")
        if r.errored:
            table.notes.append(f"{r.scorer} {r.label_b} vs {r.label_a}: "
                               f"{plural(r.errored, 'pair')} without a verdict (a judge error)")
    table.notes.append("win rate: wins / (wins + losses), Clopper-Pearson interval and exact "
                       "sign test" + (", Holm-adjusted" if any(r.family_size > 1
                                                                for r in results) else "")
                       + "; first-position rate: Tango interval over the items both orders "
                       "named an answer, McNemar's test of no lean")
    return table


def _metrics(judges: JudgeReview) -> Table:
    findings = judges.findings
    claims = {(c.scorer, c.condition): c for c in findings.claims}
    table = Table("Rubric metrics per condition", ["scorer", "metric", "condition", "n",
                                                   "mean [95% CI]"], right=3)
    for m in findings.metrics:
        table.rows.append([m.scorer, m.metric, m.condition, str(m.n),
                           _beside(fixed(m.mean, 2), _ci(m.interval))])
    for c in claims.values():
        table.notes.append(f"{c.scorer} · {c.condition}: "
                           f"{plural(c.claims, 'unverified claim')} in "
                           f"{c.with_claims} of {plural(c.trials, 'answer')}")
    return table


def _unstable(judges: JudgeReview) -> Table:
    table = Table("Unstable verdicts (repeated asks fell on both sides of the pass line)",
                  ["scorer", "condition", "unstable", "of verdicts"], right=2)
    for u in judges.findings.unstable:
        table.rows.append([u.scorer, u.condition, str(u.unstable), str(u.judged)])
        if u.cases:
            shown = ", ".join(u.cases[:MAX_CASES])
            more = u.unstable - min(len(u.cases), MAX_CASES)
            table.notes.append(f"{u.scorer} · {u.condition}: {shown}"
                               + (f" ... and {more} more" if more > 0 else ""))
    return table


def _consistency(judges: JudgeReview) -> Table:
    table = Table("Judge self-consistency (the same answer asked again)",
                  ["scorer", "answers", "asks", "flip rate [CI]", "pair disagreement",
                   "score SD", "alpha (scores)", "alpha (verdicts)"], right=1, label=1)
    for c in judges.findings.consistency:
        table.rows.append([
            c.scorer, str(c.items), str(c.repeats),
            "-" if c.flip_rate is None else _beside(percent(c.flip_rate), _ci(c.flip_ci, True)),
            "-" if c.pair_disagreement is None else percent(c.pair_disagreement),
            "-" if c.score_sd is None else fixed(c.score_sd, 2),
            _alpha(c.score_alpha), _alpha(c.verdict_alpha)])
    table.notes.append("flip rate: answers whose asks did not all agree on pass/fail; "
                       "alpha: Krippendorff's, the asks as raters (1 = never changes its mind)")
    return table


def _variance(judges: JudgeReview) -> Table:
    findings = judges.findings
    table = Table("Agent or judge? Score variance per condition",
                  ["scorer", "condition", "epochs", "asks", "agent variance",
                   "judge variance", "judge share"], right=2)
    for scorer, v in findings.variance:
        table.rows.append([scorer, v.condition, str(v.epochs), str(v.repeats),
                           _number(v.agent_variance), _number(v.judge_variance),
                           "-" if v.judge_share is None else percent(v.judge_share, 0)])
    for scorer, d in findings.deltas:
        if d.judge_share is not None:
            table.notes.append(
                f"{scorer} · {d.label_b} vs {d.label_a}: the judge gives "
                f"{percent(d.judge_share, 0)} of "
                f"the delta's uncertainty (its variance over {plural(d.cases, 'case')}) with "
                f"{plural(d.asks, 'ask')} per answer"
                # a rejudge's asks (the table's) explain the deltas of the run it judged again
                + (f", as run {judges.rejudge_of} asked" if judges.rejudge_of else ""))
    if any(v.agent_variance is None for _, v in findings.variance):
        table.notes.append("with one epoch the agent's variation cannot be told from the "
                           "case's: run more epochs to split it")
    return table


# -- the three renderings --------------------------------------------------------------------


def judges_markdown(judges: JudgeReview) -> str:
    """The judges' sections of `report.md` ("" without a judge)."""
    return _markdown(judge_sections(judges))


def _markdown(tables: list[Table]) -> str:
    lines: list[str] = []
    for table in tables:
        lines += [f"## {table.title}", "", "| " + " | ".join(table.columns) + " |",
                  "| " + " | ".join("---:" if i >= table.right else "---"
                                    for i in range(len(table.columns))) + " |"]
        lines += ["| " + " | ".join(inline(cell, None) for cell in row) + " |"
                  for row in table.rows]
        if table.notes:
            lines += [""] + [f"- {inline(note, None)}" for note in table.notes]
        lines.append("")
    return "\n".join(lines).rstrip()


def print_judges(out: Any, judges: JudgeReview) -> None:
    """The judges' sections on the console, a line per row so nothing is cut at 80 columns
    (nothing without a judge)."""
    from assay.reports.text import markup_free as escape

    for table in judge_sections(judges):
        if table.title == "Judges":
            line = uncalibrated_line(judges)
            if line:
                out.print(f"[yellow]warning:[/yellow] {escape(line)}")
            continue  # the console names only what needs attention
        out.print(f"[bold]{escape(table.title.lower())}[/bold]")
        for row in table.rows:
            label = " · ".join(row[:table.label])
            fields = ", ".join(f"{column} {cell}" for column, cell in
                               zip(table.columns[table.label:], row[table.label:]))
            out.print(f"  {escape(label)}: {escape(fields)}")
        for note in table.notes:
            out.print(f"  [dim]{escape(note)}[/dim]")


def print_pairwise(out: Any, results: list[PairwiseResult]) -> None:
    """`assay compare --pairwise` on the console."""
    from assay.reports.text import markup_free as escape

    table = _pairwise(results)
    out.print(f"[bold]{escape(table.title.lower())}[/bold]")
    for row in table.rows:
        fields = ", ".join(f"{column} {cell}" for column, cell in
                           zip(table.columns[2:], row[2:]))
        out.print(f"  {escape(row[1])}: {escape(fields)}")
    for note in table.notes:
        out.print(f"  [dim]{escape(note)}[/dim]")


def pairwise_markdown(results: list[PairwiseResult]) -> str:
    """`assay compare --pairwise -o FILE`: the pairwise table in Markdown."""
    return _markdown([_pairwise(results)])


def _ci(interval: Interval | None, shares: bool = False) -> str:
    """`[61.3%–80.6%]`: a share's bounds at the decimal of the rate printed beside them, as
    the score tables write theirs (whole percents read `70.8% [61%–81%]`)."""
    if interval is None:
        return ""
    if shares:
        return f"[{percent(interval.low)}–{percent(interval.high)}]"
    return f"[{fixed(interval.low, 2)}–{fixed(interval.high, 2)}]"


def _alpha(alpha: Any) -> str:
    if alpha is None or alpha.value is None:
        return "-"
    return _beside(fixed(alpha.value, 2), _ci(alpha.interval))


def _beside(value: str, interval: str) -> str:
    """A value and its interval, or the value alone when it has none (not a dangling space,
    which one-line-per-measure output shows as '1.00 ,')."""
    return f"{value} {interval}" if interval else value


def _number(value: float | None) -> str:
    return "-" if value is None else significant(value, 3)
