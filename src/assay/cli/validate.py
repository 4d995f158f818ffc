"""`assay validate CONFIG`: check a config and its dataset without running anything."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from assay.cli.common import console


@click.command("validate")
@click.argument("configs", nargs=-1, required=True, type=click.Path(dir_okay=False))
def command(configs: tuple[str, ...]) -> None:
    """Check CONFIG and its dataset: keys, types, references, every dataset line, user code."""
    from assay.config import load_config
    from assay.runner.plan import build_plan
    from assay.services import Services

    out = console()
    for config_path in configs:
        loaded = load_config(Path(config_path))
        services = Services(base_dir=loaded.base_dir, config=loaded.config)
        plan = build_plan(loaded, services)
        scan = plan.dataset.scan()
        plan.check_not_empty()
        asyncio.run(_check(plan))
        out.print(f"[green]ok[/green] {config_path}: experiment '{loaded.name}', "
                  f"{scan.count} cases ({scan.layout}), {len(plan.conditions)} condition(s), "
                  f"{len(plan.scorers)} scorer(s), {plan.total} trials")
        for warning in services.warnings:
            out.print(f"[yellow]warning:[/yellow] {warning}")


async def _check(plan: object) -> None:
    for target in plan.targets.values():  # type: ignore[attr-defined]
        await target.check()
