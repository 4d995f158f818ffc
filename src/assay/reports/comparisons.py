"""Paired comparisons for people: the terminal table and the report.md section.

One row per comparison shows the headline metric (pass rate when the scorer
gives verdicts, else the mean) on both sides, the delta with its size in
words (the Knowledge Packs band read as a size: "large drop"), its interval
at the level the verdict used (the Holm step in a family), the p-value
(Holm-adjusted over everything shown) and the verdict: "significant" when
the interval leaves out 0, else "within noise". Deltas are green when B is
higher and red when lower; bold when significant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Self

from assay.analysis.conditions import ComparisonEntry, ConditionComparisons
from assay.analysis.paired import PairedComparison
from assay.analysis.power import SampleSizeAdvice
from assay.analysis.verdict import evidence, format_p, level_text, shown_effect
from assay.knowledge_packs.bands import size_words
from assay.reports.text import code, inline, padded, screen_width
from assay.reports.text import markup_free as escape
from assay.shown_numbers import count
from assay.wording import plural

MAX_IDS_TERMINAL = 10
MAX_IDS_MARKDOWN = 200


def ci_label(c: PairedComparison) -> str:
    """`95% CI`, or `98.3% CI` for a comparison decided at a Holm step."""
    return f"{level_text(c.headline.interval.confidence)} CI"


def headline_delta(c: PairedComparison) -> float:
    return c.headline.estimate


def p_text(c: PairedComparison) -> str:
    text = format_p(c.p_value, c.alpha)
    return text + (f" (Holm, {c.family_size})" if c.p_adjusted is not None and c.family_size > 1
                   else "")


def size_text(c: PairedComparison) -> str:
    """The Knowledge Packs band as a size: `strong gain`, `large drop` (never "significant")."""
    return size_words(c.reading)


def direction(c: PairedComparison) -> Literal["up", "down", "flat"]:
    """Which way B moved from A on the headline metric."""
    delta = headline_delta(c)
    return "up" if delta > 0 else "down" if delta < 0 else "flat"


@dataclass(frozen=True)
class ComparisonText:
    """One paired comparison as every page writes it: both sides, the delta, its interval
    (with its level), p, the verdict's evidence and the size. The HTML report's rows and
    the viewer's lines extend it with what each draws."""

    before: str
    after: str
    delta: str
    interval: str
    p: str
    evidence: str
    size: str
    direction: Literal["up", "down", "flat"]

    @classmethod
    def of(cls, c: PairedComparison, **more: Any) -> Self:
        """`c` as text; `more` fills a subclass's own fields."""
        before, after, delta, interval, _ = shown_effect(c)
        return cls(before=before, after=after, delta=delta,
                   interval=f"{ci_label(c)} {interval}", p=p_text(c), evidence=evidence(c),
                   size=size_text(c), direction=direction(c), **more)


def coloured_delta(c: PairedComparison, text: str) -> str:
    colour = {"up": "green", "down": "red", "flat": "dim"}[direction(c)]
    style = f"bold {colour}" if c.significant and colour != "dim" else colour
    return f"[{style}]{text}[/{style}]"


def id_list(ids: Sequence[str], limit: int) -> str:
    """Case ids for the terminal, as written (a `[` in an id is not markup)."""
    shown = escape(", ".join(ids[:limit]))
    return shown + (f" … and {count(len(ids) - limit)} more" if len(ids) > limit else "")


def change_names(c: PairedComparison) -> tuple[str, str]:
    """What a later run's wins and losses against an earlier one are called: `newly passing`
    only where a case has one verdict a side; a share of epochs passes more or less often."""
    if c.kind != "pass_fail":
        return "newly scores higher", "newly scores lower"
    if c.pass_shares:
        return "passing more often", "passing less often"
    return "newly passing", "newly failing"


