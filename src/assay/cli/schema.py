"""`assay schema`: the config's JSON Schema, for editor completion."""

from __future__ import annotations

import json

import click

from assay.cli.common import OutputFile, check_output_file
from assay.wording import path_text


@click.command("schema")
@click.option("--output", "-o", type=OutputFile("assay.schema.json", stdout=True),
              help="Write to this file.")
def command(output: str | None) -> None:
    """Print the JSON Schema of assay config files.

    Point your editor at it, e.g. with the YAML language server:
    `# yaml-language-server: $schema=assay.schema.json`.
    """
    from assay.cli.colour import colour_wanted
    from assay.config.schema import config_schema

    check_output_file(output)
    from assay.registry import scorers, targets

    text = json.dumps(config_schema(), indent=2)
    for registry in (targets, scorers):
        for plugin, why in registry.broken.items():
            click.secho(f"warning: {registry.sort} plugin '{plugin}' was skipped: {why}",
                        fg="yellow", err=True, color=colour_wanted())
    if output:
        from pathlib import Path

        from assay.reports.atomic import write_text

        write_text(Path(output), text + "\n")
        click.echo(f"wrote {path_text(output)}", err=True)
    else:
        click.echo(text)
