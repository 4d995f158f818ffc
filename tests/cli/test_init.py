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


def test_a_folder_behind_a_file_is_refused_with_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay init notes.txt/eval` ended in 'internal error: NotADirectoryError',
    exit 3, as if assay had a bug."""
    (tmp_path / "notes.txt").write_text("mine")
    code, out = assay(capsys, "init", str(tmp_path / "notes.txt" / "eval"))
    assert code == 2, out
    assert out.strip() == (f"error: DIRECTORY {tmp_path / 'notes.txt' / 'eval'}: "
                           f"{tmp_path / 'notes.txt'} is a file, not a folder")


def test_a_folder_that_is_not_writable_is_refused_before_any_file_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a read-only folder got as far as writing assay.yaml and failed there,
    exit 3, 'could not write ...', which reads as assay's failure, not the argument's."""
    import os

    folder = tmp_path / "shared"
    folder.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: (  # a user who may only read it
        not mode & os.W_OK if Path(path) == folder else real_access(path, mode)))
    code, out = assay(capsys, "init", str(folder))
    assert code == 2, out
    assert out.strip() == f"error: DIRECTORY {folder}: this folder is not writable"
    assert not list(folder.iterdir())


def test_a_folder_where_a_starter_file_goes_is_refused_even_with_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay init DIR --force` with a folder DIR/assay.yaml ended in 'could not
    write DIR/assay.yaml: Is a directory', exit 3, after writing nothing or part."""
    (tmp_path / "assay.yaml").mkdir()
    code, out = assay(capsys, "init", str(tmp_path), "--force")
    assert code == 2, out
    assert out.strip() == (f"error: {tmp_path / 'assay.yaml'}: a folder where assay init "
                           "writes a file; move it or choose another DIRECTORY")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["assay.yaml"]
