"""`results.json`: every trial and score of a run, plus its summary, schema-versioned.

The `summary` block has the shape of the Knowledge Packs all-packs output
(see `knowledge_packs.summary`); `stats` has every figure of the summary;
`gates`, `comparisons` and `previous_run` are the review's conclusions;
`exports` lists where the run was written in other formats (`assay export`),
and `link_exports` adds a later export to a file already written.
Trials are streamed into the file, so a 100k-trial run is never held in
memory to be written. A review that reads its trials once for everything
(summary, comparisons and files) gathers them in `TrialLines` first, since
the head above them is known only after the last one.
"""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from assay.knowledge_packs.summary import knowledge_packs_summary

if TYPE_CHECKING:
    from assay.records import ExportRecord, TrialRecord
    from assay.review.result import Review

SCHEMA_VERSION = 1
TRIALS_KEY = ',\n  "trials": ['
"""Where the head of the document ends: JSON strings hold no raw newline, so this is the key."""


def write_results_json(handle: IO[str], review: Review,
                       trials: Iterable[TrialRecord] | TrialLines) -> int:
    """Stream the document to `handle`; returns the number of trials written.

    `trials` are the stored trials, or `TrialLines` already fed with them (it is closed)."""
    head = {
        "schema_version": SCHEMA_VERSION,
        "run": review.run.header(),
        "summary": knowledge_packs_summary(review.summary),
        "stats": review.summary.to_dict(),
        "gates": [g.to_dict() for g in review.gates],
        "warnings": list(review.warnings),
        "comparisons": review.comparisons.to_dict(),
        "previous_run": None if review.previous is None else review.previous.to_dict(),
        "exports": [export.to_dict() for export in review.exports],
        "judges": review.judges.to_dict(),
    }
    from assay.reports.atomic import unmasked

    text = _json(head, indent=True)
    handle.write(text[:-2] + TRIALS_KEY)  # reopen the object to stream the trials
    stored = unmasked(handle)  # the trials were masked as they were stored
    if isinstance(trials, TrialLines):
        count = trials.copy_to(stored)
    else:
        count = 0
        for trial in trials:
            stored.write(_SEPARATOR if count else _FIRST)
            stored.write(trial_json(trial.to_dict()))
            count += 1
    handle.write("\n  ]\n}\n" if count else "]\n}\n")
    return count


_FIRST = "\n    "
_SEPARATOR = ",\n    "


class TrialLines:
    """The trials of `results.json`, written as they stream by to a temporary file (in
    `directory`, beside the file they will go into) and copied in after the head."""

    def __init__(self, directory: Path | None = None) -> None:
        self.count = 0
        self._file = tempfile.TemporaryFile(dir=directory)  # noqa: SIM115 - closed in copy_to

    def add(self, trial: TrialRecord) -> None:
        self._file.write((_SEPARATOR if self.count else _FIRST).encode())
        self._file.write(_json_bytes(trial.to_dict()))
        self.count += 1

    def copy_to(self, handle: IO[str]) -> int:
        """Append every line to `handle`, close the temporary file; returns how many."""
        self._file.seek(0)
        try:
            binary = getattr(handle, "buffer", None)
            if binary is not None:
                handle.flush()
                shutil.copyfileobj(self._file, binary, 1 << 20)
            else:
                text = io.TextIOWrapper(self._file, encoding="utf-8", newline="")
                shutil.copyfileobj(text, handle, 1 << 20)
        finally:
            self._file.close()
        return self.count

    def close(self) -> None:
        self._file.close()


def trial_json(record: dict[str, Any]) -> str:
    """One trial as one line of JSON (see `_json`)."""
    return _json(record)


ORJSON_OPTIONS = (orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
                  | orjson.OPT_PASSTHROUGH_DATACLASS)
"""How every JSON file assay writes encodes values orjson would refuse (via `default=str`)."""


def _json(value: Any, *, indent: bool = False) -> str:
    """`value` as `json.dumps(value, ensure_ascii=False, default=str)` writes it, by orjson:
    several times faster, which matters at 100k trials and for the score arrays of the
    summary. orjson refuses integers past 64 bits; those documents go through `json`."""
    try:
        return orjson.dumps(value, default=str,
                            option=ORJSON_OPTIONS | (orjson.OPT_INDENT_2 if indent else 0)).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value, ensure_ascii=False, default=str, indent=2 if indent else None)


def _json_bytes(value: Any) -> bytes:
    """`_json(value)` as UTF-8, a lone surrogate as its escape (as `atomic_writer` writes it)."""
    try:
        return orjson.dumps(value, default=str, option=ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        return _json(value).encode("utf-8", "backslashreplace")


def link_exports(path: Path, exports: list[ExportRecord]) -> None:
    """Set the `exports` block of the `results.json` at `path`, keeping the rest as it is
    (its gates were judged when the run ended); the trials are copied, never loaded whole.
    A file that is not one assay wrote (damaged, cut short) is a `ValueError` saying so."""
    from assay.reports.atomic import atomic_writer, unmasked

    with path.open(encoding="utf-8") as source:
        head_text = ""
        try:
            while TRIALS_KEY not in head_text:
                chunk = source.read(1 << 16)
                if not chunk:
                    raise ValueError("it is not a results.json assay wrote (no trials list)")
                head_text += chunk
            cut = head_text.index(TRIALS_KEY)
            head = json.loads(head_text[:cut] + "\n}")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"it is not a results.json assay wrote ({exc})") from None
        head["exports"] = [export.to_dict() for export in exports]
        with atomic_writer(path) as handle:
            handle.write(_json(head, indent=True)[:-2] + head_text[cut:])
            shutil.copyfileobj(source, unmasked(handle))  # masked when it was written
