"""A run against an earlier run, for people: per metric the delta in green or red, per case the flips.

Shown at the end of every `assay run` (against the previous completed run of
the experiment) and by `assay compare`. When the runs are not comparable the
reasons come first, in red, before any number.
"""

from __future__ import annotations

from typing import Any

from assay.analysis.conditions import ComparisonEntry
from assay.analysis.run_diff import RunDiff, condition_of
from assay.reports.comparisons import (
    MAX_IDS_TERMINAL,
    case_lines,
    change_names,
    comparison_lines,
    detail_lines,
    excluded_line,
    family_note,
    id_list,
    markdown_table,
    print_exclusions,
)
from assay.reports.text import inline
from assay.reports.text import markup_free as escape
from assay.shown_numbers import count


def print_run_diff(console: Any, diff: RunDiff, *, title: str | None = None) -> None:
    assert diff.run_a is not None and diff.run_b is not None
    a, b = diff.run_a, diff.run_b
    title = title or f"run {a.id} → run {b.id}"
    for problem in diff.problems:
        console.print(f"[bold red]NOT COMPARABLE:[/bold red] [red]{escape(problem)}[/red]")
    if diff.entries:
        console.print(f"[bold]{title}[/bold] (before → after, paired by case; "
                      f"{family_note(len(diff.entries), short=True)})")
        for line in comparison_lines(
                diff.entries, lambda e: f"{e.comparison.scorer}@{condition_of(e)}"):
            console.print(line)
    else:
        console.print(f"{title}: no metric in common")
    for entry in diff.entries:
        c = entry.comparison
        ups, downs = change_names(c)
        where = escape(f"{c.scorer}@{condition_of(entry)}")
        if c.losses:
            console.print(f"  [red]{downs} {where} ({count(len(c.losses))}):[/red] "
                          f"{id_list(c.losses, MAX_IDS_TERMINAL)}")
        if c.wins:
            console.print(f"  [green]{ups} {where} ({count(len(c.wins))}):[/green] "
                          f"{id_list(c.wins, MAX_IDS_TERMINAL)}")
    print_exclusions(console, [(f"{e.comparison.scorer}@{condition_of(e)}", e.comparison)
                               for e in diff.entries])
    for line in diff.skipped + diff.notes:
        console.print(f"[yellow]note:[/yellow] {escape(line)}")


def run_diff_markdown(diff: RunDiff, *, title: str | None = None) -> str:
    """The report.md section comparing this run with an earlier one."""
    assert diff.run_a is not None and diff.run_b is not None
    a, b = diff.run_a, diff.run_b
    lines = [f"## {title or f'Compared with run `{a.id}`'}", "",
             (f"Run `{a.id}` (before, started {a.started_at}) → run `{b.id}` (after), "
              f"paired by case; {family_note(len(diff.entries))}."), ""]
    lines += [f"- **not comparable:** {inline(problem, limit=2000)}" for problem in diff.problems]
    if diff.problems:
        lines.append("")
    if diff.entries:
        lines += markdown_table(diff.entries, "scorer", "condition",
                                lambda e: (e.comparison.scorer or "", condition_of(e)))
    unchanged = [e for e in diff.entries if not _changed(e)]
    if unchanged:
        lines += ["", "No case changed its result for: " + ", ".join(
            inline(f"{e.comparison.scorer}@{condition_of(e)}") for e in unchanged) + "."]
    for entry in diff.entries:
        c = entry.comparison
        if any(entry is e for e in unchanged):
            continue
        ups, downs = change_names(c)
        lines += ["", f"### {inline(f'{c.scorer}@{condition_of(entry)}')}", "",
                  f"- {inline(c.verdict, limit=2000)}"]
        lines += detail_lines(c)
        lines += case_lines(c, ups, downs)
        lines += excluded_line(c)
    lines += [f"- note: {inline(line, limit=2000)}" for line in diff.skipped + diff.notes]
    return "\n".join(lines)


def _changed(entry: ComparisonEntry) -> bool:
    c = entry.comparison
    return bool(c.wins or c.losses or entry.comparison.excluded.newly_errored)
