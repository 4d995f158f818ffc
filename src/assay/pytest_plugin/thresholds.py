"""Thresholds a test sets, as gates: `{"contains": 0.8, "judge_score.mean@pack": 7}`.

Each key is what `assay run --fail-under` takes before the `=`:
`SCORER[.mean|.pass_rate][@CONDITION]`, a pass rate by default. The gates
join the config's own, so the stored run, its reports and the test agree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from assay.config.models import GateConfig
from assay.errors import UserError
from assay.review.gates import parse_fail_under

Thresholds = Mapping[str, float]
"""`SCORER[.mean|.pass_rate][@CONDITION]` -> the least value that passes."""


def threshold_gates(thresholds: Thresholds | None) -> list[GateConfig]:
    """The gates `thresholds` describe; a malformed key or value is a `UserError`."""
    if thresholds is None:
        return []
    if not isinstance(thresholds, Mapping):
        raise UserError("thresholds must map SCORER[.mean|.pass_rate][@CONDITION] to a "
                        "number, e.g. {'contains': 0.8, 'judge_score.mean@pack': 7}")
    gates = []
    for key, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise UserError(f"threshold '{key}': {value!r} is not a number")
        if not math.isfinite(value):
            raise UserError(f"threshold '{key}': {value!r} is not a finite number")
        gates.append(parse_fail_under(f"{key}={value}", source="threshold"))
    return gates
