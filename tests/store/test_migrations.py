"""A database made by the first release of the store upgrades in place and reads back whole;
a new store is created once, however many processes open it at the same moment."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, select

from assay._version import __version__
from assay.cli import main
from assay.errors import UserError
from assay.store import Store, initial_schema, schema
from assay.store.migrations import MIGRATIONS, SCHEMA_VERSION, current_version

INDEX_BY_PROVIDER = 11
"""The migration that indexes the response cache by provider."""


def first_release_database(path: Path) -> str:
    """A SQLite file as the first release left it: the frozen tables, migration 1 recorded."""
    url = f"sqlite:///{path}"
    engine = create_engine(url)
    with engine.begin() as conn:
        schema.schema_migrations.create(conn)
        initial_schema.metadata.create_all(conn)
        conn.execute(schema.schema_migrations.insert().values(
            version=1, name=MIGRATIONS[0][0], applied_at="2026-01-01T00:00:00+00:00"))
        conn.execute(initial_schema.runs.insert().values(
            id="r1", experiment="geo", kind="eval", status="completed",
            started_at="2026-01-01T00:00:00+00:00", finished_at="2026-01-01T00:01:00+00:00",
            config_json=json.dumps({"name": "geo", "run": {"seed": 3}}),
            summary_json=json.dumps({"scores": [{"scorer": "contains"}]}), total_trials=1))
        conn.execute(initial_schema.trials.insert().values(
            run_id="r1", case_id="mars", condition="base", epoch=0,
            input_json=json.dumps("Which planet is red?"), expected_json=json.dumps("Mars"),
            output_text="Mars", output_json=json.dumps({"text": "Mars"}), latency_ms=12.5,
            finished_at="2026-01-01T00:00:30+00:00"))
        conn.execute(initial_schema.scores.insert().values(
            run_id="r1", case_id="mars", condition="base", epoch=0, scorer="contains",
            value=1.0, scale_min=0.0, scale_max=1.0, passed=1, reason="found 'Mars'"))
    engine.dispose()
    return url


def test_the_first_schema_upgrades_and_its_runs_read_back(tmp_path: Path) -> None:
    url = first_release_database(tmp_path / "old.db")
    store = Store(url)
    try:
        with store.engine.connect() as conn:
            assert current_version(conn) == SCHEMA_VERSION
            columns = {c["name"] for c in inspect(conn).get_columns("scores")}
        assert {"input_tokens", "output_tokens", "cost_usd"} <= columns
        run = store.get_run("r1")
        assert run is not None and run.experiment == "geo" and run.seed == 3
        assert run.options is None  # a column the first release did not have
        [trial] = list(store.iter_trials("r1"))
        assert (trial.case_id, trial.output.text, trial.expected) == ("mars", "Mars", "Mars")
        assert trial.scores["contains"].passed is True
        assert trial.scores["contains"].usage is None  # no judge spend recorded back then
        [row] = list(store.iter_score_rows("r1"))
        assert (row.scorer, row.value, row.cost_usd) == ("contains", 1.0, None)
        assert store.exports("r1") == []  # a table added since, empty
    finally:
        store.close()


def test_a_new_database_and_an_upgraded_one_end_with_the_same_tables(tmp_path: Path) -> None:
    upgraded = Store(first_release_database(tmp_path / "old.db"))
    fresh = Store(str(tmp_path / "new.db"))
    try:
        def shape(store: Store) -> dict[str, set[str]]:
            with store.engine.connect() as conn:
                found = inspect(conn)
                return {table: {c["name"] for c in found.get_columns(table)}
                        for table in found.get_table_names()}

        assert shape(upgraded) == shape(fresh)
    finally:
        upgraded.close()
        fresh.close()


OPEN_AT_ONCE = """
import os, sys, time
from assay.store import Store
while not os.path.exists(sys.argv[2]):
    time.sleep(0.001)
Store(sys.argv[1]).close()
"""


def test_six_processes_opening_a_new_store_at_once_all_succeed_and_migrate_it_once(
        store_url: str, tmp_path: Path) -> None:
    """Regression: two processes opening a new store could both create its tables, and one
    failed on the other's migration record; then SQLite's switch of the new file to WAL
    answered 'database is locked' at once (it does not wait busy_timeout for it)."""
    gate = tmp_path / "go"
    openers = [subprocess.Popen([sys.executable, "-c", OPEN_AT_ONCE, store_url, str(gate)],
                                stderr=subprocess.PIPE, text=True) for _ in range(6)]
    time.sleep(1.0)  # every process waiting at the gate, its imports done
    gate.touch()
    for opener in openers:
        _, err = opener.communicate(timeout=120)
        assert opener.returncode == 0, err
    store = Store(store_url)
    with store.engine.connect() as conn:
        versions = conn.execute(select(schema.schema_migrations.c.version)).scalars().all()
    store.close()
    assert sorted(versions) == list(range(1, SCHEMA_VERSION + 1))


def sqlite_layout(url: str) -> dict[str, object]:
    """Everything SQLite knows of a database's tables: columns in order (type, not null,
    default, key), foreign keys, and each index's table and SQL (its columns and WHERE)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            tables = conn.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").scalars().all()
            layout: dict[str, object] = {
                "indexes": conn.exec_driver_sql(
                    "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' "
                    "ORDER BY name").all()}
            for table in tables:
                layout[table] = (
                    [tuple(row)[1:] for row in conn.exec_driver_sql(f"PRAGMA table_info({table})")],
                    sorted(tuple(row)[2:] for row in
                           conn.exec_driver_sql(f"PRAGMA foreign_key_list({table})")))
            return layout
    finally:
        engine.dispose()


