"""The grand summary printed at the end of a suite: per experiment and condition, then totals."""

from __future__ import annotations

from typing import Any


def print_grand_summary(console: Any, document: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(title=f"suite: {document['packs_evaluated']} experiments"
                        + (f", sample {document['sample_per_pack']} each"
                           if document["sample_per_pack"] else ""), title_justify="left")
    for column, justify in (("experiment", "left"), ("scorer", "left"), ("condition", "left"),
                            ("n", "right"), ("avg", "right"), ("accuracy", "right"),
                            ("exit", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for name, pack in document["per_pack"].items():
        first = True
        for condition, figures in pack["summary"].items():
            table.add_row(name if first else "", pack["scorer"] if first else "", condition,
                          *_figures(figures), str(pack["exit_code"]) if first else "")
            first = False
    table.add_section()
    for condition, figures in document["grand_summary"].items():
        table.add_row("[bold]total[/bold]", "", condition, *_figures(figures), "")
    console.print(table)
    if len(document["scorers"]) > 1:
        console.print(f"[yellow]warning:[/yellow] the totals pool different headline scorers "
                      f"({', '.join(document['scorers'])}); list the same scorer first in every "
                      "config for totals that mean one thing")
    for failed in document["failed"]:
        console.print(f"[red]not summarised:[/red] {failed['config']} "
                      f"(exit {failed['exit_code']}): {failed['error']}")


def _figures(figures: dict[str, Any]) -> tuple[str, str, str]:
    avg = "-" if figures["avg"] is None else f"{figures['avg']:.3g}"
    accuracy = "-" if figures["accuracy"] is None else f"{figures['accuracy']:.1f}%"
    return str(figures["n"]), avg, accuracy
