"""Reading a dataset file's records, each with its line number, in four formats.

Every reader streams what it can (JSONL line by line) and reports what is
wrong with a record as a located problem instead of raising, so that a
dataset's problems are all listed at once.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from assay.datasets.refusals import JSON_ARRAY_AS_JSONL
from assay.datasets.written_ids import AS_WRITTEN, keep_written_id, keep_written_line_id
from assay.errors import ProblemList
from assay.input_files import UTF16_TEXT, NotUtf8Text, is_utf16, utf8_text
from assay.json_line import (
    BadJsonLine,
    beyond_limits,
    read_json_line,
    where_beyond_limits,
)
from assay.valid_text import valid_record
from assay.wording import kind_of

Record = tuple[int, Any]
"""(line number, parsed record)."""


def jsonl_records(path: Path, problems: ProblemList, id_key: str = "id") -> Iterator[Record]:
    """Each JSON line's record, its `id_key` read as written (see `written_ids`)."""
    started = False  # a line with a record on it has been read
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a UTF-8 byte order mark
            if number == 1 and is_utf16(raw):
                problems.add(UTF16_TEXT, file=str(path), line=1)
                return
            if not raw.strip():
                continue
            if not started and raw.lstrip().startswith(b"["):
                problems.add(JSON_ARRAY_AS_JSONL, file=str(path), line=number)
                return
            started = True
            record = _json_line(raw, path, number, problems)
            if record is _REFUSED:
                continue
            keep_written_line_id(record, id_key, raw)
            record = _storable(record, problems, path, number)
            if record is not _REFUSED:
                yield number, record


def _json_line(raw: bytes, path: Path, number: int, problems: ProblemList) -> Any:
    """The record on a JSONL line, or `_REFUSED` with its problem added."""
    try:
        return read_json_line(raw)
    except BadJsonLine as exc:
        problems.add(str(exc), file=str(path), line=number)
    return _REFUSED


def _read_text(path: Path, problems: ProblemList) -> str | None:
    """The whole file as text; bytes that are not UTF-8 are a problem with their line."""
    try:
        return utf8_text(path.read_bytes())
    except NotUtf8Text as exc:
        if exc.byte is None:
            problems.add(UTF16_TEXT, file=str(path), line=1)
        else:
            problems.add(f"not UTF-8 text (byte 0x{exc.byte:02x})", file=str(path),
                         line=exc.line)
        return None


_WRAPPER_KEYS = ("cases", "questions", "data")


def json_records(path: Path, problems: ProblemList, id_key: str = "id") -> Iterator[Record]:
    """Each item of a JSON array (or of its `cases:`, ...), its `id_key` read as written (see
    `written_ids`)."""
    text = _read_text(path, problems)
    if text is None:
        return
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.add(f"invalid JSON: {exc.msg} (column {exc.colno})", file=str(path),
                     line=exc.lineno)
        return
    except (RecursionError, ValueError) as exc:
        problems.add(f"invalid JSON: {beyond_limits(exc)}", file=str(path),
                     line=where_beyond_limits(text, exc))
        return
    position = _skip(text, 0) + 1  # just inside the top-level array
    if isinstance(data, dict):
        key = next((k for k in _WRAPPER_KEYS if isinstance(data.get(k), list)), None)
        if key is not None:
            data = data[key]
            position = _value_start(text, key) + 1
    if not isinstance(data, list):
        *first, last = [f"'{key}'" for key in _WRAPPER_KEYS]
        wrappers = f"{', '.join(first)} or {last}"
        problems.add(f"a JSON dataset is an array of cases, or an object holding one under "
                     f"{wrappers}; this file holds {_what_json_holds(data)}",
                     file=str(path), line=1)
        return
    # Walk the array again by position to know each item's line, counting the
    # newlines since the item before: from the top each time is quadratic. The walk
    # reads each item as written, which gives its id's text too.
    line, counted = 1, 0
    for item in data:
        position = _skip(text, position)
        line += text.count("\n", counted, position)
        counted = position
        written, end = AS_WRITTEN.raw_decode(text, position)
        keep_written_id(item, id_key, written)
        position = _skip(text, end)
        item = _storable(item, problems, path, line)
        if item is not _REFUSED:
            yield line, item


def _what_json_holds(data: Any) -> str:
    """What a JSON document that is not a dataset holds, said for a person."""
    if isinstance(data, dict):
        keys = ", ".join(f"'{key}'" for key in list(data)[:8])
        more = f" and {len(data) - 8} more" if len(data) > 8 else ""
        return f"an object with the keys {keys}{more}" if data else "an empty object"
    return kind_of(data)