def comparison_lines(entries: Sequence[ComparisonEntry], label: Any) -> list[str]:
    """One aligned line per comparison (lines, not a table, so CI logs at 80 columns stay legible).

    `label(entry)` names the row; the delta is coloured, the rest is plain.
    """
    names = [label(e) for e in entries]
    width = max((screen_width(n) for n in names), default=0)
    lines = []
    for name, entry in zip(names, entries):
        c = entry.comparison
        a, b, delta, ci, _ = shown_effect(c)
        lines.append(f"  {padded(name, width)}  {a} → {b}  {coloured_delta(c, delta)} "
                     f"({size_text(c)})  {ci_label(c)} {ci}  {format_p(c.p_value, c.alpha)}  "
                     f"{evidence(c)}  n={count(c.n)}")
    return lines


def print_condition_comparisons(console: Any, comps: ConditionComparisons, *,
                                methods: bool = False) -> None:
    """The comparison of each condition with the baseline, printed after the run's table;
    `methods` adds each comparison's interval method, test and other metric."""
    if not comps.entries and not comps.skipped:
        return
    if comps.entries:
        console.print(f"[bold]conditions vs baseline '{escape(comps.baseline)}'[/bold] "
                      "(paired by case; "
                      f"{family_note(len(comps.entries), short=True)})")
        for line in comparison_lines(
                comps.entries, lambda e: f"{e.comparison.scorer} · {e.comparison.label_b}"):
            console.print(line)
    if methods:
        for entry in comps.entries:
            c = entry.comparison
            console.print(f"  [dim]{escape(f'{c.scorer} · {c.label_b}')}:[/dim]")
            for line in detail_lines(c):
                console.print(f"    [dim]{escape(line[2:])}[/dim]")
    print_exclusions(console, [(f"{e.comparison.scorer} · {e.comparison.label_b}", e.comparison)
                               for e in comps.entries])
    for entry in comps.entries:
        c = entry.comparison
        advice = shown_advice(entry)
        if advice is not None:
            console.print(f"  [dim]{escape(f'{c.scorer} · {c.label_b}: {advice.summary()}')}"
                          "[/dim]")
    for line in comps.skipped:
        console.print(f"[yellow]not compared:[/yellow] {escape(line)}")


def condition_comparisons_markdown(comps: ConditionComparisons) -> str:
    """The report.md section: the table, the verdicts, wins and losses per case, and advice."""
    lines = [f"## Conditions compared with {code(comps.baseline)}", "",
             (f"Paired over the cases scored under both conditions; "
              f"{family_note(len(comps.entries))} (alpha {comps.alpha:g})."), ""]
    if comps.entries:
        lines += markdown_table(comps.entries, "scorer", "condition",
                                lambda e: (e.comparison.scorer or "", e.comparison.label_b))
    for entry in comps.entries:
        c = entry.comparison
        lines += ["", f"### {inline(c.scorer)}: {inline(c.label_b)} vs {inline(c.label_a)}", "",
                  f"- {inline(c.verdict, limit=2000)}"]
        lines += detail_lines(c)
        lines += case_lines(c, f"{inline(c.label_b)} wins", f"{inline(c.label_b)} loses")
        advice = shown_advice(entry)
        if advice is not None:
            lines.append(f"- sample size ({_name(advice.metric)}): {advice.summary()}")
        lines += excluded_line(c)
    lines += [f"- not compared: {inline(line, 2000)}" for line in comps.skipped]
    return "\n".join(lines)


def markdown_table(entries: Sequence[ComparisonEntry], first: str, second: str,
                   label: Any) -> list[str]:
    rows = [(f"| {first} | {second} | n | before | after | delta | size | CI | p | verdict |"),
            "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |"]
    for entry in entries:
        c = entry.comparison
        a, b, delta, ci, _ = shown_effect(c)
        one, two = label(entry)
        rows.append(f"| {inline(one)} | {inline(two)} | {count(c.n)} | {a} | {b} | {delta} | "
                    f"{size_text(c)} | "
                    f"{ci_label(c)} {ci} | {p_text(c)} | {evidence(c)} |")
    return rows


def shown_advice(entry: ComparisonEntry) -> SampleSizeAdvice | None:
    """The sample-size advice a report shows: on the quantity the verdict is about, and only
    while it is within noise. Advice on the other metric (described only) could read as
    "not yet detected" beside a significant verdict on the same cases: a 0/1 verdict's mean
    is its pass rate, yet its t test is not the test the verdict ran."""
    c = entry.comparison
    if c.significant:
        return None
    return next((a for a in entry.advice if a.metric == c.headline.metric), None)


