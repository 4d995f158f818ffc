"""Parquet datasets, streamed a record batch at a time (the `parquet` extra: pyarrow).

A large file never sits in memory whole: rows are read in batches of
`BATCH_ROWS` and turned into records one at a time. A row's problems are
located by its row number (0-based, as pandas and Hugging Face count):
`cases.parquet[row 41] [input]: missing key 'input'`. Values Arrow holds
that JSON does not (dates, decimals, bytes) become text or numbers, so a
case's metadata stores as it reads.
"""

from __future__ import annotations

import base64
import datetime
import decimal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.datasets.dataset import Dataset, Scan
from assay.datasets.files import Record
from assay.errors import Problem, ProblemList, UserError

BATCH_ROWS = 1024
"""Rows read from the file at a time."""

MISSING_EXTRA = "reading Parquet needs pyarrow: pip install 'assay-eval[parquet]'"


def parquet_records(path: Path, problems: ProblemList) -> Iterator[Record]:
    """Each row as a record, numbered from 0, read in record batches."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise UserError(MISSING_EXTRA) from None
    try:
        handle = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        problems.add(f"not a readable Parquet file ({exc})", file=str(path))
        return
    with handle:
        row = 0
        for batch in handle.iter_batches(batch_size=BATCH_ROWS):
            for record in batch.to_pylist():
                yield row, {key: plain(value) for key, value in record.items()}
                row += 1


def plain(value: Any) -> Any:
    """A JSON-ready value for what Arrow hands back."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return base64.b64encode(value).decode("ascii")
    return value


@dataclass
class RowDataset(Dataset):
    """A dataset whose records are rows, not lines: its problems name the row."""

    def scan(self) -> Scan:
        try:
            return super().scan()
        except UserError as exc:
            if not exc.problems:
                raise
            raise UserError(str(exc.args[0]), [self._by_row(p) for p in exc.problems]) from None

    def _small(self) -> bool:
        """Never kept: a compressed file's size says little of how much its cases take."""
        return False

    def _by_row(self, problem: Problem) -> Problem:
        if problem.line is None:
            return problem
        message = problem.message.replace(" on line ", " at row ")  # duplicate ids
        return Problem(message, f"{self.label}[row {problem.line}]", None, problem.field)

    @property
    def label(self) -> str:
        return str(self.path)


@dataclass
class ParquetDataset(RowDataset):
    format: str = "parquet"

    def _records(self, problems: ProblemList) -> Iterator[Record]:
        yield from parquet_records(self.path, problems)