def _value_start(text: str, key: str) -> int:
    """Where the value of top-level `key` starts in a JSON object's text."""
    position = _skip(text, 0) + 1
    while True:
        position = _skip(text, position)
        name, position = AS_WRITTEN.raw_decode(text, position)
        position = _skip(text, position)
        if text[position] == ":":
            position = _skip(text, position + 1)
        if name == key:
            return position
        _value, position = AS_WRITTEN.raw_decode(text, position)


def _skip(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n,":
        position += 1
    return position


def yaml_records(path: Path, problems: ProblemList, id_key: str = "id") -> Iterator[Record]:
    """Each case of a YAML list (or of its `cases:`), its `id_key` read as written."""
    import yaml

    from assay.datasets.yaml_nodes import MAX_ALIASED_VALUES, read_cases
    from assay.yaml_core import yaml_problem

    text = _read_text(path, problems)
    if text is None:
        return
    try:
        cases = read_cases(text, id_key)
    except yaml.YAMLError as exc:
        what, line = yaml_problem(exc, text)
        problems.add(f"invalid YAML: {what}", file=str(path), line=line)
        return
    except (RecursionError, ValueError) as exc:
        problems.add(f"invalid YAML: {beyond_limits(exc)}", file=str(path))
        return
    if cases.items is None:
        problems.add("a YAML dataset is a list of cases (or a mapping with `cases:`)",
                     file=str(path), line=1)
        return
    if cases.bomb is not None:
        problems.add(f"through YAML aliases (*name) the cases up to here hold more than "
                     f"{MAX_ALIASED_VALUES:,} values beyond those the file writes out (an "
                     "alias bomb?): write the values out, or repeat them less",
                     file=str(path), line=cases.lines[cases.bomb])
        return
    for item, line in zip(cases.items, cases.lines, strict=True):
        item = _storable(item, problems, path, line)
        if item is not _REFUSED:
            yield line, item


_JSON_COLUMNS = {"expected_tool_calls", "expected_traits", "expected_response_traits",
                 "metadata", "input", "reference", "tags", "expected"}


class Row(dict[str, Any]):
    """A CSV row: its cells that are not empty, and every column the header names. An
    empty cell is left out of the record, but its column still tells the layout: a first
    row with an empty input is a row missing its input, not a file with no input column."""

    columns: Sequence[str] = ()


SEPARATORS = ";\t|"
"""What a CSV file's cells may be separated by other than commas (Excel writes `;` where
a comma is the decimal mark; `.tsv` files use tabs)."""

SEPARATOR_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "'|'"}
"""How a row's problem names the file's separator: a semicolon file's row is not short of
a comma."""


def separator(header: str) -> str:
    """The cells' separator, told from the header line: a comma when it holds one, else the
    one of `SEPARATORS` it holds most of (a header of one column is read with commas)."""
    if "," in header:
        return ","
    counts = {mark: header.count(mark) for mark in SEPARATORS}
    best = max(counts, key=lambda mark: counts[mark])
    return best if counts[best] else ","


def csv_reader(text: str, handle: io.StringIO) -> csv.DictReader[str]:
    """A reader of `handle` in the file's own style, told from its header line: its
    separator, and whether a space follows each one (`id, input, expected`), which is then
    no part of a cell, so that `a, "b, c"` is two cells and ` input` the input column."""
    end = text.find("\n")  # a slice: partition would copy the whole rest of the file too
    header = text if end < 0 else text[:end]
    mark = separator(header)
    spaced = mark != "\t" and header.count(f"{mark} ") == header.count(mark) > 0
    # strict: a quote never closed is an error, not a field that swallows the file's rest
    return csv.DictReader(handle, strict=True, delimiter=mark, skipinitialspace=spaced)


def csv_records(path: Path, problems: ProblemList, id_key: str = "id") -> Iterator[Record]:
    """Each row under the header's names (`id_key`, as every cell, is text as written)."""
    text = _read_text(path, problems)
    if text is None:
        return
    csv.field_size_limit(1 << 30)  # long reference texts are ordinary in eval datasets
    body = text.lstrip("\r\n")  # blank lines before the header are no header
    skipped = text.count("\n", 0, len(text) - len(body))
    with io.StringIO(body, newline="") as handle:
        reader = csv_reader(body, handle)
        start = skipped + 2  # the line a record starts on (after the header)
        header_checked = False
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                message = ("a quoted field that starts here is never closed"
                           if "unexpected end of data" in str(exc) else f"invalid CSV: {exc}")
                problems.add(message, file=str(path), line=start)
                start = skipped + reader.line_num + 1
                continue
            if not header_checked:
                header_checked = True
                if _repeated_column(reader.fieldnames or [], path, skipped + 1, problems):
                    return
                columns = tuple(reader.fieldnames or ())
            header = len(reader.fieldnames or [])
            cells = _cell_count(row, header)
            if cells != header:  # a cell lost or shifted would be a wrong field, unseen
                problems.add(_wrong_width(cells, header, reader.reader.dialect.delimiter),
                             file=str(path), line=start)
                start = skipped + reader.line_num + 1
                continue
            record = Row()
            record.columns = columns
            for key, value in row.items():
                if key is None or value is None or value == "":
                    continue
                record[key] = _cell(key, value)
            yield start, record
            start = skipped + reader.line_num + 1


