"""The numeric check: find the number in the answer and compare it with the expected one."""

from __future__ import annotations

import math
import re
from typing import Literal

from pydantic import Field

from assay.case import Case
from assay.finite_number import finite_number
from assay.output import Output
from assay.registry import scorer
from assay.score import Score
from assay.scorers._expected import CheckParams, clip, no_expected
from assay.scorers._regex import MATCH_SECONDS, RegexPattern, compile_pattern, timed_out
from assay.scorers.base import CheckScorer
from assay.services import Services

NUMBER = re.compile(
    r"""
    (?<![\w.])                          # a number starts a token: not inside a word or a number
    [-+\u2212]?                         # sign, including the Unicode minus
    (?: (?:\d{1,3}(?:,\d{3})+(?!\d) | \d+) (?:\.\d+)?   # 1,234.5 or 1234.5 or 42
      | \.\d+ )                                         # .5
    (?:[eE][-+]?\d+)?                   # scientific notation: 6.02e23
    """,
    re.VERBOSE,
)
"""A number as people write it in answers: thousands commas, a sign, decimals, an exponent."""


def to_float(text: str) -> float:
    """Convert one `NUMBER` match to a float."""
    return float(text.replace(",", "").replace("\u2212", "-"))


def numbers_in(text: str) -> list[float]:
    """Every number written in `text`, in order."""
    return [to_float(match.group(0)) for match in NUMBER.finditer(text)]


@scorer("numeric")
class Numeric(CheckScorer):
    """Passes when the number in the output is within tolerance of the expected number.

    The expected number is the case's `expected` (a number, or text holding
    exactly one number, or a list of acceptable numbers) unless `value` is set.
    """

    bounded = True

    class Params(CheckParams):
        value: float | None = Field(default=None, allow_inf_nan=False)
        """Compare with this number instead of the case's `expected`."""

        pattern: RegexPattern | None = None
        """A regex locating the number in the output; the number is read from the named group
        `value`, else the first group, else the whole match. Without it every number counts."""

        pick: Literal["last", "first"] = "last"
        """Which number to take when the output holds several (answers usually end with it)."""

        abs_tol: float = Field(default=0.0, ge=0.0)
        """Passes when |output - expected| <= abs_tol."""

        rel_tol: float = Field(default=1e-9, ge=0.0)
        """Also passes when |output - expected| <= rel_tol * |expected|."""

    params: Params

    def __init__(self, params: Params, services: Services) -> None:
        super().__init__(params, services)
        self.pattern = compile_pattern(params.pattern) if params.pattern else None

    def check(self, case: Case, output: Output) -> Score:
        expected = self._expected(case)
        if isinstance(expected, Score):
            return expected
        try:
            candidates = self._candidates(output.text)
        except TimeoutError:
            return Score.failure(timed_out(self.params.pattern or ""))
        if not candidates:
            where = f"matching /{self.params.pattern}/ " if self.pattern else ""
            return Score.binary(False, f"no number {where}found in the output {clip(output.text)}",
                                expected=expected)
        actual = candidates[-1] if self.params.pick == "last" else candidates[0]
        target = min(expected, key=lambda number: abs(actual - number))
        difference = abs(actual - target)
        passed = (difference <= self.params.abs_tol
                  or difference <= self.params.rel_tol * abs(target))
        relation = "within tolerance of" if passed else "differs from"
        reason = f"{_show(actual)} {relation} expected {_show(target)}"
        if not passed:
            reason += f" by {_show(difference)}"
        return Score.binary(passed, reason, actual=actual, expected=target,
                            difference=difference, numbers_found=len(candidates))

    @property
    def compares_with_reference(self) -> bool:
        return self.params.value is None

    def reference_problem(self, case: Case) -> str | None:
        """Why `case` gives no expected number (none, or not one finite number)."""
        expected = self._expected(case)
        return expected.error if isinstance(expected, Score) else None

    def _candidates(self, text: str) -> list[float]:
        if self.pattern is None:
            return numbers_in(text)
        found: list[float] = []
        for match in self.pattern.finditer(text, timeout=MATCH_SECONDS):
            if "value" in self.pattern.groupindex:
                captured = match.group("value")
            else:
                captured = match.group(1) if self.pattern.groups else match.group(0)
            numbers = numbers_in(captured or "")
            if numbers:
                found.append(numbers[0])
        return found

    def _expected(self, case: Case) -> list[float] | Score:
        if self.params.value is not None:
            return [self.params.value]
        raw = case.expected
        if raw is None or raw == "" or raw == []:
            return no_expected(case, "expected number")
        items = raw if isinstance(raw, list) else [raw]
        numbers: list[float] = []
        for item in items:
            number = _as_number(item)
            if number is None:
                return Score.failure(
                    f"case '{case.id}' expected value {clip(str(item))} is not one number"
                )
            numbers.append(number)
        return numbers


def _as_number(item: object) -> float | None:
    """A number from an expected value: a JSON number, or text holding exactly one number."""
    if isinstance(item, str):
        found = numbers_in(item)
        return found[0] if len(found) == 1 and math.isfinite(found[0]) else None
    return finite_number(item)  # never a boolean; not NaN nor 10**400


def _show(number: float) -> str:
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else f"{number:.10g}"
