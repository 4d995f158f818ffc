"""Finding session files: each once, and what cannot be read refused as such."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.errors import UserError
from assay.traces.sessions import discover


def test_a_missing_path_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="session log not found"):
        discover([tmp_path / "nope"])


def test_a_file_named_twice_or_with_its_folder_is_one_session(sessions_dir: Path) -> None:
    """Regression: `assay traces a.jsonl a.jsonl DIR` read a.jsonl three times: three sessions
    and three times its questions in the report, and its cases three times in an export."""
    short = next(sessions_dir.rglob("short.jsonl"))
    folder = short.parent
    found = discover([short, short, folder, Path(str(folder) + "/../" + folder.name)])
    assert found == [short, *(p for p in discover([folder]) if p != short)]
    assert len(found) == len(discover([folder]))


def test_a_session_path_that_is_a_fifo_is_refused_as_such_not_reported_missing(
        tmp_path: Path) -> None:
    """Regression: `assay traces PIPE` said "no such file or directory" of a FIFO that
    exists; and a name too long for the file system raised OSError (an internal error)."""
    fifo = tmp_path / "live.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="not a regular file"):
        discover([fifo])
    with pytest.raises(UserError, match="cannot open session log"):
        discover([tmp_path / ("x" * 300)])
