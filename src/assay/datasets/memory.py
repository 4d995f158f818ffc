"""A dataset held in memory: the records (dicts or Cases) a program hands to `assay.evaluate`.

It is a `Dataset` in every way the runner sees (the same layouts, checks,
sampling and tags), read from a list instead of a file. Its hash covers the
canonical JSON of the records, so resuming and comparing runs by dataset
hash work as they do for files. Problems name the record by its index:
`data[3] [input]: missing key 'input'`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from assay.case import Case
from assay.datasets.dataset import Dataset, Scan
from assay.datasets.files import Record
from assay.errors import Problem, ProblemList, UserError

MEMORY_PATH = Path("<memory>")
"""What a run of in-memory data records as its dataset path."""


@dataclass
class MemoryDataset(Dataset):
    MAPPING_HINT: ClassVar[str] = ("name it 'input' in each record (the answer 'expected'), "
                                   "or give a dataset file as {'path': ..., 'fields': "
                                   "{'input': 'prompt', 'expected': 'answer'}}")
    """Records in memory have no `dataset.fields`: their keys are renamed where they are
    built, or a file is mapped."""

    path: Path = MEMORY_PATH
    records: list[Any] = field(default_factory=list)

    def scan(self) -> Scan:
        """Check every record; raise `UserError` naming each bad record by its index."""
        try:
            return super().scan()
        except UserError as exc:
            raise UserError("invalid data", [_by_index(p) for p in exc.problems]) from None

    def _require_source(self) -> None:
        """Records in memory are always there."""

    def _sha256(self) -> str:
        return records_sha256(self.records)

    def _records(self, problems: ProblemList) -> Iterator[Record]:
        # The index stands in for the line number, so problems can name the record.
        yield from enumerate(self.records)


def memory_dataset(data: Iterable[Any], *, sample: int | None = None,
                   seed: int = 0) -> MemoryDataset:
    """A dataset over `data` (dicts in any layout a dataset file may use, or `Case`s)."""
    if isinstance(data, str | bytes | dict):
        raise UserError("data must be a list of records (dicts or Cases) or a dataset path, "
                        f"not a {type(data).__name__}")
    if hasattr(data, "columns"):  # iterated, a DataFrame gives its column names
        raise UserError(f"data is a table ({type(data).__name__}), whose iteration gives its "
                        "columns, not its rows: pass its rows as dicts, e.g. "
                        "df.to_dict('records') (pandas) or df.to_dicts() (polars)")
    records = [_case_record(item) if isinstance(item, Case) else item for item in data]
    return MemoryDataset(records=records, sample=sample, seed=seed)


def _case_record(case: Case) -> dict[str, Any]:
    """A Case as the record a dataset file would hold (traits under the key the layout reads)."""
    record = case.to_dict()
    if "expected_traits" in record:
        record["expected_response_traits"] = record.pop("expected_traits")
    return record


def records_sha256(records: list[Any]) -> str:
    """The SHA-256 of the records' canonical JSON: equal data, equal hash, whatever its key order."""
    text = json.dumps(records, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def _by_index(problem: Problem) -> Problem:
    if problem.line is None:
        return Problem(problem.message, "data", None, problem.field)
    message = problem.message.replace(" on line ", " at index ")  # duplicate ids
    return Problem(message, f"data[{problem.line}]", None, problem.field)
