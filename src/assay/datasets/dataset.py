"""Datasets: golden Cases streamed from JSONL, JSON, YAML or CSV files.

`scan()` checks every record (collecting every problem with its line),
hashes the file, picks the sample, and counts. Iterating then gives the
Cases: those the scan made, kept when the file is no larger than
`KEPT_BYTES` (up to a few hundred thousand short cases), or a JSON or
YAML file of any size (each read holds it whole), and let go once they
have all been given out, so the file is not read and checked again; a
larger JSONL, CSV or Parquet file is read again, a case at a time, so it
never sits in memory whole.

Known layouts load without any mapping: assay's own (`input`, `expected`,
...), the agent-suite cases (`expected_response_traits`), Knowledge Packs
questions (`question`, `ground_truth`) and k-eval's (`question`, `answer`,
no id: the record's index is its id). Anything else maps its keys with
`fields: {input: prompt, expected: response}`.
"""

from __future__ import annotations

import hashlib
import heapq
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from assay.case import CASE_FIELDS, Case
from assay.datasets.case_fields import Fields, to_case
from assay.datasets.files import READERS, Record, Row
from assay.datasets.refusals import (
    changed_while_read,
    duplicate_id,
    ids_alike,
    not_jsonl,
)
from assay.errors import Problem, ProblemList
from assay.input_files import require_regular_file
from assay.wording import name_text

# Layouts we recognise from a record's keys: name -> (required keys, Case field -> key).
LAYOUTS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "knowledge-packs": (("question", "ground_truth"),
                        {"id": "id", "input": "question", "expected": "ground_truth",
                         "difficulty": "difficulty"}),
    "k-eval": (("question", "answer"), {"input": "question", "expected": "answer"}),
    "assay": (("input",), {name: name for name in CASE_FIELDS}),
}

READ_WHOLE = frozenset({"json", "yaml"})
"""Formats read whole however they are read: their scanned cases are kept at any size."""

KEPT_BYTES = 16 * 2**20
"""The largest dataset file whose scanned cases are kept for iterating (in memory, cases
take some four times their size on disk)."""

SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".yaml": "yaml",
            ".yml": "yaml", ".csv": "csv", ".tsv": "csv", ".parquet": "parquet"}
"""The format of a dataset file by its suffix; any other is read as JSONL."""



@dataclass
class Scan:
    """What a full check of the file found."""

    layout: str
    mapping: dict[str, str]
    count: int
    selected: set[str] | None
    sha256: str
    notes: list[Problem] = field(default_factory=list)
    """What reading changed without refusing the file (a lone surrogate replaced): warnings."""

    def warnings(self, limit: int = 20) -> list[str]:
        """The notes as warning lines, at most `limit` of them and a count of the rest."""
        lines = [str(note) for note in self.notes[:limit]]
        if len(self.notes) > limit:
            lines.append(f"... and {len(self.notes) - limit} more changes to the dataset's text")
        return lines


