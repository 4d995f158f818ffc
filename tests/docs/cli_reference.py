"""docs/cli.md, written from the commands themselves: every command, its help, and
every flag with what it does, so the page cannot say other than `--help` says.

    uv run python -m tests.docs.cli_reference > docs/cli.md

writes it again; `test_written_pages.py` fails when the page and the commands differ.
"""

from __future__ import annotations

import inspect

import click

from tests.commands import commands
from tests.docs.markdown_text import cell, one_line

HEAD = """\
# Command reference

Every `assay` command and every flag it takes, as `assay COMMAND --help` gives
them. The [README](../README.md) shows them at work; [ci.md](ci.md) says what
each exit code means to a CI job.
"""


def flag_row(option: click.Option, context: click.Context) -> str:
    """The option's line of `--help` (`-o, --output FILE`, what it does, its default)."""
    record = option.get_help_record(context)
    assert record is not None, option.name
    names, text = record
    return f"| `{cell(names)}` | {cell(text)} |"


def section(path: str, command: click.Command) -> str:
    """The command's usage, its help's paragraphs, then a table of its flags."""
    context = click.Context(command, info_name=f"assay {path}")
    usage = " ".join(command.collect_usage_pieces(context))
    lines = [f"## assay {path}", "", f"`assay {path} {usage}`", ""]
    help_text = inspect.cleandoc(command.help or "").replace("\b\n", "")
    lines += [one_line(paragraph) + "\n" for paragraph in help_text.split("\n\n")]
    lines += ["| flag | what it does |", "| --- | --- |"]
    lines += [flag_row(option, context) for option in command.params
              if isinstance(option, click.Option) and option.name != "help"]
    return "\n".join(lines) + "\n"


def reference() -> str:
    return "\n".join([HEAD, *(section(path, command) for path, command in commands())])


if __name__ == "__main__":
    print(reference(), end="")
