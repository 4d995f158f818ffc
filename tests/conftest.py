"""Shared fixtures: where the real-world data files live, and a scratch store."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_FIXTURES = REPO.parent / "shared" / "fixtures"


@pytest.fixture
def shared_fixtures() -> Path:
    """`../shared/fixtures`: real datasets, configs and sessions from public projects."""
    if not SHARED_FIXTURES.is_dir():
        pytest.skip(f"shared fixtures not found at {SHARED_FIXTURES}")
    return SHARED_FIXTURES


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    from assay.store import Store

    opened = Store(str(tmp_path / "assay.db"))
    yield opened
    opened.close()
