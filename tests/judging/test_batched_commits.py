import time

import pytest

from assay.judging import batched_commits
from assay.judging.batched_commits import BatchedCommits


def test_a_full_batch_is_committed_at_once_and_the_rest_on_flush() -> None:
    committed: list[list[int]] = []
    batches = BatchedCommits(committed.append, size=2)
    assert [batches.add(i) for i in range(3)] == [False, True, False]
    batches.flush()
    assert committed == [[0, 1], [2]]


def test_a_batch_is_committed_once_its_time_is_due(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batched_commits, "FLUSH_SECONDS", 0.0)
    committed: list[list[str]] = []
    batches = BatchedCommits(committed.append, size=100)
    time.sleep(0.001)
    assert batches.add("a")
    assert committed == [["a"]]


def test_flushing_nothing_commits_nothing() -> None:
    committed: list[list[int]] = []
    BatchedCommits(committed.append, size=2).flush()
    assert committed == []


def test_a_failed_commit_is_tried_again_on_leaving() -> None:
    attempts: list[list[int]] = []

    def commit(batch: list[int]) -> None:
        attempts.append(batch)
        if len(attempts) == 1:
            raise RuntimeError("store busy")

    batches = BatchedCommits(commit, size=1)
    with pytest.raises(RuntimeError):
        batches.add(7)
    batches.flush()
    assert attempts == [[7], [7]]
