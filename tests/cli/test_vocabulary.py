"""One CLI vocabulary: every option is explained, and a flag means the same on every command."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from tests.commands import commands

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


@pytest.mark.parametrize("command", [["schema"], ["report", "latest"], ["export", "latest"],
                                     ["compare"], ["calibrate", "calibration.yaml", "--run",
                                                   "latest"]])
def test_an_output_under_a_file_is_exit_2_before_any_work_on_every_command(
        command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay run -o` under a file was a usage error (exit 2), but report, export,
    compare, calibrate and schema did their work (compare --pairwise paid its judge) and then
    failed to write, exit 3."""
    import assay
    from assay.cli import main

    monkeypatch.chdir(tmp_path)
    for version in (1, 2):
        assay.evaluate("capitals", data=[{"id": "fr", "input": "France?", "expected": "Paris"}],
                       task=lambda case, version=version: "Paris" if version == 2 else "?",
                       scorers=["exact_match"])
    (tmp_path / "calibration.yaml").write_text("labels: {path: labels.jsonl}\n")
    (tmp_path / "labels.jsonl").write_text('{"id": "fr", "label": "pass"}\n')
    (tmp_path / "a-file").write_text("")
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main([*command, "-o", str(tmp_path / "a-file" / "out")])
    err = capsys.readouterr().err
    assert exited.value.code == 2, err
    assert f"{tmp_path / 'a-file'} is a file, not a folder" in err
