"""`assay init`: a starter project whose config is valid whatever the experiment is called."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from assay.config import load_config

from .evalproject import assay


@pytest.mark.parametrize("name", ["a: b # c", "2024", "x\ny", "'quoted'", "null"])
def test_any_experiment_name_gives_a_config_that_loads_with_that_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    """Regression: the name was pasted into the YAML as it was, so `--name 'a: b # c'` wrote a
    config that did not parse, and a folder called 2024 one whose name was a number."""
    code, out = assay(capsys, "init", str(tmp_path / "project"), "--name", name)
    assert code == 0, out
    assert load_config(tmp_path / "project" / "assay.yaml").config.name == name


def test_a_folder_name_that_yaml_reads_as_a_number_stays_the_experiment_name(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = assay(capsys, "init", str(tmp_path / "2024"))
    assert code == 0, out
    assert load_config(tmp_path / "2024" / "assay.yaml").config.name == "2024"


def test_the_next_step_is_a_command_a_shell_can_run_as_printed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `next: assay run my evals/assay.yaml` split at the space in a shell."""
    folder = tmp_path / "my evals"
    code, out = assay(capsys, "init", str(folder))
    assert code == 0, out
    [hint] = [line for line in out.splitlines() if line.startswith("next: ")]
    assert shlex.split(hint.removeprefix("next: ")) == ["assay", "run",
                                                        str(folder / "assay.yaml")]
