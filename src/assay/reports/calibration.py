"""A calibration for people: the verdict on the bar first, then every measure, in four formats.

Terminal, Markdown and HTML show the same rows (`measure_rows`): the
measure, its value, its 95% interval and a note; then the confusion
matrix, per-label precision and recall, and the items the judge got wrong.
JSON is the calibration's own `to_dict`. `assay calibrate --list` shows
stored calibrations as a table (`print_calibration_list`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.analysis.verdict import bounds_text, format_p, off_zero
from assay.reports.formatting import percent
from assay.shown_numbers import adding_up, bound_percent, count, fixed, fixed_beside, percent_beside
from assay.wording import plural

if TYPE_CHECKING:
    from assay.analysis.interval import Interval
    from assay.analysis.kappa import Kappa
    from assay.calibration.measure import Calibration
    from assay.records import CalibrationRecord

MAX_IDS = 30

Row = tuple[str, str, str, str]
"""(measure, value, 95% interval, note)."""


def headline(cal: Calibration) -> str:
    """`PASS`/`BELOW THE BAR` and why, in one line."""
    bar = []
    if cal.min_agreement is not None:
        bar.append(f"agreement >= {bound_percent(cal.min_agreement)}")
    if cal.min_kappa is not None:
        bar.append(f"kappa >= {cal.min_kappa:g}")
    kappa = "-" if cal.kappa is None else fixed_beside(cal.kappa, cal.min_kappa)
    line = (f"agreement {percent_beside(cal.agreement, cal.min_agreement)}, "
            f"{cal.measures.kappa.name} {kappa} "
            f"over {plural(cal.n, 'item')}")
    if not bar:
        return f"{line} (no bar set)"
    if cal.passed:
        return f"PASS: {line} (bar: {', '.join(bar)})"
    return f"BELOW THE BAR: {'; '.join(cal.shortfalls)} ({line})"


def judge_line(cal: Calibration) -> str:
    who = cal.identity
    parts = [f"model {who.model or 'unknown'}"]
    if who.prompt_hash:
        parts.append(f"prompt {who.prompt_hash}")
    if who.rubric_version:
        parts.append(f"rubric {who.rubric_version}")
    name = f"scorer '{cal.scorer}'" if cal.scorer else "judge"
    return f"{name} ({', '.join(parts)})"


def measure_rows(cal: Calibration) -> list[Row]:
    """Every measure of the calibration as (name, value, interval, note)."""
    from assay.analysis.pairwise_agreement import PairwiseAgreement

    m = cal.measures
    if isinstance(m, PairwiseAgreement):
        positions = m.positions
        rows: list[Row] = [
            ("items", str(m.n), "", f"{m.human_ties} preferred neither"),
            ("accuracy, A shown first", _rate(m.a_first.rate), _ci(m.a_first.interval), ""),
            ("accuracy, B shown first", _rate(m.b_first.rate), _ci(m.b_first.interval), ""),
            ("accuracy when both orders agree", _rate(m.consistent.rate),
             _ci(m.consistent.interval), f"{count(m.consistent.n)} of {plural(m.n, 'item')}"),
            ("accuracy of the reconciled verdict", _rate(m.reconciled.rate),
             _ci(m.reconciled.interval), "a position-inconsistent pair reads as a tie"),
            _kappa_row(m.kappa, "over preferred A / B / tie"),
            ("positional consistency", _rate(positions.consistency),
             _ci(positions.consistency_ci), "the same winner in both orders"),
            ("first-position rate", _rate(positions.first_position_rate),
             _ci(positions.first_position_ci), positions.lean_note()),
            ("tie rate", _rate(positions.tie_rate), "",
             f"{positions.tie_verdicts} of {positions.verdicts} single verdicts"),
        ]
        return rows
    rows = [("items", str(m.n), "", f"{m.raters} rater{'s' if m.raters > 1 else ''} per item"
             + (f"; {count(len(m.split))} left out (raters split evenly)" if m.split else "")),
            ("raw agreement", _rate(m.agreement), _ci(m.agreement_ci), ""),
            _kappa_row(m.kappa, "beyond chance: 1 perfect, 0 chance")]
    if m.unweighted_kappa is not None:
        rows.append(_kappa_row(m.unweighted_kappa, "every miss a full miss"))
    if m.within_one is not None:
        rows.append(("within one point", _rate(m.within_one), "", ""))
    effect = m.leniency
    unit = "pp" if effect is not None and effect.metric == "pass_rate" else ""
    digits = 1 if unit else 2
    if effect is not None:  # a leniency that is not 0 never reads as 0
        digits = off_zero(effect.estimate, digits)
    if m.human_pass_rate is not None and m.judge_pass_rate is not None:
        people, judge = m.human_pass_rate, m.judge_pass_rate
        people_text, judge_text = percent(people), percent(judge)
        if effect is not None and unit:  # the leniency below is judge less people
            people_text, judge_text, _, digits = adding_up(
                lambda d: percent(people, d), lambda d: percent(judge, d), effect.estimate,
                digits)
        rows.append(("pass rate: people / judge", f"{people_text} / {judge_text}", "", ""))
    if effect is not None:
        lean = ("more lenient than people" if effect.estimate > 0 else "stricter than people")
        note = (f"{lean}, significant" if effect.significant else "within noise") + \
            f" ({effect.test.name} {format_p(effect.test.p_value)})"
        rows.append((f"leniency (judge - people{' pass rate' if unit else ' mean'})",
                     f"{fixed(effect.estimate, digits, signed=True)}{unit}",
                     f"{bounds_text(effect.interval, digits)}{unit}", note))
    for title, alpha in (("Krippendorff's alpha among people", m.human_alpha),
                         ("Krippendorff's alpha with the judge", m.alpha_with_judge)):
        if alpha is not None:
            value = "-" if alpha.value is None else fixed(alpha.value, 2)
            rows.append((title, value, _ci(alpha.interval, digits=2),
                         f"{alpha.level}, {plural(alpha.raters, 'rater')}, "
                         f"{plural(alpha.items, 'item')}"
                         + (f"; {alpha.note}" if alpha.note else "")))
    return rows


def confusion_rows(cal: Calibration) -> tuple[list[str], list[list[str]]] | None:
    """(column headings, rows) of the confusion matrix: rows people, columns the judge."""
    from assay.analysis.judge_agreement import JudgeAgreement

    if not isinstance(cal.measures, JudgeAgreement):
        return None
    confusion = cal.measures.confusion
    heads = ["people \\ judge", *confusion.categories]
    rows = [[category, *(str(v) for v in counts)]
            for category, counts in zip(confusion.categories, confusion.counts)]
    return heads, rows


def label_rows(cal: Calibration) -> list[list[str]]:
    from assay.analysis.judge_agreement import JudgeAgreement

    if not isinstance(cal.measures, JudgeAgreement):
        return []
    return [[label.label, _rate(label.precision), _rate(label.recall), str(label.human),
             str(label.judge)] for label in cal.measures.labels]


def problem_lines(cal: Calibration) -> list[str]:
    """The items to look at and what was left out."""
    out = []
    wrong = cal.measures.disagreements
    if wrong:
        out.append(f"the judge disagrees with people on {plural(len(wrong), 'item')}: {_ids(wrong)}")
    if cal.only_labelled:
        out.append(f"left out, no verdict: {plural(len(cal.only_labelled), 'labelled item')} "
                   f"({_ids(cal.only_labelled)})")
    if cal.judge_errors:
        first_id, first = next(iter(cal.judge_errors.items()))
        out.append(f"left out, a judge error: {plural(len(cal.judge_errors), 'item')} "
                   f"(first: {first_id}: {first[:200]})")
    if cal.unlabelled:
        out.append(f"left out, an empty label: {plural(len(cal.unlabelled), 'item')} of the "
                   f"labels file ({_ids(cal.unlabelled)})")
    if cal.only_judged:
        out.append(f"left out, no label: {plural(len(cal.only_judged), 'judged item')} "
                   f"({_ids(cal.only_judged)})")
    return out + [f"note: {note}" for note in cal.notes]


# -- the four formats ------------------------------------------------------------------------


def calibration_json(cal: Calibration) -> str:
    return json.dumps(cal.to_dict(), indent=2, ensure_ascii=False, default=str)


def calibration_markdown(cal: Calibration) -> str:
    lines = [f"# Calibration of {judge_line(cal)}", "",
             f"**{headline(cal)}**", "",
             f"- labels: `{cal.labels_path}` ({cal.kind.replace('_', '/')})",
             f"- verdicts: {cal.source}", "",
             "| measure | value | 95% CI | note |", "| --- | ---: | ---: | --- |"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in measure_rows(cal)]
    table = confusion_rows(cal)
    if table is not None:
        heads, rows = table
        lines += ["", "## Confusion matrix", "", "| " + " | ".join(heads) + " |",
                  "| --- |" + " ---: |" * (len(heads) - 1)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
    labels = label_rows(cal)
    if labels:
        lines += ["", "## Per label", "", "| label | precision | recall | people | judge |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        lines += ["| " + " | ".join(row) + " |" for row in labels]
    problems = problem_lines(cal)
    if problems:
        lines += ["", "## Items", ""] + [f"- {line}" for line in problems]
    return "\n".join(lines) + "\n"


def print_calibration(out: Any, cal: Calibration) -> None:
    """The calibration on a terminal; a table too wide for it is a list (`print_table`), so no
    column is dropped: a cut table showed an interval's low end where the value belonged."""
    from assay.reports.console import print_table
    from assay.reports.text import markup_free as escape

    def texts(rows: list[Any]) -> list[list[str]]:  # item ids, labels and errors are data
        return [[escape(cell) for cell in row] for row in rows]

    colour = "green" if cal.passed else "red"
    out.print(f"[bold]calibration of {escape(judge_line(cal))}[/bold]")
    out.print(escape(f"labels: {cal.labels_path} ({cal.kind.replace('_', '/')}); "
                     f"verdicts: {cal.source}"))
    print_table(out, "", [("measure", "left"), ("value", "right"), ("95% CI", "right"),
                          ("note", "left")], texts(measure_rows(cal)))
    matrix = confusion_rows(cal)
    if matrix is not None:
        heads, rows = matrix
        print_table(out, "confusion matrix",
                    [(escape(head), "left" if index == 0 else "right") for index, head in
                     enumerate(heads)], texts(rows))
    labels = label_rows(cal)
    if labels:
        print_table(out, "", [("label", "left"), ("precision", "right"), ("recall", "right"),
                              ("people", "right"), ("judge", "right")], texts(labels))
    for line in problem_lines(cal):
        out.print(f"[dim]{escape(line)}[/dim]")
    out.print(f"[bold {colour}]{escape(headline(cal))}[/bold {colour}]")


