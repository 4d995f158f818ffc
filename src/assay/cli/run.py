"""`assay run CONFIG...`: run evals, write reports, apply gates, pick the exit code."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from assay.cli.common import console, open_store, store_option


@click.command("run")
@click.argument("configs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@store_option
@click.option("--resume", default=None, is_flag=False, flag_value="latest", metavar="[RUN_ID]",
              help="Finish an interrupted run: the latest unfinished one, or RUN_ID.")
@click.option("--retry-errors", is_flag=True, help="With --resume: run errored trials again.")
@click.option("--sample", type=click.IntRange(min=1), help="Run a seeded, stable sample of N cases.")
@click.option("--epochs", type=click.IntRange(min=1), help="Override run.epochs.")
@click.option("--concurrency", "-j", type=click.IntRange(min=1), help="Override run.concurrency.")
@click.option("--condition", "conditions", multiple=True, help="Only this condition (repeatable).")
@click.option("--no-cache", is_flag=True, help="Bypass the LLM response cache.")
@click.option("--output", "-o", type=click.Path(file_okay=False),
              help="Directory for results.json and report.md (default .assay/runs/<run-id>/).")
@click.option("--fail-under", multiple=True, metavar="SCORER[.mean][@COND]=VALUE",
              help="Exit 1 when a pass rate (or mean) is below VALUE (repeatable).")
@click.option("--no-progress", is_flag=True, help="Do not show the live progress bar.")
def command(configs: tuple[str, ...], store_url: str | None, resume: str | None,
            retry_errors: bool, sample: int | None, epochs: int | None, concurrency: int | None,
            conditions: tuple[str, ...], no_cache: bool, output: str | None,
            fail_under: tuple[str, ...], no_progress: bool) -> None:
    """Run the eval described by CONFIG (a YAML file) and report.

    Exit codes: 0 all gates pass, 1 a gate failed, 2 bad config, dataset or
    arguments, 3 the run could not complete.
    """
    from assay.cli.run_one import RunRequest, run_one
    from assay.errors import UserError
    from assay.gates import parse_fail_under

    if resume and len(configs) > 1:
        raise UserError("--resume works with one config at a time")
    extra_gates = [parse_fail_under(spec) for spec in fail_under]
    store = open_store(store_url)
    out = console()
    exit_code = 0
    try:
        for config_path in configs:
            request = RunRequest(
                config=Path(config_path), resume=resume, retry_errors=retry_errors,
                sample=sample, epochs=epochs, concurrency=concurrency,
                conditions=list(conditions) or None, use_cache=not no_cache,
                output=Path(output) if output and len(configs) == 1 else None,
                extra_gates=extra_gates, progress=False if no_progress else None)
            exit_code = max(exit_code, run_one(request, store, out))
    finally:
        store.close()
    sys.exit(exit_code)
