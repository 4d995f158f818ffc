"""People's labels read from a file: one or several raters per item, and the item itself.

Each record gives an item's id and a judgement (`label`). Several raters
come either as several records of one item (with a `rater` field, or
simply repeated ids) or as a list of values in one record. To judge the
items now, the record also holds what the judge needs to see: the input,
the expected answer and the output people labelled (or the two outputs of
a preference).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.calibration.values import (
    UnreadableValue,
    as_choice,
    as_label,
    as_pass,
    as_score,
    guess_kind,
)
from assay.case import Case
from assay.config.calibration import LabelsFile
from assay.datasets.mapped import MappedRecord, read_mapped
from assay.errors import ProblemList, UserError
from assay.wording import plural

ITEM_FIELDS = ("input", "expected", "output", "output_a", "output_b", "expected_traits",
               "reference", "condition", "epoch", "rater")
READERS: dict[str, Callable[[Any], Any]] = {
    "pass_fail": as_pass, "score": as_score, "label": as_label, "preference": as_choice}


def item_key(case_id: str, condition: Any = None, epoch: Any = None) -> str:
    """An item's key: its case id, with its condition (`case@condition`) and a later epoch
    (`case@condition#2`) when the labels give them, so one case's answers under two
    conditions are two items."""
    key = case_id if condition in (None, "") else f"{case_id}@{condition}"
    return key if epoch in (None, "", 0, "0") else f"{key}#{epoch}"


@dataclass
class LabelledItem:
    """One item people judged: their values, and the trial or answer they judged."""

    id: str
    """The item's key (see `item_key`)."""
    case_id: str = ""
    values: list[Any] = field(default_factory=list)
    raters: list[str] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)
    line: int = 0
    value_lines: list[int] = field(default_factory=list)
    """The line of the file each of `values` was read from (raters may be records apart)."""

    def case(self) -> Case:
        """The item as a case for a judge to grade."""
        traits = self.fields.get("expected_traits")
        if isinstance(traits, str):
            traits = [traits]
        return Case(id=self.case_id or self.id,
                    input=_text_or_messages(self.fields.get("input", "")),
                    expected=self.fields.get("expected"), expected_traits=traits,
                    reference=self.fields.get("reference"))

    @property
    def condition(self) -> str | None:
        value = self.fields.get("condition")
        return None if value is None else str(value)

    @property
    def epoch(self) -> int:
        try:
            return int(self.fields.get("epoch", 0))
        except (TypeError, ValueError):
            return 0


@dataclass
class HumanLabels:
    """Every labelled item, its values read as `kind`."""

    kind: str
    items: dict[str, LabelledItem]
    path: Path
    unlabelled: list[str] = field(default_factory=list)
    """Items in the file whose label is empty (null, `[]`, blank): left out, and said so."""
    label_field: str = "label"
    """Where the file holds a label (its `fields:` mapping of `label`), to name it."""

    @property
    def raters(self) -> int:
        return max((len(item.values) for item in self.items.values()), default=0)

    def values(self) -> dict[str, list[Any]]:
        return {item_id: list(item.values) for item_id, item in self.items.items()}


def read_labels(spec: LabelsFile, base_dir: Path, *, kind: str = "auto") -> HumanLabels:
    """The labels file as items; raises `UserError` naming every unreadable record."""
    path = (base_dir / spec.path).expanduser() if not Path(spec.path).is_absolute() \
        else Path(spec.path)
    records = read_mapped(path, spec.fields, required=("id", "label"), names=ITEM_FIELDS,
                          format=spec.format, what="labels")
    if kind == "auto":
        kind = guess_kind(v for record in records for v in _raw_values(record))
    reader = READERS[kind]
    problems = ProblemList()
    items: dict[str, LabelledItem] = {}
    label_key = spec.fields.get("label", "label")
    for record in records:
        case_id = str(record.get("id"))
        item_id = item_key(case_id, record.get("condition"), record.get("epoch"))
        item = items.setdefault(item_id, LabelledItem(item_id, case_id, line=record.line))
        for name in ITEM_FIELDS:
            if name in record.values and name != "rater":
                item.fields.setdefault(name, record.values[name])
        for value in _raw_values(record):
            try:
                item.values.append(reader(value))
                item.value_lines.append(record.line)
            except UnreadableValue as exc:
                problems.add(f"{exc} (the labels are read as {kind.replace('_', '/')})",
                             file=str(path), line=record.line, field=label_key)
        rater = record.get("rater")
        if rater is not None:
            if str(rater) in item.raters:
                problems.add(f"rater {rater!r} labels item {item_id!r} twice",
                             file=str(path), line=record.line, field=spec.fields.get("rater",
                                                                                    "rater"))
            item.raters.append(str(rater))
    problems.raise_if_any(f"invalid labels file {path}")
    unlabelled = [item_id for item_id, item in items.items() if not item.values]
    for item_id in unlabelled:
        del items[item_id]
    if not items:
        empty = f" ({plural(len(unlabelled), 'item')} with an empty label)" if unlabelled else ""
        raise UserError(f"labels file {path} has no labelled item{empty}")
    return HumanLabels(kind, items, path, unlabelled, label_key)


def _raw_values(record: MappedRecord) -> list[Any]:
    """The record's label values; a rater's empty one (null, blank) is no label, not a value."""
    value = record.get("label")
    values = list(value) if isinstance(value, list) else [value]
    return [v for v in values if not (v is None or isinstance(v, str) and not v.strip())]


def _text_or_messages(value: Any) -> Any:
    if isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
        return value
    return str(value)
