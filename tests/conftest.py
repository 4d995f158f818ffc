"""Shared fixtures: where the real-world data files live, and a scratch store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _find_shared_fixtures() -> Path:
    """`shared/fixtures` beside the repository (as in CI), or beside one of its parents (a
    checkout nested one level deeper, e.g. a git worktree)."""
    for parent in list(REPO.parents)[:3]:
        candidate = parent / "shared" / "fixtures"
        if candidate.is_dir():
            return candidate
    return REPO.parent / "shared" / "fixtures"


SHARED_FIXTURES = _find_shared_fixtures()


def require_shared_fixtures(*parts: str) -> Path:
    """`shared/fixtures/<parts>`: real datasets, configs and sessions from public projects.

    Missing, a test that needs them fails in CI (`CI=true`: a CI that silently skipped
    them would pass without testing anything real) and is skipped elsewhere."""
    path = SHARED_FIXTURES.joinpath(*parts)
    if not path.exists():
        message = f"real-world fixtures not found at {path}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true: they must be there)")
        pytest.skip(message)
    return path


@pytest.fixture
def shared_fixtures() -> Path:
    """`shared/fixtures`: real datasets, configs and sessions from public projects."""
    return require_shared_fixtures()


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
