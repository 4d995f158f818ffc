"""A run's session: its trials committed off the event loop where the store is far away."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from assay.store import Store
from tests.cli.evalproject import assay, write_project


def test_a_run_commits_its_batches_in_a_thread_only_on_a_store_across_a_network(
        tmp_path: Path, store_url: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL each commit is a round trip away, and on the event loop it held every
    trial meanwhile; a SQLite file answers faster than a thread could take it over."""
    config = write_project(tmp_path, {"a": {"rate": 0.5}}, cases=40,
                           extra={"run": {"batch_size": 5}})
    committing: set[str] = set()
    write_trials = Store.write_trials

    def noted(store: Store, *args: object, **kwargs: object) -> object:
        committing.add(threading.current_thread().name)
        return write_trials(store, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "write_trials", noted)
    monkeypatch.chdir(tmp_path)
    code, _ = assay(capsys, "run", str(config), "--store", store_url, "--no-progress", "-q")
    assert code in (0, 1)
    if store_url.startswith("postgresql"):
        assert "assay-commit_0" in committing
    else:
        assert committing == {threading.current_thread().name}