@dataclass
class Dataset:
    MAPPING_HINT: ClassVar[str] = ("map it with dataset.fields, e.g. "
                                   "{input: prompt, expected: answer}")
    """What to do when no key of a record is known to hold the input."""

    path: Path
    format: str = "auto"
    fields: dict[str, str] = field(default_factory=dict)
    sample: int | None = None
    seed: int = 0
    tags: list[str] = field(default_factory=list)
    _scan: Scan | None = None
    _kept: list[Case] | None = None
    """The cases of the scan, in order, until an iteration has given them all out."""
    _scanned_stamp: tuple[int, int, int] | None = None
    """The file's `_stamp()` when the scan read it: a later read of another file is refused."""

    @property
    def file_format(self) -> str:
        if self.format != "auto":
            return self.format
        return SUFFIXES.get(self.path.suffix.lower(), "jsonl")

    def _read_as_jsonl_by_default(self) -> bool:
        """Whether the file is read as JSONL only because its suffix is not a known one."""
        return self.format == "auto" and self.path.suffix.lower() not in SUFFIXES

    def scan(self) -> Scan:
        """Check every record; raise `UserError` listing all problems (file, line, field)."""
        if self._scan is not None:
            return self._scan
        self._require_source()
        stamp = self._stamp()
        problems = ProblemList()
        file = str(self.path)
        layout, mapping = "", dict(self.fields)
        seen: dict[str, int] = {}
        """Each id's line (or row, from 0), or `~line` when the record gave no id and its
        index stands in: one int per id, not a (line, given) pair. The pairs, one per case
        alive through the scan, made the trials of a 100,000-case run some 10% slower."""
        padded: dict[str, tuple[str, int]] = {}
        """Ids with spaces at an end, by the id without them: (the id, its line)."""
        heap: list[tuple[int, str]] = []  # (-rank, id) of the current sample
        kept: list[Case] | None = [] if self._small() else None
        count = 0
        parsed = False
        for index, (line, record) in enumerate(self._records(problems)):
            parsed = True
            if not layout:
                layout, mapping = self._layout_for(record, line, problems)
                if not layout:
                    break
                fields = Fields.of(layout, mapping)
            read = to_case(record, index, line, fields, mapping, file, problems)
            if read is None:
                continue
            case, id_given = read
            first = seen.get(case.id)
            if first is not None:
                problems.add(duplicate_id(case.id, first if first >= 0 else ~first, first >= 0,
                                          id_given), file=file, line=line, field="id")
                continue
            twin = _twin_but_for_spaces(case.id, line, seen, padded)
            if twin is not None:
                problems.add(ids_alike(case.id, *twin, id_given), file=file, line=line,
                             field="id")
                continue
            seen[case.id] = line if id_given else ~line
            if self.tags and not set(self.tags) & set(case.tags):
                continue
            count += 1
            if kept is not None:
                kept.append(case)
            if self.sample:
                rank = _rank(self.seed, case.id)
                if len(heap) < self.sample:
                    heapq.heappush(heap, (-rank, case.id))
                elif rank < -heap[0][0]:
                    heapq.heapreplace(heap, (-rank, case.id))
        if not layout and not problems:
            problems.add("the dataset has no records", file=file)
        if not parsed and self._read_as_jsonl_by_default():
            problems = not_jsonl(problems, self.path)
        problems.raise_if_any(f"invalid dataset {self.path}")
        selected = {case_id for _, case_id in heap} if self.sample else None
        if kept is not None and selected is not None:
            kept = [case for case in kept if case.id in selected]
        sha256 = self._sha256()
        if self._stamp() != stamp:
            raise changed_while_read(self.path)
        self._kept = kept
        self._scanned_stamp = stamp
        self._scan = Scan(layout, mapping, len(selected) if selected is not None else count,
                          selected, sha256, list(problems.notes))
        return self._scan

    def __iter__(self) -> Iterator[Case]:
        scan = self.scan()
        kept = self._kept
        if kept is not None:
            yield from kept
            self._kept = None  # all given out (a first case only, to check templates, keeps them)
            return
        problems = ProblemList()
        fields = Fields.of(scan.layout, scan.mapping)
        for index, (line, record) in enumerate(self._records(problems)):
            read = to_case(record, index, line, fields, scan.mapping, str(self.path),
                           problems)
            if read is None:
                continue
            case = read[0]
            if self.tags and not set(self.tags) & set(case.tags):
                continue
            if scan.selected is None or case.id in scan.selected:
                self._require_unchanged()
                yield case
        problems.raise_if_any(f"dataset {self.path} changed while it was read")
        self._require_unchanged()  # cut short: fewer cases than were checked

    def __len__(self) -> int:
        return self.scan().count

    def peek(self) -> Iterator[Case]:
        """The cases, for a check before the run's own pass: the cases the scan kept are
        given without being given up, so that pass does not read the file again."""
        self.scan()
        return iter(self._kept) if self._kept is not None else iter(self)

    # -- reading ----------------------------------------------------------------

    def _require_source(self) -> None:
        require_regular_file(self.path, "dataset")

    def _sha256(self) -> str:
        return _sha256(self.path)

    def _stamp(self) -> tuple[int, int, int] | None:
        """The file's size, modification time and inode, which writing it changes; None
        for a source that is not a file."""
        try:
            status = os.stat(self.path)
        except OSError:
            return None
        return status.st_size, status.st_mtime_ns, status.st_ino

    def _require_unchanged(self) -> None:
        """Refuse to go on reading a file that is no longer the one the scan checked and
        hashed: its cases would run under the hash of another file."""
        if self._stamp() != self._scanned_stamp:
            raise changed_while_read(self.path)

    def _small(self) -> bool:
        """Whether the scan keeps its cases: a file of `KEPT_BYTES` at most, and a JSON or
        YAML file of any size, which every read holds whole (a second read would parse it
        all again, some 20 s for 200,000 YAML cases, to save no memory)."""
        if self.file_format in READ_WHOLE:
            return True
        try:
            return self.path.stat().st_size <= KEPT_BYTES
        except OSError:
            return False

    def _records(self, problems: ProblemList) -> Iterator[Record]:
        yield from READERS[self.file_format](self.path, problems, self.fields.get("id", "id"))

    def _layout_for(self, record: Any, line: int, problems: ProblemList
                    ) -> tuple[str, dict[str, str]]:
        if not isinstance(record, dict):
            problems.add("each record must be an object", file=str(self.path), line=line)
            return "", {}
        keys = record.columns if isinstance(record, Row) else record
        if self.fields:
            # Every Case field under its own name, then the layout the keys reveal, then
            # the user's mapping: mapping `input` must not lose `expected_tool_calls`.
            detected = next((dict(m) for _name, (need, m) in LAYOUTS.items()
                             if all(k in keys for k in need)), {})
            return "mapped", {**LAYOUTS["assay"][1], **detected, **self.fields}
        for name, (required, mapping) in LAYOUTS.items():
            if all(key in keys for key in required):
                return name, dict(mapping)
        named = ", ".join(name_text(key) or '""' for key in sorted(keys)) or "none"
        problems.add(f"cannot tell which key holds the input (keys: {named}); "
                     f"{self.MAPPING_HINT}",
                     file=str(self.path), line=line, field="input")
        return "", {}


