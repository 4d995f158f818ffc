"""`assay validate CONFIG`: check a config and its dataset without running anything."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.common import console
from assay.reports.console import print_warning


@click.command("validate")
@click.argument("configs", nargs=-1, required=True, type=click.Path(dir_okay=False))
def command(configs: tuple[str, ...]) -> None:
    """Check CONFIG and its dataset: keys, types, references, every dataset line, user code."""
    from assay.config import load_config
    from assay.reports.text import markup_free
    from assay.runner.preflight import preflight
    from assay.wording import plural

    out = console()
    for config_path in configs:
        checked = preflight(load_config(Path(config_path)))
        plan, scan = checked.plan, checked.scan
        out.print("[green]ok[/green] " + markup_free(
                  f"{config_path}: experiment '{checked.loaded.name}', "
                  f"{plural(scan.count, 'case')} ({scan.layout}), "
                  f"{plural(len(plan.conditions), 'condition')}, "
                  f"{plural(len(plan.scorers), 'scorer')}, {plural(plan.total, 'trial')}"))
        for warning in checked.warnings:
            print_warning(out, warning)
