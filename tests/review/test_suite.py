"""The end of a suite: its summary written to suite.json, and read back by a resume."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.knowledge_packs.all_packs import SuiteEntry
from assay.review.suite import runs_summarised, write_suite
from assay.store import Store
from tests.knowledge_packs.test_all_packs import judged


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """Where a suite's JUnit would read its trials from (no test here asks for JUnit)."""
    opened = Store(str(tmp_path / "assay.db"))
    yield opened
    opened.close()


def test_a_summary_of_every_run_reads_back_as_the_runs_it_summarises(
        tmp_path: Path, store: Store) -> None:
    write_suite(store, [judged("go", 8.0, 9.0, 10), judged("rust", 6.0, 7.0, 30)], [],
                sample=None, output=tmp_path)
    assert runs_summarised(tmp_path / "suite.json") == {"run-go", "run-rust"}


def test_a_summary_of_a_suite_cut_short_reads_back_as_not_every_run(
        tmp_path: Path, store: Store) -> None:
    stopped = SuiteEntry(Path("rust.yaml"), 130, error="interrupted by the user")
    write_suite(store, [judged("go", 8.0, 9.0, 10), stopped], [], sample=None, output=tmp_path)
    assert runs_summarised(tmp_path / "suite.json") is None


@pytest.mark.parametrize("text", [None, "not json", "[]", '{"per_pack": {}}',
                                  '{"per_pack": {"go": {}}, "failed": []}'])
def test_a_missing_or_foreign_summary_reads_back_as_none(tmp_path: Path,
                                                         text: str | None) -> None:
    if text is not None:
        (tmp_path / "suite.json").write_text(text)
    assert runs_summarised(tmp_path / "suite.json") is None
