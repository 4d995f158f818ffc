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


@pytest.fixture(autouse=True)
def _secrets_known_to_this_test_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no secret registered by another (`assay.redaction.register`):
    a test's placeholder key such as `secret` or `session` would be masked in the text a
    later test reads."""
    monkeypatch.setattr("assay.redaction._registered", set())


@pytest.fixture
def shared_fixtures() -> Path:
    """`shared/fixtures`: real datasets, configs and sessions from public projects."""
    return require_shared_fixtures()


POSTGRES_URL_VARIABLE = "ASSAY_TEST_POSTGRES_URL"


def postgres_server_url() -> str:
    """The PostgreSQL server the tests may use (`ASSAY_TEST_POSTGRES_URL`, as `.ci/run` sets
    it). Missing, a PostgreSQL test fails under `CI=true` (the store would go untested on
    the database teams use) and is skipped elsewhere."""
    url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not url:
        message = (f"set {POSTGRES_URL_VARIABLE} (e.g. postgresql+psycopg://assay@127.0.0.1/"
                   "postgres) to test the store on PostgreSQL")
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + " (CI=true: .ci/run starts one)")
        pytest.skip(message)
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    """A URL of a fresh, empty store: a SQLite file, then a PostgreSQL schema of its own (so
    tests in parallel never see each other's tables), dropped afterwards."""
    if request.param == "sqlite":
        yield str(tmp_path / "assay.db")
        return
    from tests.postgres import scratch_schema

    with scratch_schema(postgres_server_url()) as url:
        yield url


@pytest.fixture
def store(store_url: str):  # type: ignore[no-untyped-def]
    """A fresh store on SQLite, and on PostgreSQL (see `store_url`)."""
    from assay.store import Store

    opened = Store(store_url)
    yield opened
    opened.close()
