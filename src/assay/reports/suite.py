"""The grand summary of a suite for people: per experiment and condition, then totals.

The terminal table and `suite.md` show the same rows from the `suite.json`
document: each experiment under its headline scorer, then one total per
scorer and scale (a 0-10 judge score is never averaged with a 0-1 check),
each naming how many experiments and cases it covers, then the warnings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.knowledge_packs.all_packs import scale_text
from assay.reports.console import print_warning
from assay.reports.formatting import percent, score_text
from assay.reports.text import code, inline
from assay.reports.text import markup_free as escape
from assay.shown_numbers import count, significant
from assay.wording import plural

COLUMNS = ("experiment", "scorer", "condition", "n", "avg", "accuracy", "errored trials",
           "exit")
RIGHT = {"n", "avg", "accuracy", "errored trials", "exit"}


def experiment_rows(document: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per experiment and condition, the experiment's name on its first row."""
    rows: list[tuple[str, ...]] = []
    for name, pack in document["per_pack"].items():
        scorer = f"{pack['scorer']} ({scale_text(pack['scale'])})"
        for index, (condition, figures) in enumerate(pack["summary"].items()):
            first = index == 0
            rows.append((name if first else "", scorer if first else "", condition,
                         *_figures(figures, pack["scale"]),
                         str(pack["exit_code"]) if first else ""))
    return rows


def total_rows(document: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per scorer total and condition: `total of 2` experiments, and its scorer."""
    rows: list[tuple[str, ...]] = []
    for group in document["grand_summary_by_scorer"]:
        scorer = f"{group['scorer']} ({scale_text(group['scale'])})"
        for index, (condition, figures) in enumerate(group["conditions"].items()):
            covers = f"total of {count(len(figures['experiments']))}"
            rows.append((covers, scorer if index == 0 else "", condition,
                         *_figures(figures, group["scale"]), ""))
    return rows


def title(document: dict[str, Any]) -> str:
    """`sample_per_pack` is the sample asked for: a smaller dataset runs all its cases, so the
    title says "up to" (a per-experiment n is in its rows)."""
    sample = document["sample_per_pack"]
    evaluated = document["packs_evaluated"]
    return (f"suite: {plural(evaluated, 'experiment')}"
            + (f", a sample of up to {plural(sample, 'case')} each" if sample else ""))


def print_grand_summary(console: Any, document: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(title=escape(title(document)), title_justify="left")
    for column in COLUMNS:
        table.add_column(column, justify="right" if column in RIGHT else "left")
    for row in experiment_rows(document):
        table.add_row(*(escape(cell) for cell in row))
    table.add_section()
    for row in total_rows(document):
        table.add_row(*(f"[bold]{escape(cell)}[/bold]" if i == 0 and cell else escape(cell)
                        for i, cell in enumerate(row)))
    console.print(table)
    for warning in document["warnings"]:
        print_warning(console, warning)
    for failed in document["failed"]:
        console.print(f"[red]not summarised:[/red] {escape(failed['config'])} "
                      f"(exit {failed['exit_code']}): {escape(failed['error'])}")


def suite_markdown(document: dict[str, Any]) -> str:
    """`suite.md`: the same table, totals and warnings as the terminal."""
    def table(rows: list[tuple[str, ...]]) -> list[str]:
        lines = ["| " + " | ".join(COLUMNS) + " |",
                 "| " + " | ".join("---:" if c in RIGHT else "---" for c in COLUMNS) + " |"]
        return lines + ["| " + " | ".join(inline(cell) for cell in row) + " |" for row in rows]

    lines = [f"# {title(document)}", "", *table(experiment_rows(document)), "", "## Totals", "",
             "One total per headline scorer and scale; `total of k` covers k experiments.", ""]
    lines += table(total_rows(document)) if document["grand_summary_by_scorer"] else ["none"]
    if document["warnings"]:
        lines += ["", "## Warnings", "", *(f"- {inline(w, None)}" for w in document["warnings"])]
    if document["failed"]:
        lines += ["", "## Not summarised", ""]
        lines += [f"- {code(f['config'])} (exit {f['exit_code']}): {inline(f['error'], 2000)}"
                  for f in document["failed"]]
    return "\n".join(lines) + "\n"


def _figures(figures: dict[str, Any],
             scale: Sequence[float] | None) -> tuple[str, str, str, str]:
    """n, avg, accuracy and errored trials, written as the run's own table writes them (an
    average short of perfect never reads as perfect); the accuracy names its own count when
    fewer cases had a verdict. The errors are shown beside the figures they are left out of
    (an avg and accuracy over the cases scored), so a suite never reads better than its
    runs' gates."""
    mean = figures["avg"]
    avg = "-" if mean is None else (significant(mean, 3) if scale is None
                                    else score_text(mean, (scale[0], scale[1])))
    accuracy = "-" if figures["accuracy"] is None else percent(figures["accuracy"] / 100)
    if figures["accuracy"] is not None and figures["accuracy_n"] != figures["n"]:
        accuracy += f" (of {count(figures['accuracy_n'])})"
    return count(figures["n"]), avg, accuracy, count(figures["errors"])
