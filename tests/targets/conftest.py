"""Fixtures for the target tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in an empty working directory, so `.assay/` caches land there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