def family_note(size: int, *, short: bool = False) -> str:
    """How the verdicts of `size` comparisons shown together were corrected."""
    if size <= 1:
        return "one comparison, no correction"
    if short:
        return f"Holm, family of {size}; each CI at its Holm step"
    return (f"Holm, family of {size}: p-values Holm-adjusted, each interval at the level "
            "of the Holm step that decided it")


def detail_lines(c: PairedComparison) -> list[str]:
    """What the verdict line leaves out: the interval's method, the test of shift, the
    other metric (described, not tested in the family)."""
    effect = c.headline
    test = (f"- interval: {effect.interval.method}; test: {effect.test.name} "
            f"(unadjusted {format_p(effect.test.p_value, effect.level)}; {effect.test.note})")
    lines = [test]
    if c.shift_test is not None and c.shift_test.n_used:
        lines.append(f"- shift (does B tend to score higher? a test of shift, not of the "
                     f"mean): {c.shift_test.name} {format_p(c.shift_test.p_value)}")
    other = c.mean if effect.metric == "pass_rate" else c.pass_rate
    if other is not None:
        shown = shown_effect(c, other.metric)
        lines.append(f"- {_name(other.metric)}: {shown.before} → {shown.after}, {shown.delta} "
                     f"(described only; the verdict is on the {_name(effect.metric)})")
    return lines


def _name(metric: str) -> str:
    return "pass rate" if metric == "pass_rate" else "mean"


def case_lines(c: PairedComparison, win_label: str, loss_label: str) -> list[str]:
    lines = []
    for name, ids in ((win_label, c.wins), (loss_label, c.losses)):
        shown = ", ".join(code(i) for i in ids[:MAX_IDS_MARKDOWN])
        lines.append(f"- {name} ({count(len(ids))}): {shown or 'none'}{more_ids(ids)}")
    lines.append(f"- ties: {count(len(c.ties))}")
    return lines


def more_ids(ids: Sequence[str]) -> str:
    """` … and 1,300 more`, after the first `MAX_IDS_MARKDOWN` ids report.md names."""
    extra = len(ids) - MAX_IDS_MARKDOWN
    return f" … and {count(extra)} more" if extra > 0 else ""


def exclusions(c: PairedComparison) -> list[tuple[str, tuple[str, ...]]]:
    """Why cases were left out of `c`, each reason with its cases."""
    return c.excluded.reasons(c.label_a, c.label_b)


def ignored_epochs_text(c: PairedComparison) -> str | None:
    """Errored epochs of cases that were kept: left out of those cases' means."""
    ignored = c.excluded.epoch_values_ignored
    return (f"{plural(ignored, 'errored epoch')} left out of the "
            "per-case means of cases kept") if ignored else None


def excluded_line(c: PairedComparison) -> list[str]:
    """report.md: each reason cases were left out, with the cases named."""
    lines = []
    for reason, ids in exclusions(c):
        shown = ", ".join(code(i) for i in ids[:MAX_IDS_MARKDOWN])
        lines.append(f"- left out, {inline(reason)} ({count(len(ids))}): {shown}{more_ids(ids)}")
    ignored = ignored_epochs_text(c)
    return lines + ([f"- {ignored}"] if ignored else [])


def print_exclusions(console: Any, named: Sequence[tuple[str, PairedComparison]]) -> None:
    """The terminal's note under comparisons that left cases out, naming them. Cases left
    out of several comparisons for the same reason are named once, after the comparisons
    they are missing from (a run over a smaller dataset left the same cases out of all)."""
    missing: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for name, c in named:
        for reason, ids in exclusions(c):
            missing.setdefault((reason, tuple(ids)), []).append(name)
    for (reason, ids), names in missing.items():
        where = ("every comparison" if len(names) == len(named) > 1 else ", ".join(names))
        console.print(f"  [yellow]{escape(f'{where}: left out, {reason}')} ({count(len(ids))}):"
                      f"[/yellow] {id_list(ids, MAX_IDS_TERMINAL)}")