def _twin_but_for_spaces(case_id: str, line: int, seen: dict[str, int],
                         padded: dict[str, tuple[str, int]]) -> tuple[str, int] | None:
    """An earlier id (and its line) that differs from `case_id` only by spaces at its ends,
    `case_id` noted in `padded` when it has such spaces; or None."""
    bare = case_id.strip()
    if bare == case_id:
        return padded.get(case_id)
    if bare in seen:
        first = seen[bare]
        return bare, first if first >= 0 else ~first
    twin = padded.get(bare)
    padded.setdefault(bare, (case_id, line))
    return twin


def _rank(seed: int, case_id: str) -> int:
    """A pseudo-random rank from the seed and the id alone: the sample does not depend on
    the file's order, and as the file grows a sampled case leaves it only for a new case
    that ranks before it."""
    digest = hashlib.blake2b(f"{seed}:{case_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def open_dataset(path: Path, *, format: str = "auto", fields: dict[str, str] | None = None,
                 sample: int | None = None, seed: int = 0,
                 tags: list[str] | None = None) -> Dataset:
    """A Dataset over `path`; nothing is read until `scan()` or iteration."""
    dataset = Dataset(path=path, format=format, fields=dict(fields or {}), sample=sample,
                      seed=seed, tags=list(tags or []))
    if dataset.file_format == "parquet":
        from assay.datasets.parquet import ParquetDataset  # pyarrow only when asked for

        return ParquetDataset(path=path, fields=dataset.fields, sample=sample, seed=seed,
                              tags=dataset.tags)
    return dataset
