"""Records of any layout read into named fields: what label and verdict files are made of.

A file of human labels, or of verdicts another tool recorded, is read the
way a dataset is: JSONL, a JSON array, YAML or CSV, by the same readers,
with `fields:` naming where each value sits (a key or a dotted path such
as `annotation.verdict` or `judgments.0.winner`). Every record that lacks a
required field is a problem naming the file, the line and the key, and
all problems are reported together.

    rows = read_mapped(Path("labels.csv"), {"id": "item", "label": "gold"},
                       required=("id", "label"), what="labels")
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.datasets.dataset import Dataset
from assay.datasets.field_paths import missing_field
from assay.datasets.files import READERS
from assay.datasets.record_paths import lookup
from assay.errors import ProblemList, UserError
from assay.input_files import require_regular_file


@dataclass(frozen=True, slots=True)
class MappedRecord:
    """One record's values under the field names asked for (absent fields left out)."""

    line: int
    values: dict[str, Any]

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)


def read_mapped(path: Path, fields: Mapping[str, str], *, required: Sequence[str],
                names: Sequence[str] = (), format: str = "auto",
                what: str = "records") -> list[MappedRecord]:
    """Every record of `path` as its named fields; raises `UserError` listing each problem.

    A field not in `fields` is read from the key of its own name. `names`
    are the optional fields worth reading that way; `required` must be
    present in every record.
    """
    dataset = Dataset(path=path, format=format)
    if dataset.file_format == "parquet":
        raise UserError(f"{what} file {path}: read JSONL, JSON, YAML or CSV, not Parquet")
    require_regular_file(path, f"{what} file")
    mapping = {name: fields.get(name, name) for name in (*required, *names)}
    mapping.update(fields)
    problems = ProblemList()
    out: list[MappedRecord] = []
    first: tuple[int, dict[str, Any]] | None = None
    found: set[str] = set()
    id_key = mapping.get("id", "id")  # a YAML id is read as written: `007`, not 7
    for line, record in READERS[dataset.file_format](path, problems, id_key):
        if not isinstance(record, dict):
            problems.add("each record must be an object", file=str(path), line=line)
            continue
        first = first or (line, record)
        looked = {name: lookup(record, key) for name, key in mapping.items()}
        found.update(name for name, value in looked.items() if value is not None)
        values = {name: value for name, value in looked.items()
                  if value is not None and value != ""}
        missing = [name for name in required if name not in values]
        for name in missing:
            problems.add(missing_field(record, mapping[name], name), file=str(path), line=line,
                         field=mapping[name])
        if not missing:
            out.append(MappedRecord(line, values))
    if not out and not problems:
        problems.add(f"the {what} file has no records", file=str(path))
    if first is not None:
        _mapped_to_nothing(fields, required, found, first, str(path), problems)
    problems.raise_if_any(f"invalid {what} file {path}")
    return out


def _mapped_to_nothing(fields: Mapping[str, str], required: Sequence[str], found: set[str],
                       first: tuple[int, dict[str, Any]], file: str,
                       problems: ProblemList) -> None:
    """An optional field `fields:` maps to a key or path no record has is a typo
    (`condition: item.conditon`), refused: read as absent, it would silently join the labels
    of two answers into one item."""
    line, record = first
    for name, key in fields.items():
        if name not in required and name not in found:
            problems.add(f"in no record: {missing_field(record, key, name)}",
                         file=file, line=line, field=key)