def calibration_html(cal: Calibration) -> str:
    from assay.reports.page_policy import content_security_policy
    from assay.reports.pages import template_environment

    return str(template_environment().get_template("calibration.html.j2").render(
        policy=content_security_policy(), cal=cal, judge=judge_line(cal),
        headline=headline(cal), rows=measure_rows(cal), confusion=confusion_rows(cal),
        labels=label_rows(cal), problems=problem_lines(cal)))


def print_calibration_list(out: Any, records: Sequence[CalibrationRecord]) -> None:
    """The stored calibrations, newest first; a list of lines when the table is too wide."""
    from assay.reports.console import print_table
    from assay.reports.text import markup_free as escape

    if not records:
        out.print("no calibrations stored yet: run `assay calibrate CONFIG`")
        return
    rows = []
    for r in records:  # the id holds the date and time
        bar = ", ".join(part for part in (
            f">={bound_percent(r.min_agreement)}" if r.min_agreement is not None else "",
            f"k>={r.min_kappa:g}" if r.min_kappa is not None else "") if part) or "-"
        rows.append((r.id, escape(r.scorer or "-"), escape(r.judge_model or "-"),
                     (r.prompt_hash or "-")[:8],
                     r.kind, str(r.n),
                     "-" if r.agreement is None else percent_beside(r.agreement,
                                                                    r.min_agreement),
                     "-" if r.kappa is None else fixed_beside(r.kappa, r.min_kappa), bar,
                     "[green]pass[/green]" if r.passed else "[red]below the bar[/red]"))
    print_table(out, "calibrations, newest first",
                [(column, "right" if column in ("n", "agreement", "kappa") else "left")
                 for column in ("id", "scorer", "judge model", "prompt", "kind", "n",
                                "agreement", "kappa", "bar", "result")], rows)


# -- small things ----------------------------------------------------------------------------


def _kappa_row(kappa: Kappa, note: str) -> Row:
    value = "-" if kappa.value is None else fixed(kappa.value, 2)
    return (kappa.name, value, _ci(kappa.interval, digits=2), kappa.note or note)


def _rate(value: float | None) -> str:
    return "-" if value is None else percent(value)


def _ci(interval: Interval | None, *, digits: int | None = None) -> str:
    if interval is None:
        return ""
    if digits is None:
        return f"{percent(interval.low)}–{percent(interval.high)}"
    return f"{fixed(interval.low, digits)}–{fixed(interval.high, digits)}"


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:MAX_IDS])
    return shown + (f" ... and {len(ids) - MAX_IDS} more" if len(ids) > MAX_IDS else "")
