"""`assay validate CONFIG`: check a config and its dataset without running anything."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.common import console

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.runner.plan import Plan


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
        plan.check_templates(loaded)
        _check_models(loaded, plan, services)
        asyncio.run(_check(plan))
        out.print(f"[green]ok[/green] {config_path}: experiment '{loaded.name}', "
                  f"{scan.count} cases ({scan.layout}), {len(plan.conditions)} condition(s), "
                  f"{len(plan.scorers)} scorer(s), {plan.total} trials")
        for warning in services.warnings:
            out.print(f"[yellow]warning:[/yellow] {warning}")


async def _check(plan: object) -> None:
    for target in plan.targets.values():  # type: ignore[attr-defined]
        await target.check()


def _check_models(loaded: LoadedConfig, plan: Plan, services: object) -> None:
    """Every model a run would call names a known provider (exit 2, located, if not);
    a missing API key is only a warning: a run needs it, a check does not."""
    from assay.errors import Problem, UserError
    from assay.providers.pool import get_pool

    models: dict[str, tuple[object, ...]] = {}  # model string -> where the config names it
    for condition in loaded.conditions:
        model = getattr(loaded.target_params.get(condition.name), "model", None)
        if model:
            overridden = "model" in (loaded.config.conditions[condition.name].overrides())
            models.setdefault(model, ("conditions", condition.name, "model") if overridden
                              else ("target", "model"))
    for index, scorer in enumerate(plan.scorers):
        if "model" in type(scorer.params).model_fields:
            own = getattr(scorer.params, "model", None)
            model = own or loaded.config.judge.model
            if model:
                models.setdefault(model, ("scorers", index, "model") if own
                                  else ("judge", "model"))
    if not models:
        return
    pool = get_pool(services)
    problems = []
    for model, where in models.items():
        try:
            warning = pool.check(model)
        except UserError as exc:
            problems.append(Problem(str(exc), str(loaded.path), loaded.source.line(where),
                                    ".".join(map(str, where))))
            continue
        if warning:
            services.warn(warning)  # type: ignore[attr-defined]
    if problems:
        raise UserError(f"invalid config {loaded.path}", problems)
