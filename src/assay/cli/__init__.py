"""The `assay` command line: thin, lazy, and honest about exit codes.

Each subcommand lives in its own module and is imported only when it is
run, so `assay --help` stays fast. To add one, write `assay/cli/<name>.py`
with a click command called `command` and list it in `COMMANDS`. This
package's own module imports nothing but the standard library, so `main`
handles Ctrl-C from the moment `assay` starts (click and the commands are
imported inside it; the group is `group.app`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # `typing` takes as long to import as the rest of this module
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from assay.cli.termination import Signals

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


def __getattr__(name: str) -> Any:
    if name == "app":  # the click group, imported with click only when asked for
        from assay.cli.group import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> NoReturn:
    """Entry point: run the CLI and turn assay's errors into exit codes. Called without
    `argv`, it is the `assay` program, which keeps Ctrl-C and SIGTERM handled until the
    process is gone (see `termination`); with `argv` (from Python) it puts the process's
    handlers back when it returns."""
    from assay.cli.termination import INTERRUPTED, signals_handled

    if argv is None:
        from assay.cli.closed_pipe import tolerate_closed_pipes
        from assay.cli.closed_streams import open_closed_streams
        from assay.cli.crash_report import report_crashes
        from assay.plain_characters import write_plainly_where_unshowable

        open_closed_streams()
        report_crashes()
        write_plainly_where_unshowable()
        tolerate_closed_pipes()
    with signals_handled(owns_process=argv is None) as signals:
        try:
            code = _command(argv, signals)
        except KeyboardInterrupt:  # before the command's own handling, or during its message
            signals.exiting_with(INTERRUPTED)
            _say("interrupted")
            code = INTERRUPTED
        _flush()
        if argv is None:
            from assay.cli.closed_pipe import unwritten_output

            code = unwritten_output(code)
        signals.exiting_with(code)
    sys.exit(code)


def _command(argv: list[str] | None, signals: Signals) -> int:
    """Run the command; its exit code."""
    import click

    from assay.cli.colour import colour_wanted
    from assay.cli.group import app
    from assay.errors import AssayError
    from assay.redaction import redact
    from assay.reports.text import shown_plainly

    try:
        app.main(args=argv, prog_name="assay", standalone_mode=False)
    except SystemExit as exc:  # a command's sys.exit(code)
        return _exit_code(exc)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:  # click's form of Ctrl-C (or end of input at a prompt)
        signals.exiting_with(130)
        click.echo("interrupted", err=True)
        return 130
    except click.ClickException as exc:
        signals.exiting_with(2)
        exc.show()
        return 2
    except AssayError as exc:
        signals.exiting_with(exc.exit_code)
        click.secho(shown_plainly(redact(f"error: {exc}")), fg="red", err=True, color=colour_wanted())
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - a bug of ours, not the user's input: exit 3
        import os
        import traceback

        signals.exiting_with(3)
        if os.environ.get("ASSAY_DEBUG"):  # masked as the line below: it quotes the same error
            click.echo(redact(traceback.format_exc()), err=True, nl=False)
        click.secho(shown_plainly(redact(f"internal error: {type(exc).__name__}: {exc}\n"))
                    + "  this is a bug in assay; "
                    "ASSAY_DEBUG=1 shows the traceback", fg="red", err=True,
                    color=colour_wanted())
        return 3
    return 0


def _exit_code(exc: SystemExit) -> int:
    """The process's exit code for `sys.exit(exc.code)`, as Python itself would pick it."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    _say(str(exc.code))
    return 1


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
    except (OSError, ValueError):  # stderr closed or gone: the exit code still says it
        pass


def _flush() -> None:
    """Write out what was printed before a signal can end the process with `os._exit`."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
