"""Line up two sides' per-case results by case id, so paired statistics compare like with like.

A paired comparison is only honest over cases both sides answered. This module
takes per-case values keyed by case id (one value, or one per epoch), averages
epochs first, keeps the cases present and usable on both sides, and counts,
by id, every case it had to leave out so reports can say so.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from assay.errors import UserError

Value: TypeAlias = float | int | bool | None
"""One epoch's result for a case; None is a trial or scorer error, never a 0."""

PerCase: TypeAlias = Mapping[str, Value | Sequence[Value]]
"""case id -> a value, or the list of that case's per-epoch values."""

_DIGITS = re.compile(r"(\d+)")

@dataclass(frozen=True, slots=True)
class Exclusions:
    """The cases left out of a paired comparison, and why."""

    only_in_a: tuple[str, ...] = ()
    """Cases side B never ran: the two sides did not ask the same questions."""
    only_in_b: tuple[str, ...] = ()
    errored_in_a: tuple[str, ...] = ()
    """Cases with no usable value or verdict on side A: every epoch errored (the target
    or the scorer failed)."""
    errored_in_b: tuple[str, ...] = ()
    epoch_values_ignored: int = 0
    """Errored epochs dropped from per-case means of cases that were kept, whatever failed."""
    several_epochs: bool = False
    """Whether a case left out for its errors had more than one epoch: only then do the
    reasons say it errored on every epoch (a one-epoch run does not talk of epochs)."""

    @property
    def errored(self) -> tuple[str, ...]:
        """Cases left out because a side errored (on either side, each case once)."""
        return tuple(dict.fromkeys(self.errored_in_a + self.errored_in_b))

    @property
    def count(self) -> int:
        return len(self.only_in_a) + len(self.only_in_b) + len(self.errored)

    @property
    def newly_errored(self) -> tuple[str, ...]:
        """Cases that errored in B (every epoch) but not in A: the paired test cannot use
        them, so they would hide a regression unless named."""
        return tuple(cid for cid in self.errored_in_b if cid not in self.errored_in_a)

    def reasons(self, label_a: str, label_b: str) -> list[tuple[str, tuple[str, ...]]]:
        """Why cases were left out, each reason with its cases: errored first (named as
        errored, never as a case one side lacks), then cases one side never ran. A case
        that errored on both sides is named once, so the counts add up to `count`."""
        both = set(self.errored_in_a) & set(self.errored_in_b)
        every = " (every epoch)" if self.several_epochs else ""
        errored = ((f"errored in {label_a}{every}",
                    tuple(i for i in self.errored_in_a if i not in both)),
                   (f"errored in {label_b}{every}",
                    tuple(i for i in self.errored_in_b if i not in both)),
                   (f"errored in both {label_a} and {label_b}{every}",
                    tuple(i for i in self.errored_in_a if i in both)))
        parts = [(reason, ids) for reason, ids in errored if ids]
        parts += [(f"only in {label}", ids) for ids, label in ((self.only_in_a, label_a),
                                                               (self.only_in_b, label_b)) if ids]
        return parts

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "only_in_a": list(self.only_in_a),
            "only_in_b": list(self.only_in_b),
            "errored_in_a": list(self.errored_in_a),
            "errored_in_b": list(self.errored_in_b),
            "epoch_values_ignored": self.epoch_values_ignored,
        }


@dataclass(frozen=True, slots=True)
class PairedData:
    """Per-case means on both sides, aligned: item i of every column is case_ids[i]."""

    case_ids: tuple[str, ...]
    a: tuple[float, ...]
    b: tuple[float, ...]
    pass_a: tuple[float, ...] | None
    """Per-case pass fraction (0/1 with one epoch), or None when the scorer has no verdict."""
    pass_b: tuple[float, ...] | None
    excluded: Exclusions = field(default_factory=Exclusions)

    @property
    def n(self) -> int:
        return len(self.case_ids)