def _repeated_column(names: Sequence[str], path: Path, line: int,
                     problems: ProblemList) -> bool:
    """Whether the header names a column twice (a problem added): each row's second cell
    of that name would be read in place of its first, which would be lost unseen."""
    first: dict[str, int] = {}
    for number, name in enumerate(names, start=1):
        if name in first:
            problems.add(f"the header names the column '{name}' twice (columns {first[name]} "
                         f"and {number}): only one of them would be read; rename the other",
                         file=str(path), line=line, field=name)
            return True
        first[name] = number
    return False


def _cell_count(row: dict[str | Any, Any], header: int) -> int:
    """How many cells the line had: DictReader puts extra ones under None and fills
    missing ones with None."""
    if None in row:
        return header + len(row[None])
    return header - sum(1 for key, value in row.items() if key is not None and value is None)


def _wrong_width(cells: int, header: int, mark: str) -> str:
    name = SEPARATOR_NAMES.get(mark, f"'{mark}'")
    hint = (f"a value that holds a {name} must be quoted" if cells > header
            else f"an empty value still needs its {name}")
    return f"this row has {cells} cell{'s' * (cells != 1)} but the header has {header} ({hint})"


_REFUSED = object()


def _storable(record: Any, problems: ProblemList, path: Path, line: int) -> Any:
    """`valid_record(record)`, each field it changed noted (a warning of `assay validate`
    and of the run), or `_REFUSED` (a problem added) when it nests too deeply to be stored
    or compared."""
    if _plain(record):
        return record
    try:
        if not isinstance(record, dict):
            record, replaced = valid_record(record)
            _note(replaced, problems, path, line, None)
            return record
        out = {}
        for key, value in record.items():
            key, in_key = valid_record(key)
            out[key], in_value = valid_record(value)
            _note(in_key + in_value, problems, path, line, str(key))
        return out
    except RecursionError:
        problems.add("nested too deeply", file=str(path), line=line)
        return _REFUSED


_SCALARS = frozenset({int, float, bool, type(None)})


def _plain(record: Any) -> bool:
    """True for a record `valid_record` would return unchanged (nothing to note), known
    without its walk: an
    object of ASCII keys whose values are ASCII text, numbers, or lists of those (most
    datasets' records)."""
    if type(record) is not dict:
        return False
    for key, value in record.items():
        if type(key) is not str or not key.isascii():
            return False
        kind = type(value)
        if kind is str:
            if not value.isascii():
                return False
        elif kind is list:
            for item in value:
                if type(item) is str:
                    if not item.isascii():
                        return False
                elif type(item) not in _SCALARS:
                    return False
        elif kind not in _SCALARS:
            return False
    return True


def _note(replaced: int, problems: ProblemList, path: Path, line: int,
          field: str | None) -> None:
    if replaced:
        several = f"{replaced} lone surrogates" if replaced > 1 else "a lone surrogate"
        problems.note(f"{several} (half of a UTF-16 pair, as the escape \\ud800 writes it) "
                      "replaced by U+FFFD: no file or database can hold one",
                      file=str(path), line=line, field=field)


def _cell(key: str, value: str) -> Any:
    if key in _JSON_COLUMNS and value[:1] in "[{":
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError, ValueError):
            return value
    return value


def parquet_records(path: Path, problems: ProblemList, id_key: str = "id") -> Iterator[Record]:
    """Parquet rows, by record batch (see `assay.datasets.parquet`; pyarrow is optional);
    `id_key` is read as its column types it."""
    from assay.datasets.parquet import parquet_records as read

    yield from read(path, problems)


Reader = Callable[[Path, ProblemList, str], Iterator[Record]]
"""A format's reader: (the file, where problems go, the key of a record's id). Only YAML,
which types text as it reads it, needs the id key: `id: 007` is the case '007', not 7."""

READERS: dict[str, Reader] = {"jsonl": jsonl_records, "json": json_records, "yaml": yaml_records,
           "csv": csv_records, "parquet": parquet_records}
