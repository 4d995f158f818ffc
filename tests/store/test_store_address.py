"""A store URL that cannot be a store is one clear line and exit 2 before anything runs, and
a PostgreSQL server that never answers is named unreachable in seconds, not waited on."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import StoreError
from assay.store import Store, store_address, store_url
from tests.store.test_failures import assay, assert_one_clear_line, project


def test_a_port_that_is_not_a_number_is_named_without_a_traceback_or_the_password(
        tmp_path: Path) -> None:
    """It ended in 'internal error: ValueError: invalid literal for int() with base 10'."""
    url = "postgresql+psycopg://assay:hunter2-password@127.0.0.1:notaport/assay"
    result = assay(project(tmp_path), "runs", "--store", url)
    assert_one_clear_line(result, 2, "has a port that is not a number ('notaport')")
    assert "hunter2-password" not in result.stderr


def test_a_database_assay_cannot_keep_runs_in_is_a_bad_argument(tmp_path: Path) -> None:
    """It ended in 'cannot use the store mysql://...: No module named MySQLdb', exit 3."""
    result = assay(project(tmp_path), "run", "assay.yaml", "--store", "mysql://me@db/evals",
                   "--no-progress")
    assert_one_clear_line(result, 2, "names a mysql database: assay keeps runs in SQLite")


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite:///:memory:", ":memory:"])
def test_a_sqlite_url_with_no_file_is_refused_before_the_run_is_lost(
        tmp_path: Path, url: str) -> None:
    """`--store sqlite:///$DIR/x.db` with DIR unset ran the eval into memory and exited 0:
    the run was gone with the process, and no `assay report` could find it."""
    result = assay(project(tmp_path), "run", "assay.yaml", "--store", url, "--no-progress")
    assert_one_clear_line(result, 2, "names no file: the runs would be kept in memory")
    assert not (tmp_path / ".assay" / "runs").exists()


@pytest.mark.parametrize(("driver", "words"), [
    ("psycopq", "names the driver 'psycopq', which assay does not know"),
    ("psycopg_async", "names 'psycopg_async', a driver for asyncio, which the store cannot use"),
])
def test_a_driver_the_store_cannot_use_is_a_bad_argument_named_without_the_password(
        tmp_path: Path, driver: str, words: str) -> None:
    """A typo ended in 'cannot use the store ...: Can't load plugin: sqlalchemy.dialects:
    postgresql.psycopq', exit 3 as if the database were down; an asyncio driver in
    'internal error: MissingGreenlet'."""
    pytest.importorskip("psycopg")
    url = f"postgresql+{driver}://assay:hunter2-password@127.0.0.1:5432/assay"
    result = assay(project(tmp_path), "runs", "--store", url)
    assert_one_clear_line(result, 2, words)
    assert "write postgresql+psycopg://user@host:5432/database" in result.stderr
    assert "hunter2-password" not in result.stderr


def test_a_driver_that_is_not_installed_is_a_bad_argument(tmp_path: Path) -> None:
    """It ended in 'cannot use the store ...: No module named 'pg8000'', exit 3."""
    try:
        import pg8000  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("pg8000 is installed here")
    result = assay(project(tmp_path), "runs", "--store", "postgresql+pg8000://me@db/evals")
    assert_one_clear_line(result, 2, "needs the driver 'pg8000', which is not installed")


def test_postgres_scheme_is_read_as_postgresql() -> None:
    """libpq and most hosting services write postgres://, which SQLAlchemy knows no dialect
    for ('Can't load plugin: sqlalchemy.dialects:postgres')."""
    assert store_url("postgres://me@db:5432/evals") == "postgresql://me@db:5432/evals"


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never says a word, as a hung server does."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not done.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    done.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def test_a_postgresql_server_that_never_answers_is_unreachable_after_the_connect_timeout(
        silent_server: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """`assay runs --store` over such a server waited forever."""
    pytest.importorskip("psycopg")
    monkeypatch.setattr(store_address, "CONNECT_TIMEOUT_SECONDS", 2)
    started = time.monotonic()
    with pytest.raises(StoreError, match="cannot be reached"):
        Store(f"postgresql+psycopg://assay@127.0.0.1:{silent_server}/assay")
    assert time.monotonic() - started < 15


def test_a_connect_timeout_in_the_url_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGOPTIONS", raising=False)
    _, given = store_address.engine_arguments("postgresql+psycopg://h/db?connect_timeout=30")
    assert "connect_timeout" not in given
    _, default = store_address.engine_arguments("postgresql+psycopg://h/db")
    assert default["connect_timeout"] == store_address.CONNECT_TIMEOUT_SECONDS
    assert store_address.engine_arguments("sqlite:///x.db") == ("sqlite:///x.db", {})


def test_the_session_options_a_url_or_pgoptions_gives_are_kept_beside_the_lock_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGOPTIONS", "-csearch_path=evals")
    address, given = store_address.engine_arguments("postgresql+psycopg://h/db", "x=on")
    assert given["options"] == "-csearch_path=evals -c x=on -c lock_timeout=30000"
    assert "options" not in str(address)
    _, own = store_address.engine_arguments(
        "postgresql+psycopg://h/db?options=-c%20lock_timeout%3D5s")
    assert own["options"] == "-c lock_timeout=5s"


def test_a_postgresql_table_another_session_holds_is_waited_on_then_named_as_locked(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A session left open in psql with the table locked held `assay run` forever (SQLite
    waits 30 seconds, then says the store stayed locked)."""
    pytest.importorskip("psycopg")
    from sqlalchemy import create_engine, text

    from tests.conftest import postgres_server_url
    from tests.postgres import scratch_schema

    monkeypatch.setattr(store_address, "LOCK_WAIT_SECONDS", 1)
    with scratch_schema(postgres_server_url()) as url:
        Store(url).close()
        other = create_engine(url)
        try:
            with other.begin() as conn:
                conn.execute(text("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE"))
                started = time.monotonic()
                store = Store(url)
                with pytest.raises(StoreError, match="stayed locked by another process"):
                    store.list_runs()
                store.close()
                assert time.monotonic() - started < 15
        finally:
            other.dispose()
