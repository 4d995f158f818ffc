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


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A fresh store: SQLite always; PostgreSQL too when ASSAY_TEST_POSTGRES_URL names one
    (e.g. postgresql+psycopg://assay:assay@127.0.0.1/assay; its tables are dropped first)."""
    import os

    from assay.store import Store

    if request.param == "sqlite":
        opened = Store(str(tmp_path / "assay.db"))
    else:
        url = os.environ.get("ASSAY_TEST_POSTGRES_URL")
        if not url:
            pytest.skip("set ASSAY_TEST_POSTGRES_URL to test the store on PostgreSQL")
        _drop_all(url)
        opened = Store(url)
    yield opened
    opened.close()


def _drop_all(url: str) -> None:
    from sqlalchemy import create_engine

    from assay.store import schema

    engine = create_engine(url)
    with engine.begin() as conn:
        schema.metadata.drop_all(conn)
    engine.dispose()
