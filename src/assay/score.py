"""The Score: one scorer's verdict on one output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.output import Usage


@dataclass(slots=True)
class Score:
    """A verdict. `value` is on `scale` (min, max); `passed` is the pass/fail reading.

    A scorer that could not decide sets `error` and leaves `value` as None:
    an error is counted as an error, never as a score of 0.
    """

    value: float | None
    scale: tuple[float, float] = (0.0, 1.0)
    passed: bool | None = None
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    usage: Usage | None = None
    """Tokens and cost the scorer spent (an LLM judge), counted apart from the target's."""

    @classmethod
    def failure(cls, error: str, *, details: dict[str, Any] | None = None,
                usage: Usage | None = None) -> Score:
        """A scorer error: no value, no verdict, a visible reason (and what it cost)."""
        return cls(value=None, passed=None, error=error, details=details or {}, usage=usage)

    @classmethod
    def binary(cls, passed: bool, reason: str = "", **details: Any) -> Score:
        """A pass/fail verdict scored 1 or 0."""
        return cls(value=1.0 if passed else 0.0, passed=passed, reason=reason,
                   details=dict(details))

    @property
    def normalized(self) -> float | None:
        """The value mapped onto 0..1, for comparing scorers of different scales."""
        if self.value is None:
            return None
        low, high = self.scale
        return (self.value - low) / (high - low) if high != low else self.value
