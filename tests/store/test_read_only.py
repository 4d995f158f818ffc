"""A store this process cannot write (a read-only mount, a CI artifact's folder, another
user's store) is still read by the commands that only read it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.test_failures import assay, assert_one_clear_line, project

WITHOUT_ROOT_POWERS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner",
                       "--inh-caps=-dac_override,-dac_read_search,-fowner"]
"""Root writes any file whatever its mode; without these capabilities it obeys the mode."""


def as_a_user(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` as a process that cannot write what its file modes forbid, even as root."""
    if os.geteuid() != 0:
        return assay(cwd, *args)
    return python_as_a_user(cwd, "-m", "assay", *args)


def python_as_a_user(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python ARGS` as a process that cannot write what its file modes forbid, even as root."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root writes any file, and setpriv is not here to drop that power")
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_STORE"}
    return subprocess.run([*(WITHOUT_ROOT_POWERS if os.geteuid() == 0 else []),
                           sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.fixture
def read_only_store(tmp_path: Path) -> Iterator[Path]:
    """A store holding two completed runs of one experiment, its file and folder made
    read-only as a read-only mount has them (no -wal or -shm file beside it); writable
    again afterwards."""
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    project(tmp_path)
    for output in ("out", "out-again"):
        ran = assay(tmp_path, "run", "assay.yaml", "--store", "shelf/assay.db",
                    "--no-progress", "-o", output)
        assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in shelf.iterdir()) == ["assay.db"]
    (shelf / "assay.db").chmod(0o444)
    shelf.chmod(0o555)
    try:
        yield shelf / "assay.db"
    finally:
        shelf.chmod(0o755)
        (shelf / "assay.db").chmod(0o644)


def test_a_store_on_a_read_only_mount_is_read_by_runs_history_report_and_compare(
        tmp_path: Path, read_only_store: Path) -> None:
    """Each said 'the store ... is read-only: assay cannot write to it', exit 3: SQLite
    reads a WAL store through a -shm file it must make beside it."""
    store = str(read_only_store)
    listed = as_a_user(tmp_path, "runs", "--store", store)
    assert listed.returncode == 0, listed.stderr
    assert "faults" in listed.stdout and "completed" in listed.stdout
    compared = as_a_user(tmp_path, "compare", "--store", store, "-o",
                         str(tmp_path / "compared.md"))
    assert compared.returncode == 0, compared.stderr
    assert (tmp_path / "compared.md").stat().st_size > 0
    history = as_a_user(tmp_path, "history", "faults", "--store", store)
    assert history.returncode == 0, history.stderr
    report = as_a_user(tmp_path, "report", "latest", "--format", "json", "-o",
                       str(tmp_path / "again.json"), "--store", store)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "again.json").stat().st_size > 0
    assert sorted(p.name for p in read_only_store.parent.iterdir()) == ["assay.db"]


def test_a_run_into_a_store_on_a_read_only_mount_is_refused_as_such(
        tmp_path: Path, read_only_store: Path) -> None:
    result = as_a_user(tmp_path, "run", "assay.yaml", "--store", str(read_only_store),
                       "--no-progress", "-o", "out2")
    assert_one_clear_line(result, 3, "is read-only: assay cannot write to it")


def test_an_export_from_a_store_on_a_read_only_mount_writes_its_files_and_says_they_are_not_recorded(
        tmp_path: Path, read_only_store: Path) -> None:
    """It wrote every file, then failed to record the export: 'is read-only', exit 3."""
    exported = tmp_path / "eee"
    result = as_a_user(tmp_path, "export", "latest", "--store", str(read_only_store),
                       "-o", str(exported))
    assert result.returncode == 0, result.stderr
    files = [line for line in result.stdout.splitlines() if line.endswith((".json", ".jsonl"))]
    assert files and all(Path(name).is_file() for name in files)
    assert "the export is not recorded with run" in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in read_only_store.parent.iterdir()) == ["assay.db"]


def test_a_store_an_older_assay_made_on_a_read_only_mount_is_refused_saying_how_to_upgrade_it(
        tmp_path: Path) -> None:
    """Regression: over a store made by the assay before the last column was added, that it
    could not write, `assay report` said 'failed: no such column: scores.cache_hits', and
    the viewer 'the store ... is read-only: assay cannot write to it'. Every reader now says
    the store is older and how to upgrade it."""
    from sqlalchemy import delete

    from assay.store import Store
    from assay.store.migrations import SCHEMA_VERSION
    from assay.store.schema import schema_migrations

    shelf = tmp_path / "shelf"
    shelf.mkdir()
    project(tmp_path)
    ran = assay(tmp_path, "run", "assay.yaml", "--store", "shelf/assay.db", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    store = Store(str(shelf / "assay.db"))
    with store.engine.begin() as conn:  # as the assay before the latest migration left it
        conn.execute(delete(schema_migrations).where(schema_migrations.c.version
                                                     == SCHEMA_VERSION))
        conn.exec_driver_sql("ALTER TABLE scores DROP COLUMN shared_cost_usd")
    store.close()
    (shelf / "assay.db").chmod(0o444)
    shelf.chmod(0o555)
    viewing = "from assay.view.server import open_for_viewing; open_for_viewing('shelf/assay.db')"
    try:
        viewed = python_as_a_user(tmp_path, "-c", viewing)
        readers = [as_a_user(tmp_path, *command, "--store", "shelf/assay.db")
                   for command in (["runs"], ["report", "latest", "--format", "md"])]
    finally:
        shelf.chmod(0o755)
        (shelf / "assay.db").chmod(0o644)
    older = (f"the store shelf/assay.db was made by an older assay (schema version "
             f"{SCHEMA_VERSION - 1}; this one reads {SCHEMA_VERSION}) and cannot be upgraded "
             "here: this process cannot write it")
    assert older in viewed.stderr
    for read in readers:
        assert read.returncode == 2, read.stderr
        assert older in read.stderr
        assert "no such column" not in read.stderr
    upgraded = assay(tmp_path, "report", "latest", "--format", "md", "--store", "shelf/assay.db")
    assert upgraded.returncode == 0, upgraded.stderr  # where it can be written, it is upgraded
