"""Every `assay` command, walked from the click group as `assay --help` lists them."""

from __future__ import annotations

from collections.abc import Iterator

import click

from assay.cli import app


def commands() -> Iterator[tuple[str, click.Command]]:
    """('calibrate', command), ..., ('pack index', command), ...: each command people run,
    named by the words that run it, subcommands of a group included."""
    context = click.Context(app)

    def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                assert sub is not None, name
                yield from walk(sub, f"{path} {name}".strip())
        else:
            yield path, command

    yield from walk(app, "")
