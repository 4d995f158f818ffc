"""Kinds found by name; a broken third-party plugin is named and skipped, never fatal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.registry import Registry

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def broken_plugin(tmp_path: Path) -> dict[str, str]:
    """An installed distribution whose `assay.scorers` entry point raises on import."""
    site = tmp_path / "site"
    info = site / "shouty_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shouty-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[assay.scorers]\nshouty = shouty_plugin:Shouty\n")
    (site / "shouty_plugin.py").write_text("raise ImportError('needs the shout library')\n")
    return {**os.environ, "PYTHONPATH": str(site)}


def assay(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_assay_schema_skips_a_broken_plugin_and_names_it(broken_plugin: dict[str, str],
                                                          tmp_path: Path) -> None:
    done = assay(broken_plugin, tmp_path, "schema")
    assert done.returncode == 0, done.stderr
    assert '"exact_match"' in done.stdout
    assert "scorer plugin 'shouty' was skipped" in done.stderr
    assert "needs the shout library" in done.stderr


def test_a_run_that_does_not_use_the_broken_plugin_is_untouched(
        broken_plugin: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", project)
    done = assay(broken_plugin, project, "run", "assay.yaml", "--no-progress",
                 "--store", str(tmp_path / "assay.db"))
    assert done.returncode == 0, done.stderr
    assert "shouty" not in done.stdout + done.stderr


def test_a_config_naming_the_broken_kind_is_told_which_plugin_failed(
        broken_plugin: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", project)
    config = project / "assay.yaml"
    config.write_text(config.read_text().replace("scorers:\n", "scorers:\n  - type: shouty\n", 1))
    done = assay(broken_plugin, project, "validate", "assay.yaml")
    assert done.returncode == 2
    assert "unknown scorer type 'shouty'" in done.stderr
    assert "plugin 'shouty' failed to load: shouty_plugin:Shouty: ImportError" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_kind_is_found_by_name_with_a_suggestion_when_misspelt() -> None:
    registry: Registry[object] = Registry("scorer", {})

    @registry.register("exact_match")
    class Exact:
        pass

    assert registry.get("exact_match") is Exact
    with pytest.raises(KeyError, match="did you mean 'exact_match'"):
        registry.get("exact_mach")
