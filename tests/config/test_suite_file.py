"""Suite files: the configs they name, and a clear error for an entry that names no file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from assay.config.suite_file import expand_configs
from assay.errors import UserError


def write_suite(root: Path, entries: list[str]) -> Path:
    (root / "a.yaml").write_text("name: a\n")
    path = root / "suite.yaml"
    path.write_text(yaml.safe_dump({"suite": entries}))
    return path


def test_a_suite_names_its_configs_relative_to_itself(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    configs, is_suite = expand_configs([str(write_suite(tmp_path, ["a.yaml"]))])
    assert configs == [Path("a.yaml")] and is_suite


def test_a_suite_entry_too_long_for_the_file_system_is_a_clear_error_not_an_internal_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: an entry of 300 characters raised OSError (File name too long) out of
    `Path.is_file()`, with or without glob characters: `assay run` ended in an internal
    error."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match="suite.yaml: config file .*File name too long"):
        expand_configs([str(write_suite(tmp_path, ["é" * 300]))])
    with pytest.raises(UserError, match="no config file matches"):
        expand_configs([str(write_suite(tmp_path, ["9" * 300 + "/*.yaml"]))])


def test_a_suite_entry_that_is_a_fifo_is_refused_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe.yaml")
    with pytest.raises(UserError, match="not a regular file"):
        expand_configs([str(write_suite(tmp_path, ["pipe.yaml"]))])
