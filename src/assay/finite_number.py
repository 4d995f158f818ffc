"""A number read from a file as a finite float, or None.

`float()` of a JSON integer past a float's range (10**400, which JSON and YAML
read exactly) raises OverflowError, not ValueError, and `math.isfinite` of it
raises the same: each reader that took such an integer for a number (a judge's
score, a logged cost, a label file's score, a case's expected number) stopped
with an internal error. Here it is no number, as NaN and infinity are.
"""

from __future__ import annotations

import math
import sys
from typing import Any


def finite_number(value: Any) -> float | None:
    """`value` as a finite float when it is a JSON number (never a boolean); None for NaN,
    an infinity, an integer past a float's range, and anything not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        return float(value) if abs(value) <= sys.float_info.max else None
    return value if math.isfinite(value) else None
