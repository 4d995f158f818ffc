"""docs/cli.md is every command and flag assay has, as `--help` gives them.

Its writer (`cli_reference.py`) leaves out no flag of any command; that the page
is what the writer writes today, `test_written_pages.py` checks.
"""

from __future__ import annotations

from pathlib import Path

import click

from tests.commands import commands

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_each_commands_section_names_every_flag_it_takes() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for path, command in commands():
        section = page.split(f"\n## assay {path}\n", 1)[1].split("\n## ", 1)[0]
        for option in command.params:
            if isinstance(option, click.Option) and option.name != "help":
                assert all(flag in section for flag in option.opts), (path, option.opts)