def pair_cases(a: PerCase, b: PerCase, *, passed_a: PerCase | None = None,
               passed_b: PerCase | None = None) -> PairedData:
    """Align A and B by case id, averaging epochs, keeping cases usable on both sides.

    Pass verdicts are optional, but must be given for both sides or neither.
    Case order follows A's insertion order, so results are reproducible.
    """
    if (passed_a is None) != (passed_b is None):
        raise UserError("pass/fail verdicts must be given for both sides or for neither")
    only_a = tuple(cid for cid in a if cid not in b)
    only_b = tuple(cid for cid in b if cid not in a)
    with_pass = passed_a is not None and passed_b is not None
    kept: list[str] = []
    columns: list[list[float]] = [[], [], [], []]
    errored: tuple[list[str], list[str]] = ([], [])
    ignored = 0
    several_epochs = False
    # One case at a time without building its sides as lists: a 250k-case run pairs a
    # million cases per scorer when `assay report` compares its conditions and its diff.
    # A plain finite float (one epoch's value) and a bool (one epoch's verdict) are taken as
    # `_case_mean` takes them without calling it.
    isfinite = math.isfinite
    for cid, raw_a in a.items():
        raw_b = b.get(cid, _MISSING)
        if raw_b is _MISSING:
            continue
        # 0.0 + v: as sum([v]) / 1 would give it (-0.0 reads 0.0)
        value_a, dropped_a = ((0.0 + raw_a, 0) if type(raw_a) is float and isfinite(raw_a)
                              else _case_mean(raw_a, cid))
        value_b, dropped_b = ((0.0 + raw_b, 0) if type(raw_b) is float and isfinite(raw_b)
                              else _case_mean(raw_b, cid))
        verdict_a: float | None = 0.0
        verdict_b: float | None = 0.0
        if passed_a is not None and passed_b is not None:
            pass_a, pass_b = passed_a.get(cid), passed_b.get(cid)
            verdict_a, verdict_dropped_a = ((1.0 if pass_a else 0.0, 0) if type(pass_a) is bool
                                            else _case_mean(pass_a, cid))
            verdict_b, verdict_dropped_b = ((1.0 if pass_b else 0.0, 0) if type(pass_b) is bool
                                            else _case_mean(pass_b, cid))
            # an errored epoch lacks its value and its verdict: count it once per side
            dropped_a = max(dropped_a, verdict_dropped_a)
            dropped_b = max(dropped_b, verdict_dropped_b)
        lost_a = value_a is None or verdict_a is None  # no value or no verdict
        lost_b = value_b is None or verdict_b is None
        if lost_a or lost_b:
            several_epochs = several_epochs or _several(raw_a) or _several(raw_b)
            if lost_a:
                errored[0].append(cid)
            if lost_b:
                errored[1].append(cid)
            continue
        kept.append(cid)
        ignored += dropped_a + dropped_b
        columns[0].append(float(value_a))  # type: ignore[arg-type]
        columns[1].append(float(value_b))  # type: ignore[arg-type]
        if with_pass:
            columns[2].append(float(verdict_a))  # type: ignore[arg-type]
            columns[3].append(float(verdict_b))  # type: ignore[arg-type]
    arrays = [tuple(column) for column in columns]
    return PairedData(
        case_ids=tuple(kept),
        a=arrays[0], b=arrays[1],
        pass_a=arrays[2] if with_pass else None,
        pass_b=arrays[3] if with_pass else None,
        excluded=Exclusions(in_id_order(only_a), in_id_order(only_b),
                            in_id_order(errored[0]), in_id_order(errored[1]), ignored,
                            several_epochs),
    )


def _several(raw: Value | Sequence[Value]) -> bool:
    """Whether a case's result holds more than one epoch's value."""
    return isinstance(raw, Sequence) and len(raw) > 1


_MISSING: Any = object()
"""A case one side lacks (None is an errored value, so it cannot say so)."""


def in_id_order(case_ids: Iterable[str]) -> tuple[str, ...]:
    """Case ids sorted as people number them (`q2` before `q10`): the order they are read
    in puts a case whose target failed after the scored ones, so a list of left-out cases
    read `ge_009, ge_010, ge_003`."""
    return tuple(sorted(case_ids, key=lambda cid: [(0, int(part), "") if part.isdigit()
                                                   else (1, 0, part)
                                                   for part in _DIGITS.split(cid)]))


def _case_mean(raw: Value | Sequence[Value], case_id: str) -> tuple[float | None, int]:
    """The mean of a case's usable epoch values, and how many errored epochs were dropped."""
    if raw is None:  # a finite float or a bool of one epoch is taken in `pair_cases`
        return None, 0
    values = list(raw) if isinstance(raw, Sequence) else [raw]
    usable: list[float] = []
    for value in values:
        if value is None:
            continue
        if _is_bool(value):
            usable.append(1.0 if value else 0.0)
            continue
        if not _is_number(value) or not math.isfinite(value):
            raise UserError(f"case {case_id!r}: value {value!r} is not a finite number")
        usable.append(float(value))
    if not usable:
        return None, 0
    return sum(usable) / len(usable), len(values) - len(usable)


def _is_bool(value: object) -> bool:
    """A Python or numpy boolean (numpy's is not a `bool`), without importing numpy."""
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool",
                                                                                      "bool_"))


def _is_number(value: object) -> bool:
    """An int or float, numpy's scalars included (`numbers.Real` knows them once loaded)."""
    return isinstance(value, int | float | numbers.Real)
