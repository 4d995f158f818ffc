"""The `assay` command line: thin, lazy, and honest about exit codes.

Each subcommand lives in its own module and is imported only when it is
run, so `assay --help` stays fast. To add one, write `assay/cli/<name>.py`
with a click command called `command` and list it in `COMMANDS`.
"""

from __future__ import annotations

import importlib
import sys

import click

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module, one-line help shown by `assay --help`)
    "run": ("assay.cli.run", "Run one or more eval configs (or a suite) and report."),
    "runs": ("assay.cli.runs", "List stored runs."),
    "compare": ("assay.cli.compare", "Compare two runs per metric and per case."),
    "history": ("assay.cli.history", "Show an experiment's runs over time, with trends."),
    "report": ("assay.cli.report", "Render a stored run as json, md, junit or html."),
    "validate": ("assay.cli.validate", "Check a config and its dataset without running."),
    "schema": ("assay.cli.schema", "Print the JSON Schema of the config file."),
    "init": ("assay.cli.init", "Write a working starter config and dataset."),
    "pack": ("assay.cli.pack", "Index a knowledge pack or serve it as an MCP server."),
    "traces": ("assay.cli.traces", "Analyse agent session logs into a report and guidelines."),
    "export": ("assay.cli.export", "Write a stored run as Every Eval Ever files."),
    "view": ("assay.cli.view", "Browse runs, cases and trials in a local web app."),
    "calibrate": ("assay.cli.calibrate", "Measure a judge against people's labels; gate on it."),
    "rejudge": ("assay.cli.rejudge", "Judge a stored run's outputs again: the judge's own noise."),
}


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when it is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module = importlib.import_module(COMMANDS[name][0])
        command: click.Command = module.command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="assay-eval", prog_name="assay")
def app() -> None:
    """assay: evaluate LLM apps and agents from a config file.

    Exit codes: 0 all gates pass, 1 a gate failed, 2 bad config, dataset or
    arguments, 3 the run could not complete.
    """


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI and turn assay's errors into exit codes."""
    from assay.cli.termination import sigterm_interrupts
    from assay.errors import AssayError
    from assay.redaction import redact

    try:
        with sigterm_interrupts():
            app.main(args=argv, prog_name="assay", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:  # click's form of Ctrl-C (or end of input at a prompt)
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except AssayError as exc:
        click.secho(redact(f"error: {exc}"), fg="red", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug of ours, not the user's input: say so, exit 3, not 1
        import os
        import traceback

        if os.environ.get("ASSAY_DEBUG"):
            traceback.print_exc()
        click.secho(redact(f"internal error: {type(exc).__name__}: {exc}\n")
                    + "  this is a bug in assay; "
                    "ASSAY_DEBUG=1 shows the traceback", fg="red", err=True)
        sys.exit(3)
    sys.exit(0)
