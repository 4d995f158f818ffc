"""Parquet datasets: rows streamed by record batch, problems named by row and field."""

from __future__ import annotations

import datetime
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.datasets import open_dataset
from assay.datasets import parquet as parquet_module
from assay.errors import UserError


def write(path: Path, rows: list[dict], **options) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path, **options)
    return path


def test_rows_become_cases_in_order_with_the_layout_detected(tmp_path):
    rows = [{"question": f"q{i}", "answer": f"a{i}"} for i in range(2500)]
    dataset = open_dataset(write(tmp_path / "k.parquet", rows, row_group_size=1000))
    scan = dataset.scan()
    cases = list(dataset)
    assert (scan.layout, scan.count) == ("k-eval", 2500)
    assert [c.id for c in cases[:3]] == ["0", "1", "2"] and cases[-1].id == "2499"
    assert (cases[1234].input, cases[1234].expected) == ("q1234", "a1234")


def test_the_file_is_read_a_batch_at_a_time(tmp_path, monkeypatch):
    rows = [{"id": f"c{i}", "input": "q", "expected": "a"} for i in range(5000)]
    dataset = open_dataset(write(tmp_path / "big.parquet", rows, row_group_size=1000))
    dataset.scan()
    monkeypatch.setattr(parquet_module, "BATCH_ROWS", 100)
    pulled: list[int] = []
    original = pq.ParquetFile.iter_batches

    def counting(self, *args, **kwargs):
        for batch in original(self, *args, **kwargs):
            pulled.append(batch.num_rows)
            yield batch

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", counting)
    first = next(iter(dataset))
    assert first.id == "c0" and pulled == [100]


def test_a_rows_problems_name_the_row_and_the_field(tmp_path):
    path = write(tmp_path / "bad.parquet", [
        {"id": "a", "input": "q", "tags": ["x"]},
        {"id": "b", "input": None, "tags": ["y"]},
        {"id": "a", "input": "again", "tags": []},
    ])
    with pytest.raises(UserError) as caught:
        open_dataset(path).scan()
    lines = str(caught.value).splitlines()[1:]
    assert lines == [f"  {path}[row 1] [input]: 'input' is null",
                     f"  {path}[row 2] [id]: duplicate id 'a' (first at row 0)"]


def test_arrow_values_become_json_values(tmp_path):
    path = write(tmp_path / "typed.parquet", [{
        "input": "q", "tags": ["geo", "easy"],
        "metadata": {"asked": datetime.date(2025, 5, 1), "weight": 1.5},
        "blob": b"\xff\x00", "note": b"plain"}])
    case = next(iter(open_dataset(path)))
    assert case.tags == ["geo", "easy"]
    assert case.metadata == {"asked": "2025-05-01", "weight": 1.5, "blob": "/wA=",
                             "note": "plain"}


def test_the_hash_is_the_files(tmp_path):
    path = write(tmp_path / "h.parquet", [{"input": "q"}])
    first = open_dataset(path).scan().sha256
    write(path, [{"input": "changed"}])
    assert open_dataset(path).scan().sha256 != first


def test_a_file_that_is_not_parquet_is_a_located_problem(tmp_path):
    path = tmp_path / "fake.parquet"
    path.write_text('{"input": "q"}\n')
    with pytest.raises(UserError, match=r"fake.parquet: not a readable Parquet file"):
        open_dataset(path).scan()


def test_without_pyarrow_the_error_says_what_to_install(tmp_path, monkeypatch):
    path = write(tmp_path / "x.parquet", [{"input": "q"}])
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(UserError, match=r"pip install 'assay-eval\[parquet\]'"):
        open_dataset(path).scan()
