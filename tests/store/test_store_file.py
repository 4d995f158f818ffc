"""A SQLite store deleted or replaced while a run writes to it stops the run, saying so: the
run used to end `completed`, exit 0, with every trial in a file that was gone."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.case import Case
from assay.errors import StoreGone
from assay.output import Output
from assay.store import Store
from assay.trial import TrialResult
from tests.python_project import write_python_project


def trials(*ids: str) -> list[TrialResult]:
    return [TrialResult(Case(id=i, input="q"), "a", 0, Output(text="x")) for i in ids]


@pytest.mark.parametrize("how", ["deleted", "replaced by another file"])
def test_a_batch_written_after_the_file_was_deleted_or_replaced_is_refused(
        tmp_path: Path, how: str) -> None:
    path = tmp_path / "assay.db"
    store = Store(str(path))
    store.create_run(id="r1", experiment="e")
    store.write_trials("r1", trials("c1"))
    shutil.copy(path, tmp_path / "copy.db")
    for name in ("assay.db", "assay.db-wal", "assay.db-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    if how != "deleted":
        (tmp_path / "copy.db").rename(path)
    with pytest.raises(StoreGone, match=f"the store {path} was {how} while this run wrote"):
        store.write_trials("r1", trials("c2"))
    store.close()


def test_a_store_left_in_place_takes_every_batch(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="r1", experiment="e")
    for case in ("c1", "c2", "c3"):
        store.write_trials("r1", trials(case))
    assert store.count_trials("r1")[0] == 3
    store.close()


AGENT = """
import os

def answer(case):
    if case.id == "c5":  # a clean-up removes the store while the run goes on
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(os.environ["ASSAY_STORE"] + suffix):
                os.remove(os.environ["ASSAY_STORE"] + suffix)
    return case.expected
"""


def test_a_run_whose_store_is_deleted_stops_with_exit_3_and_no_resume_command(
        tmp_path: Path) -> None:
    env = write_python_project(tmp_path, AGENT, name="gone", cases=20,
                               run="{concurrency: 1, batch_size: 1}")
    result = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml",
                             "--no-progress"], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 3, result.stderr
    assert result.stderr.strip() == (
        f"error: the store {tmp_path / 'assay.db'} was deleted while this run wrote to it: "
        "what the run stored went with the old file, so it stops here (run it again to "
        "store its trials)")
