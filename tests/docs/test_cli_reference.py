"""docs/cli.md is every command and flag assay has, as `--help` gives them.

The page is written from the commands (`cli_reference.py`), so a flag added,
renamed or re-explained in the code is a page that no longer matches them.
"""

from __future__ import annotations

from pathlib import Path

import click

from tests.commands import commands
from tests.docs.cli_reference import reference

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def test_the_command_reference_is_what_the_commands_say() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference(), (
        "docs/cli.md differs from the commands: write it again with "
        "`uv run python -m tests.docs.cli_reference > docs/cli.md`")


def test_each_commands_section_names_every_flag_it_takes() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for path, command in commands():
        section = page.split(f"\n## assay {path}\n", 1)[1].split("\n## ", 1)[0]
        for option in command.params:
            if isinstance(option, click.Option) and option.name != "help":
                assert all(flag in section for flag in option.opts), (path, option.opts)