def test_a_new_store_made_in_one_step_is_laid_out_as_every_migration_would_leave_it(
        tmp_path: Path) -> None:
    stepwise = f"sqlite:///{tmp_path / 'stepwise.db'}"
    engine = create_engine(stepwise)
    with engine.begin() as conn:
        schema.schema_migrations.create(conn)
        for _, step in MIGRATIONS:
            step(conn)
    engine.dispose()
    Store(str(tmp_path / "new.db")).close()  # empty: made by migrations.create_current
    new = f"sqlite:///{tmp_path / 'new.db'}"
    assert sqlite_layout(new) == sqlite_layout(stepwise)
    with create_engine(new).connect() as conn:
        recorded = conn.execute(select(schema.schema_migrations.c.version,
                                       schema.schema_migrations.c.name)).all()
    assert recorded == [(version, name) for version, (name, _) in enumerate(MIGRATIONS, 1)]


def newer_store(path: Path) -> str:
    """A store a later assay has migrated one step past this one, renaming a column."""
    Store(f"sqlite:///{path}").close()
    engine = create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        conn.execute(schema.schema_migrations.insert().values(
            version=SCHEMA_VERSION + 1, name="trials: a later change",
            applied_at="2027-01-01T00:00:00+00:00"))
        conn.exec_driver_sql("ALTER TABLE trials RENAME COLUMN output_text TO answer_text")
    engine.dispose()
    return str(path)


@pytest.mark.parametrize("command", [["runs"], ["history"], ["report", "latest"]])
def test_a_store_a_newer_assay_migrated_is_refused_with_exit_2_before_anything_runs(
        tmp_path: Path, command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """It was opened as if current: `assay run` paid for its first trials, then ended in
    'the store failed: table trials has no column named output_text' (exit 3)."""
    store = newer_store(tmp_path / "newer.db")
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--store", store])
    assert exit_.value.code == 2
    said = capsys.readouterr().err
    assert (f"the store {store} was written by a newer assay (schema version "
            f"{SCHEMA_VERSION + 1}; assay {__version__} knows up to {SCHEMA_VERSION})") in said


def test_the_viewer_refuses_a_store_a_newer_assay_migrated(tmp_path: Path) -> None:
    from assay.view.server import open_for_viewing

    with pytest.raises(UserError, match="was written by a newer assay"):
        open_for_viewing(newer_store(tmp_path / "newer.db"))


def test_a_run_into_a_store_a_newer_assay_migrated_calls_no_target(tmp_path: Path) -> None:
    store = newer_store(tmp_path / "newer.db")
    called = tmp_path / "called"
    (tmp_path / "agent.py").write_text(
        f"def answer(case):\n    open({str(called)!r}, 'w').close()\n    return 'x'\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "c1", "input": "q", "expected": "x"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: newer\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent.py:answer'}\nscorers: [{type: exact_match}]\n")
    with pytest.raises(SystemExit) as exit_:
        main(["run", str(tmp_path / "assay.yaml"), "--store", store, "--no-progress"])
    assert exit_.value.code == 2
    assert not called.exists()


def test_a_store_made_before_the_cache_was_indexed_by_provider_gets_the_index(
        store_url: str) -> None:
    """A run whose provider has no API key asks whether the cache holds that provider's
    replies: without the index, a read of the whole cache."""
    def indexes(store: Store) -> set[str]:
        with store.engine.connect() as conn:
            return {index["name"] for index in inspect(conn).get_indexes("response_cache")}

    store = Store(store_url)
    assert "response_cache_by_provider" in indexes(store)
    with store.engine.begin() as conn:  # as the assay before it left the store
        conn.exec_driver_sql("DROP INDEX response_cache_by_provider")
        conn.execute(schema.schema_migrations.delete().where(
            schema.schema_migrations.c.version >= INDEX_BY_PROVIDER))
    assert "response_cache_by_provider" not in indexes(store)
    store.close()
    upgraded = Store(store_url)
    try:
        assert "response_cache_by_provider" in indexes(upgraded)
        with upgraded.engine.connect() as conn:
            assert current_version(conn) == SCHEMA_VERSION
    finally:
        upgraded.close()
