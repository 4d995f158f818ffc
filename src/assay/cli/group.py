"""The `assay` click group: subcommands imported only when they are run (see `COMMANDS`)."""

from __future__ import annotations

import importlib
import os

import click

from assay.cli import COMMANDS


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

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.NoSuchOption as exc:
            raise (json_spelled_otherwise(exc) or exc) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="assay-eval", prog_name="assay")
def app() -> None:
    """assay: evaluate LLM apps and agents from a config file.

    Exit codes: 0 all gates pass, 1 a gate failed, 2 bad config, dataset or
    arguments, 3 the run could not complete, 130 interrupted by Ctrl-C or
    SIGTERM (a run's stored trials are kept; `assay run --resume` goes on).
    """
    require_working_directory()


def json_spelled_otherwise(exc: click.NoSuchOption) -> click.NoSuchOption | None:
    """`--json` given to a command that writes JSON with `--format json` (report, calibrate),
    or `--format`/`-f` to one that prints it with `--json` (runs, history, compare): the
    error names the option the command has, where click guessed a near name ('--store',
    '--force') that does something else. None for any other unknown option."""
    if exc.ctx is None:
        return None
    command = exc.ctx.command
    options = {name: param for param in command.params if isinstance(param, click.Option)
               for name in param.opts}
    fmt = options.get("--format")
    if exc.option_name == "--json" and fmt is not None and isinstance(fmt.type, click.Choice) \
            and "json" in fmt.type.choices:
        instead = "--format json" + (" (-f json)" if "-f" in fmt.opts else "")
        message = f"writes JSON with {instead}"
    elif exc.option_name in ("--format", "-f") and "--json" in options:
        message = "prints JSON with --json"
    else:
        return None
    return click.NoSuchOption(exc.option_name, f"{exc.ctx.command_path} has no option "
                              f"{exc.option_name}: it {message}", ctx=exc.ctx)


def require_working_directory() -> None:
    """Refuse to start in a folder that was deleted (`cd x; rmdir ../x`): every relative path
    (the store, a config, `-o`) is read against it, and the first one read stopped the
    command with 'internal error: FileNotFoundError', exit 3."""
    from assay.errors import UserError

    try:
        os.getcwd()
    except FileNotFoundError:
        raise UserError("the working directory no longer exists (it was deleted or moved "
                        "away): cd to a folder that exists and run the command again") from None
