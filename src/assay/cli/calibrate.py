"""`assay calibrate SPEC`: how far the judge agrees with people, stored for that judge."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.common import (
    GivenPath,
    NumberRange,
    OutputFile,
    check_output_file,
    console,
    given_on_command_line,
    open_store,
    store_option,
)
from assay.wording import path_text

if TYPE_CHECKING:
    from assay.calibration.measure import Calibration

FORMATS = ("text", "json", "md", "html")


@click.command("calibrate")
@click.argument("spec", required=False, type=GivenPath(dir_okay=False, path_type=Path))
@store_option
@click.option("--run", "run_ref", metavar="RUN",
              help="Take the judge's verdicts from this stored run (id, prefix, `latest`), "
                   "joined to the labels by case id.")
@click.option("--scorer", metavar="NAME", help="The judged scorer to calibrate.")
@click.option("--condition", metavar="COND",
              help="With --run: the condition whose verdicts to take (when the run has several).")
@click.option("--labels", "labels_path", type=GivenPath(dir_okay=False, path_type=Path),
              help="Read the labels from this file instead (the spec's `fields:` still apply).")
@click.option("--min-agreement", type=NumberRange(0, 1), metavar="RATE",
              help="The bar: agreement with people at least RATE (default 0.85); exit 1 below.")
@click.option("--min-kappa", type=NumberRange(-1, 1), metavar="KAPPA",
              help="The bar: Cohen's kappa at least KAPPA; exit 1 below.")
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="text",
              show_default=True, help="Output format.")
@click.option("--output", "-o", type=OutputFile("calibration.md", path_type=Path, stdout=True),
              help="Write to this file instead of standard output.")
@click.option("--no-cache", is_flag=True, help="Judge afresh, bypassing the response cache.")
@click.option("--no-save", is_flag=True, help="Do not store this calibration.")
@click.option("--list", "list_only", is_flag=True,
              help="Show the stored calibrations (of --scorer, if given) and exit.")
def command(spec: Path | None, store_url: str | None, run_ref: str | None, scorer: str | None,
            condition: str | None, labels_path: Path | None, min_agreement: float | None,
            min_kappa: float | None, fmt: str, output: Path | None, no_cache: bool,
            no_save: bool, list_only: bool) -> None:
    """Measure the judge against people's labels: agreement, kappa, leniency, confusion.

    SPEC is an eval config with a `calibration:` section (its judge scorer judges the
    labelled items now, or --run takes a stored run's verdicts), or a calibration file
    whose `verdicts:` another tool recorded. The calibration is stored for the judge's
    model, prompt hash and rubric version; reports of runs whose judge has no passing
    calibration say "uncalibrated judge", and `judge: {require_calibration: true}`
    refuses to run one.

    Exit codes: 0 the judge clears the bar, 1 it does not, 2 bad input, 3 the judge gave no
    readable verdict (unreachable, or every reply unreadable) or the store failed, 130
    interrupted.
    """
    from assay.cli.termination import decided
    from assay.errors import UserError

    if list_only and (given := given_on_command_line(*_NOT_LISTED)):
        raise click.UsageError(f"--list shows the stored calibrations and calibrates nothing, "
                               f"so {', '.join(given)} would be ignored: give --list with "
                               "--scorer or --store only, or leave --list out")
    check_output_file(output)
    if spec is None and not list_only:  # before the store is opened: it would be made
        raise UserError("give the calibration spec (an eval config with `calibration:`, "
                        "or a calibration file), or --list")
    store = open_store(store_url, existing=list_only)
    try:
        if list_only:
            from assay.reports.calibration import print_calibration_list

            print_calibration_list(console(), store.calibrations.list(scorer=scorer, limit=100))
            sys.exit(0)
        assert spec is not None
        from assay.calibration.session import CalibrationRequest, run_calibration

        result = run_calibration(CalibrationRequest(
            spec=spec, run=run_ref, scorer=scorer, condition=condition, labels=labels_path,
            min_agreement=min_agreement, min_kappa=min_kappa, use_cache=not no_cache,
            save=not no_save), store)
    finally:
        store.close()
    code = 0 if result.passed else 1
    if output is None:  # stored: a signal while it is printed cannot undo the verdict
        decided(code)
    _render(result, fmt, output)
    decided(code)
    sys.exit(code)


_NOT_LISTED = ("spec", "run_ref", "condition", "labels_path", "min_agreement", "min_kappa",
               "fmt", "output", "no_cache", "no_save")
"""What calibrate takes to calibrate, which --list does not use."""


def _render(result: Calibration, fmt: str, output: Path | None) -> None:
    from assay.reports import calibration as render

    if fmt == "text":
        if output is None:
            render.print_calibration(console(), result)
            return
        from rich.console import Console

        from assay.reports.atomic import atomic_writer

        with atomic_writer(output) as handle:
            render.print_calibration(Console(file=handle, width=160), result)
        click.echo(f"wrote {path_text(output)}", err=True)
        return
    text = {"json": render.calibration_json, "md": render.calibration_markdown,
            "html": render.calibration_html}[fmt](result)
    if output is None:
        click.echo(text)
        return
    from assay.reports.atomic import write_text

    write_text(output, text)
    click.echo(f"wrote {path_text(output)}", err=True)
