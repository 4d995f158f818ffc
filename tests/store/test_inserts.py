"""Bulk inserts store every value as given, None as SQL NULL, without SQLite's adapter search."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Integer, MetaData, Table, Text, create_engine, text

from assay.store.inserts import insert_rows

metadata = MetaData()
notes = Table("notes", metadata, Column("id", Integer, primary_key=True), Column("body", Text),
              Column("score", Integer))


def test_rows_are_stored_as_given_and_none_as_null(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'notes.db'}")
    metadata.create_all(engine)
    rows: list[dict[str, Any]] = [{"id": 1, "body": "text", "score": 3},
                                  {"id": 2, "body": None, "score": None}]
    with engine.begin() as conn:
        assert insert_rows(conn, notes, rows) == 2
    with engine.connect() as conn:
        stored = conn.execute(text(
            "select id, body, body is null, score is null from notes order by id")).all()
    assert [tuple(row) for row in stored] == [(1, "text", 0, 0), (2, None, 1, 1)]


def test_a_sqlite_insert_binds_none_through_a_registered_adapter(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'notes.db'}")
    metadata.create_all(engine)
    with engine.begin() as conn:
        insert_rows(conn, notes, [{"id": 1, "body": None, "score": None}])
    adapter = sqlite3.adapters[(type(None), sqlite3.PrepareProtocol)]
    assert adapter(None) is None  # NULL as before, found at the first lookup


def test_no_rows_is_no_statement(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'notes.db'}")
    metadata.create_all(engine)
    with engine.begin() as conn:
        assert insert_rows(conn, notes, []) == 0
