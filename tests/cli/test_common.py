"""Options the subcommands share: a file to write is a file, never a folder's name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .evalproject import assay, assay_apart, write_project


@pytest.mark.parametrize("args, option", [
    (["run", "{config}", "--junit", "out/"], "--junit"),
    (["report", "latest", "-o", "out/"], "--output"),
    (["compare", "latest~1", "latest", "-o", "out/"], "--output"),
    (["schema", "-o", "out/"], "--output"),
    (["calibrate", "-o", "out/"], "--output"),
    (["traces", "export", "{root}", "-o", "out/"], "--output"),
    (["traces", "analyze", "{root}", "--guidelines", "out/"], "--guidelines"),
], ids=["run-junit", "report", "compare", "schema", "calibrate", "traces-export",
        "traces-guidelines"])
def test_a_file_to_write_named_with_a_trailing_slash_is_refused_before_any_work(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        args: list[str], option: str) -> None:
    """Regression: `assay run --junit out/` ran the eval and wrote the JUnit file as a file
    named `out` (pathlib drops the slash), and `assay report -o out/` did the same."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "s.db"))
    config = write_project(tmp_path, {"agent": {"rate": 1.0}}, cases=2)
    code, text = assay(capsys, *(a.format(config=config, root=tmp_path) for a in args))
    assert code == 2, text
    assert "Invalid value for " in text and f"'{option}'" in text
    assert "out/ ends in '/', so it names a folder, not a file to write" in text
    assert not (tmp_path / "out").exists() and not (tmp_path / "s.db").exists()


@pytest.mark.parametrize("args", [["schema", "-o", "-"], ["report", "latest", "-o", "-"]],
                         ids=["schema", "report"])
def test_an_output_of_dash_prints_to_standard_output_not_a_file_named_dash(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        args: list[str]) -> None:
    """Regression: `assay schema -o -` and `assay report latest -o -` wrote a file named `-`
    and printed 'wrote -'."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "s.db"))
    config = write_project(tmp_path, {"agent": {"rate": 1.0}}, cases=2)
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    code, out, err = assay_apart(capsys, *args)
    assert code == 0, err
    assert out.lstrip().startswith(("{", "#")) and "wrote" not in err
    assert not (tmp_path / "-").exists()


def test_an_options_bounds_are_the_configs_own() -> None:
    """`--concurrency`, `--epochs` and `--sample` override `run:` keys: they refuse exactly
    what the config refuses, read from one table of bounds."""
    from annotated_types import Ge, Le

    from assay.cli.common import provider_timeout_range, run_setting_range
    from assay.config.models import RunSettings
    from assay.providers.config import ProviderConfig

    for name in ("concurrency", "epochs", "sample"):
        metadata = RunSettings.model_fields[name].metadata
        low = next(bound.ge for bound in metadata if isinstance(bound, Ge))
        high = next(bound.le for bound in metadata if isinstance(bound, Le))
        option = run_setting_range(name)
        assert (option.min, option.max) == (low, high), name
    timeout = ProviderConfig.model_fields["timeout"].metadata
    assert provider_timeout_range().max == next(b.le for b in timeout if isinstance(b, Le))


def test_an_export_into_a_pipe_or_a_device_is_refused_before_any_work(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: `assay export latest -o /dev/null` (or a named pipe) said 'could not write
    /dev/null/data/...: /dev/null is a file, not a folder', exit 3, as if the disk had failed."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "s.db"))
    config = write_project(tmp_path, {"agent": {"rate": 1.0}}, cases=2)
    assert assay(capsys, "run", str(config), "--no-progress")[0] == 0
    os.mkfifo(tmp_path / "pipe")
    for folder in (tmp_path / "pipe", Path(os.devnull)):
        code, text = assay(capsys, "export", "latest", "-o", str(folder))
        assert code == 2, text
        assert text.strip() == f"error: --output {folder}: {folder} is a file, not a folder"
