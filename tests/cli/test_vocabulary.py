"""One CLI vocabulary: every option is explained, and a flag means the same on every command."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest

from assay.cli import app


def commands() -> Iterator[tuple[str, click.Command]]:
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


OPTIONS = [(path, option) for path, command in commands() for option in command.params
           if isinstance(option, click.Option)]


def flags(option: click.Option) -> list[str]:
    return option.opts + option.secondary_opts


@pytest.mark.parametrize(("path", "option"), OPTIONS,
                         ids=[f"{p} {flags(o)[0]}" for p, o in OPTIONS])
def test_every_option_says_what_it_does(path: str, option: click.Option) -> None:
    assert option.help and option.help.strip(), f"assay {path} {flags(option)[0]} has no help"


def test_format_always_chooses_what_a_command_writes() -> None:
    # `--format` once meant the input log format on `assay traces`; that is `--log-format`
    found = [(path, option) for path, option in OPTIONS if "--format" in flags(option)]
    assert found
    for path, option in found:
        assert "-f" in flags(option), f"assay {path} --format has no -f"
        assert "read" not in (option.help or "").lower(), f"assay {path} --format reads input"


def test_output_is_always_o_and_json_always_prints_json() -> None:
    for path, option in OPTIONS:
        names = flags(option)
        if "--output" in names:
            assert "-o" in names, f"assay {path} --output has no -o"
        if "-o" in names:
            assert "--output" in names, f"assay {path} -o is not --output"
        if "--json" in names:
            assert option.is_flag and "json" in (option.help or "").lower(), path
